// Package publish is the "Link" of Photo → 3D → Link: share links, embeds and
// QR codes for blueprints, the public pages shoppers open without signing in,
// and the metering of those pages against the owner's public-view balance.
//
// # Publications
//
// A publication is one publication-{id} stream: PublicationCreated (an
// unguessable 96-bit base64url slug), PublicationVersioned (an immutable
// snapshot of the blueprint: name, model key, thumbnail key, parts),
// PublicationLocked (pin the link to one version; 0 unlocks) and
// PublicationUnpublished. The publications and publication_versions tables
// are updated inline in the append's transaction. An unlocked link follows
// the blueprint's edits live (the spec's "edits update live unless a version
// is locked"); a locked one shows its snapshot. The blueprint itself is read
// by folding its job-{id} stream, so this package depends on the event
// contract, not on another context's tables.
//
// # Public pages
//
// /v/{slug} and /embed/{slug} are rendered by html/template once per cache
// fill, not per view: a slug's pages are cached in memory for a few seconds,
// dropped at once on this instance when the publication changes, and on every
// other instance through a NOTIFY on NotifyChannel sent right after the
// changing transaction commits. Models, posters and logos are streamed from the bucket under
// /v/{slug}/… so pages carry no signatures and stop working with the link.
//
// # Page tokens
//
// Every page carries a short-lived signed view token that its beacons must
// send back (POST /t refuses batches without it, and from other sites), and
// the email gate answers a gate token that the gated page's model routes
// require; both are stateless HMACs over slug, publication and expiry with
// a key derived from the server secret (pagetoken.go).
//
// # Metering: never oversell, never serialise a view on the owner's stream
//
//  1. Each api instance leases blocks of views from the owner's balance
//     (subscription.LeaseViews: one PublicViewsLeased event grants
//     min(want, balance)); a view is one decrement of an in-memory counter.
//  2. Served views are written every FlushEvery (2 s) as one
//     PublicViewsConsumed per lease, so publicViewsUsed lags by seconds.
//  3. A used-up lease is settled and a new block leased by one goroutine per
//     owner while the others wait; busy owners get doubling blocks (up to
//     MaxBlock) so their stream sees a few appends per second at most.
//  4. Leases are served only until LeaseTTL−SafetyMargin, returned when idle
//     and on shutdown (Close); one lost with a crashed instance expires in the
//     ledger and its unused part flows back on the owner's next lease.
//  5. The total served can never exceed what was granted, and grants never
//     exceed the balance. When a lease comes back empty the page shows a
//     polite notice and PublicViewsExhausted is appended once per exhaustion
//     (a marker row, deleted when views are granted again, dedupes across
//     instances). HEAD, crawlers, prefetches and a viewer's reloads within 30
//     minutes (keyed hash of slug+IP+UA, no PII) are not counted.
package publish
