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
// Reporting: Reader.Report counts shopper_days (or the day cells) for one
// merchant, range and filters and applies the definitions (kpi.go: Shopper's
// methods and tallies.finish, the same code as Compute); definitions.go states
// each of them in words, once, and the API serves that table to the UI's
// info tooltips.
package analytics
