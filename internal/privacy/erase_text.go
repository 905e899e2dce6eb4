package privacy

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/notify"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/publish"
	"github.com/photo3d/photo3d/internal/workspace"
)

// Merchant text (security review 3, L7). What a merchant typed (brand
// name, product names, descriptions, tags, file names, key names, hotspot
// texts, purchase links, SKUs, part names, webhook hosts, embed sites) is
// personal data for a sole trader, and it sat in events and read models
// after erasure. The events package classifies every string of every event
// (events/erase.go); this step blanks the merchant text in all of the
// account's stored events and then makes each read model hold what a replay
// of the redacted log writes, so `worker replay` gives the same rows after
// the erasure as before it. Ids, enums, times, counts and hashes stay, so
// analytics and the tombstones of the account's ids are kept.
//
// Why blank the log rather than keep the text outside it (as user_pii keeps
// the address) or encrypt it under a per-account key: these fields are read
// by nearly every projection, the public pages and the analysts, so moving
// them would put a lookup or a key service behind every reader, while the
// account's stored events are few and rewriting them once, at erasure, is
// what `worker migrate-pii` already does for the old address fields.

// snapshotOwners gives the Go types of the free-form event fields
// (erase:"owner"): a publication version's snapshot is a publish.Snapshot.
// events.NewRedactor refuses to start without one for every such field.
func snapshotOwners() map[string]reflect.Type {
	return map[string]reflect.Type{
		events.PublicationVersioned{}.EventType() + " snapshot": reflect.TypeOf(publish.Snapshot{}),
	}
}

// derivedText lists the async projections whose rows quote merchant text.
// The step holds their checkpoint rows, so no batch of theirs runs while it
// rewrites those rows, and a batch after it reads the redacted log.
var derivedText = []string{notify.ProjectionName, workspace.ProjectionName}

// text blanks the account's merchant text in the log and the read models,
// in one transaction; it is idempotent (a second run finds nothing to
// change and rewrites the read models to the same values).
func (w *EraseWorker) text(ctx context.Context, userID string) error {
	red, err := events.NewRedactor(events.Domain(), snapshotOwners())
	if err != nil {
		return err
	}
	return pgdb.WithTx(ctx, w.DB, func(tx pgx.Tx) error {
		// Workers that may still append to the account's streams without a
		// request of the merchant: a build completing (it locks its job row
		// first; its events hold no merchant text, but the products it
		// refolds do) and an uploaded model being prepared (it takes the
		// catalogue lock and, from the request on, records nothing).
		// Waiting for them here means they appended before this reads the
		// log, or they read the redacted log after it.
		if _, err := tx.Exec(ctx, `SELECT 1 FROM jobs WHERE user_id = $1 ORDER BY id FOR UPDATE`, userID); err != nil {
			return fmt.Errorf("lock the account's builds: %w", err)
		}
		if err := catalog.LockMerchant(ctx, tx, userID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO projection_checkpoints (name) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING`, derivedText); err != nil {
			return fmt.Errorf("hold projections: %w", err)
		}
		if _, err := tx.Exec(ctx, `SELECT 1 FROM projection_checkpoints WHERE name = ANY($1) ORDER BY name FOR UPDATE`, derivedText); err != nil {
			return fmt.Errorf("hold projections: %w", err)
		}
		streams, err := accountStreams(ctx, tx, userID)
		if err != nil {
			return err
		}
		versions, err := redactEvents(ctx, tx, red, streams)
		if err != nil {
			return err
		}
		return eraseReadModels(ctx, tx, userID, streams, versions)
	})
}

// accountStreams lists the account's streams: its user and subscription
// streams and every stream whose first event names it as the owner (every
// aggregate's creation event carries userId; migration 0037 indexes them;
// the team's workspace and approval streams name it as workspaceId).
func accountStreams(ctx context.Context, tx pgx.Tx, userID string) ([]events.Stream, error) {
	rows, err := tx.Query(ctx, `SELECT stream_type, substr(stream_id, length(stream_type) + 2) FROM events
		WHERE version = 1 AND (data->>'userId' = $1 OR data->>'workspaceId' = $1)
		UNION SELECT $2::text, $1::text UNION SELECT $3::text, $1::text
		ORDER BY 1, 2`, userID, events.StreamUser, events.StreamSubscription)
	if err != nil {
		return nil, fmt.Errorf("list the account's streams: %w", err)
	}
	streams, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (events.Stream, error) {
		var s events.Stream
		return s, r.Scan(&s.Type, &s.ID)
	})
	if err != nil {
		return nil, fmt.Errorf("list the account's streams: %w", err)
	}
	return streams, nil
}

// redactEvents blanks the merchant text of every event of streams and
// returns the publication versions (redacted) the read model copies.
func redactEvents(ctx context.Context, tx pgx.Tx, red *events.Redactor, streams []events.Stream) ([]events.PublicationVersioned, error) {
	ids := make([]string, len(streams))
	for i, s := range streams {
		ids[i] = s.String()
	}
	rows, err := tx.Query(ctx, `SELECT position, type, data FROM events WHERE stream_id = ANY($1) ORDER BY position FOR UPDATE`, ids)
	if err != nil {
		return nil, fmt.Errorf("read the account's events: %w", err)
	}
	type stored struct {
		position int64
		typ      string
		data     []byte
	}
	evs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (stored, error) {
		var s stored
		return s, r.Scan(&s.position, &s.typ, &s.data)
	})
	if err != nil {
		return nil, fmt.Errorf("read the account's events: %w", err)
	}
	var versions []events.PublicationVersioned
	for _, e := range evs {
		data, changed, err := red.Redact(e.typ, e.data)
		if err != nil {
			return nil, fmt.Errorf("event at position %d: %w", e.position, err)
		}
		if changed {
			if _, err := tx.Exec(ctx, `UPDATE events SET data = $2 WHERE position = $1`, e.position, data); err != nil {
				return nil, fmt.Errorf("redact the event at position %d: %w", e.position, err)
			}
		}
		if e.typ == (events.PublicationVersioned{}).EventType() {
			ev, err := events.Domain().Decode(e.typ, data)
			if err != nil {
				return nil, fmt.Errorf("event at position %d: %w", e.position, err)
			}
			versions = append(versions, ev.(events.PublicationVersioned))
		}
	}
	// The request and correlation ids in the metadata may be the client's
	// own X-Request-Id (any 64 characters of [A-Za-z0-9._-], so a name or
	// an address fits): they only ever served tracing, so they go too.
	if _, err := tx.Exec(ctx, `UPDATE events SET metadata = metadata - 'requestId' - 'correlationId'
		WHERE stream_id = ANY($1) AND (metadata ? 'requestId' OR metadata ? 'correlationId')`, ids); err != nil {
		return nil, fmt.Errorf("drop the request ids of the account's events: %w", err)
	}
	return versions, nil
}

// eraseReadModels makes every read model of the account hold what a replay
// of the redacted log writes. The attack test (TestSecurityMerchantText…,
// internal/httpapi) scans every table, so a read model missed here fails it.
func eraseReadModels(ctx context.Context, tx pgx.Tx, userID string, streams []events.Stream, versions []events.PublicationVersioned) error {
	// Catalogs, products (with their configuration) and galleries are folds
	// of their streams: fold them again.
	for _, s := range streams {
		if err := catalog.Refold(ctx, tx, s); err != nil {
			return err
		}
	}
	// Publication versions copy their event's snapshot (publish.Projection).
	for _, v := range versions {
		snap, err := json.Marshal(v.Snapshot)
		if err != nil {
			return fmt.Errorf("encode snapshot: %w", err)
		}
		if _, err := tx.Exec(ctx, `UPDATE publication_versions SET snapshot = $3 WHERE publication_id = $1 AND version = $2`,
			v.PublicationID, v.Version, snap); err != nil {
			return fmt.Errorf("erase version %d of %s: %w", v.Version, v.PublicationID, err)
		}
	}
	for _, q := range []string{
		// Each is the projection's copy of a blanked field: the embed sites
		// (an empty list when set, the column's default otherwise), an
		// upload's and a blueprint's name, an API key's name.
		`UPDATE publications SET embed_origins = '{}' WHERE user_id = $1 AND embed_origins <> '{}'`,
		`UPDATE uploads SET filename = '' WHERE user_id = $1 AND filename <> ''`,
		`UPDATE jobs SET name = '' WHERE user_id = $1 AND name <> ''`,
		`UPDATE api_keys SET name = '' WHERE user_id = $1 AND name <> ''`,
		// Not a read model: a submitted model's file name, and the keys of
		// its uploaded files (they end in the file names; the files step
		// deleted them, and finds any left under model-sources/{userId}/).
		`UPDATE product_models SET filename = '', source_keys = '{}' WHERE user_id = $1 AND (filename <> '' OR source_keys <> '{}')`,
	} {
		if _, err := tx.Exec(ctx, q, userID); err != nil {
			return fmt.Errorf("erase merchant text (%s): %w", q, err)
		}
	}
	if err := notify.EraseText(ctx, tx, userID); err != nil {
		return err
	}
	return workspace.EraseText(ctx, tx, userID)
}
