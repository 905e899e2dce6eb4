// Package analytics turns what shoppers do on a public product page into the
// merchant's Business Overview.
//
// Collection: the public viewer posts beacon batches (ParseBatch validates a
// batch as a whole); the HTTP layer resolves the publication, derives the
// dimensions (Device, Source, Region) and hands rows to a Writer, which keeps
// them in memory and writes them with COPY into the day-partitioned
// shopper_events table at least every FlushEvery and on Close. A crash loses
// at most the rows of the last flush interval; IP addresses are never stored.
//
// Rollup: Rollup recomputes one day's shopper_days rows from the raw rows
// (delete and rebuild in one transaction), so it is idempotent and a replay of
// any day is the same recomputation. The worker runs it periodically
// (RollupWorker), together with partition upkeep and retention.
//
// Reporting: Query reads shopper_days for one merchant, range and filters and
// Compute applies the definitions (kpi.go) that the README and the UI's info
// tooltips state in words.
package analytics
