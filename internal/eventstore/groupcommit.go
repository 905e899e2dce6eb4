package eventstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// GroupCommit tunes how AppendCommitted batches concurrent appends into one
// transaction (group commit).
//
// Why: with one append per transaction, every append pays a statement, a
// commit record, a round trip and a wait for a WAL flush (shared only with
// the transactions committing at that moment). The event store's appends are
// independent of each other (each checks its own stream's version), so it
// commits many of them in one transaction: one statement, one commit and one
// flush for a whole batch. That is what lets 32 writers exceed what Postgres
// does with one append per transaction (ops/append-ratio.sh measures both in
// one run; docs/benchmarks.md).
//
// How a batch forms: an append joins the queue of its pool; when fewer than
// MaxInFlight batches are committing, a batch of up to MaxBatch queued
// appends is sent at once, so a lone writer never waits for company (a fixed
// wait would cap it at one append per wait). Under load, appends queue while
// the batches ahead of them commit and go out together in the next one: an
// append waits at most for the batches in flight before it, and a batch
// closes at MaxBatch appends.
//
// Each append keeps its own answer: a stale expected version inserts none of
// its events and is that append's *ConflictError alone. A batch of appends to
// distinct streams (the usual shape) is one statement (batchAppendSQL); a
// batch with a stream twice is one statement per append (appendSQL), in queue
// order, each seeing the ones before it. An append that loses a race with a
// concurrent transaction on the same stream version (unique violation) aborts
// the batch's transaction: the batch is rolled back and resent one statement
// per append, and the append whose statement fails is dropped with its
// *ConflictError while the others are resent and commit.
//
// Gapless reads are unchanged: every event of a batch carries the batch's
// transaction id and becomes visible at its one commit, and async projections
// read below pg_snapshot_xmin ordered by (transaction id, position) as
// before (see internal/projection).
type GroupCommit struct {
	// MaxBatch is the most appends one transaction commits (default 64; 1
	// turns group commit off: one transaction per append).
	MaxBatch int
	// MaxInFlight is how many batches of one pool commit at once, each on
	// its own connection (default 8).
	MaxInFlight int
}

// WithGroupCommit tunes AppendCommitted's batching (see GroupCommit).
func WithGroupCommit(g GroupCommit) Option { return func(s *Store) { s.group = g } }

func (g GroupCommit) withDefaults() GroupCommit {
	if g.MaxBatch <= 0 {
		g.MaxBatch = 64
	}
	if g.MaxInFlight <= 0 {
		g.MaxInFlight = 8
	}
	return g
}

// committer batches the AppendCommitted calls on one pool.
type committer struct {
	store *Store
	pool  *pgxpool.Pool
	cfg   GroupCommit

	mu       sync.Mutex
	pending  []*queued
	inFlight int
}

// queued is one append waiting for its batch.
type queued struct {
	req      appendRequest
	expected int64
	out      []Envelope
	err      error
	done     chan struct{}
}

func (q *queued) finish(out []Envelope, err error) {
	q.out, q.err = out, err
	close(q.done)
}

// committerFor returns the pool's committer, made on first use. It holds no
// goroutine while idle, so a store needs no Close.
func (s *Store) committerFor(pool *pgxpool.Pool) *committer {
	s.groupMu.Lock()
	defer s.groupMu.Unlock()
	c := s.committers[pool]
	if c == nil {
		if s.committers == nil {
			s.committers = map[*pgxpool.Pool]*committer{}
		}
		c = &committer{store: s, pool: pool, cfg: s.group.withDefaults()}
		s.committers[pool] = c
	}
	return c
}

// append queues req and waits for its batch. A ctx that ends while the
// append is still queued takes it out (nothing was written); once its batch
// is being committed the outcome is unknown to the caller, as with any
// cancelled commit.
func (c *committer) append(ctx context.Context, req appendRequest, expected int64) ([]Envelope, error) {
	q := &queued{req: req, expected: expected, done: make(chan struct{})}
	c.mu.Lock()
	c.pending = append(c.pending, q)
	if c.inFlight < c.cfg.MaxInFlight {
		// A free slot: this caller commits the queue itself (a lone
		// writer's append goes out at once, with no hand-over between
		// goroutines), then hands what queued meanwhile to a goroutine.
		c.inFlight++
		c.mu.Unlock()
		c.commit(c.take())
		c.mu.Lock()
		if len(c.pending) > 0 {
			go c.drain()
		} else {
			c.inFlight--
		}
		c.mu.Unlock()
	} else {
		c.mu.Unlock()
	}
	select {
	case <-q.done:
		return q.out, q.err
	case <-ctx.Done():
	}
	c.mu.Lock()
	for i, p := range c.pending {
		if p == q {
			c.pending = append(c.pending[:i], c.pending[i+1:]...)
			c.mu.Unlock()
			return nil, fmt.Errorf("append to %s: %w", req.id, ctx.Err())
		}
	}
	c.mu.Unlock()
	select {
	case <-q.done: // finished meanwhile: a definite answer
		return q.out, q.err
	default:
		return nil, fmt.Errorf("append to %s (being committed, outcome unknown): %w", req.id, ctx.Err())
	}
}

// take takes the next batch off the queue: up to MaxBatch appends, in order.
func (c *committer) take() []*queued {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := min(len(c.pending), c.cfg.MaxBatch)
	batch := append([]*queued(nil), c.pending[:n]...)
	rest := copy(c.pending, c.pending[n:])
	clear(c.pending[rest:])
	c.pending = c.pending[:rest]
	return batch
}

// drain commits batches until the queue is empty, holding one of the
// MaxInFlight slots.
func (c *committer) drain() {
	for {
		c.mu.Lock()
		if len(c.pending) == 0 {
			c.inFlight--
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
		c.commit(c.take()) // empty if another took the queue meanwhile
	}
}

// maxRetries bounds how often a batch is resent after a deadlock or
// serialization failure (not any one append's fault).
const maxRetries = 3

// commit commits batch on one connection and answers every append in it.
func (c *committer) commit(batch []*queued) {
	if len(batch) == 0 {
		return
	}
	// The batch serves many callers, so no one caller's ctx may cancel it.
	ctx := context.Background()
	conn, err := c.pool.Acquire(ctx)
	if err != nil {
		for _, q := range batch {
			q.finish(nil, fmt.Errorf("append to %s: %w", q.req.id, err))
		}
		return
	}
	defer conn.Release()
	retries := 0
	oneByOne := false
	for len(batch) > 0 {
		results, failed, err := c.try(ctx, conn.Conn(), batch, oneByOne)
		if err == nil {
			if c.store.notifier != nil {
				c.store.notifier.Poke()
			}
			for i, q := range batch {
				if len(results[i]) == 0 {
					q.finish(nil, &ConflictError{Stream: q.req.id, Expected: q.expected})
					continue
				}
				c.store.observed(results[i])
				q.finish(results[i], nil)
			}
			return
		}
		// The transaction is aborted (or the connection gone): roll back so
		// that the connection can be used again.
		if pc := conn.Conn().PgConn(); !pc.IsClosed() && pc.TxStatus() != 'I' {
			if _, rbErr := pc.Exec(ctx, "ROLLBACK").ReadAll(); rbErr != nil {
				err = errors.Join(err, rbErr)
			}
		}
		var pgErr *pgconn.PgError
		isPg := errors.As(err, &pgErr)
		switch {
		case isPg && (pgErr.Code == "40P01" || pgErr.Code == "40001") && retries < maxRetries:
			retries++ // a deadlock between batches: resend them all
		case isPg && failed == failedSet && !conn.Conn().PgConn().IsClosed() && !oneByOne:
			// The batch's one statement failed (a lost race): resend the
			// appends one statement each to find which.
			oneByOne = true
		case isPg && failed >= 0 && !conn.Conn().PgConn().IsClosed():
			// One append's statement failed: it fails alone, the others
			// are resent in a new transaction.
			q := batch[failed]
			q.finish(nil, c.store.mapErr(err, q.req.id, q.expected))
			batch = append(batch[:failed:failed], batch[failed+1:]...)
		default:
			// BEGIN or COMMIT failed, or the connection broke: no append
			// in the batch can be known to have committed.
			for _, q := range batch {
				q.finish(nil, fmt.Errorf("append to %s: %w", q.req.id, err))
			}
			return
		}
	}
}

// failedSet is try's index of failure for batchAppendSQL, the statement of
// several appends.
const failedSet = -2

// batchAppendSQL appends the events of several appends to distinct streams in
// one statement (the batch's usual shape: one writer per stream): one
// execution instead of one per append, which is where a batch saves Postgres
// CPU. Each event row carries its append's stream, expected version and
// position in the append (o); an append whose stream is not at its expected
// version inserts none of its rows, as appendSQL does. The streams being
// distinct, no append can see another's rows, so the one snapshot of the
// statement gives every append the answer it would get alone.
const batchAppendSQL = `
INSERT INTO events (stream_id, stream_type, version, type, data, metadata)
SELECT x.s, x.st, cur.v + x.o, x.t, x.d, x.m
FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::text[], $6::jsonb[], $7::jsonb[])
    WITH ORDINALITY AS x(s, st, e, o, t, d, m, n)
CROSS JOIN LATERAL (SELECT coalesce(max(version), 0) AS v FROM events WHERE stream_id = x.s) cur
WHERE x.e < 0 OR cur.v = x.e
ORDER BY x.n
RETURNING position, stream_id, version, occurred_at, transaction_id::text`

// distinctStreams reports whether no two appends of batch share a stream.
func distinctStreams(batch []*queued) bool {
	seen := make(map[string]bool, len(batch))
	for _, q := range batch {
		if seen[q.req.id] {
			return false
		}
		seen[q.req.id] = true
	}
	return true
}

// queueSet queues batchAppendSQL for batch.
func queueSet(b *pgx.Batch, batch []*queued) {
	var ss, sts, ts, ds, ms []string
	var es, os []int64
	for _, q := range batch {
		r := q.req
		for i := range r.types {
			ss, sts, es, os = append(ss, r.id), append(sts, r.stream.Type), append(es, q.expected), append(os, int64(i+1))
			ts, ds, ms = append(ts, r.types[i]), append(ds, r.datas[i]), append(ms, r.mdJSON)
		}
	}
	b.Queue(batchAppendSQL, ss, sts, es, os, ts, ds, ms)
}

// scanSet reads batchAppendSQL's rows into each append's envelopes.
func scanSet(rows pgx.Rows, batch []*queued) ([][]Envelope, error) {
	defer rows.Close()
	index := make(map[string]int, len(batch))
	for i, q := range batch {
		index[q.req.id] = i
	}
	results := make([][]Envelope, len(batch))
	for rows.Next() {
		var e Envelope
		var stream, xid string
		if err := rows.Scan(&e.Position, &stream, &e.Version, &e.OccurredAt, &xid); err != nil {
			return nil, fmt.Errorf("scan appended event: %w", err)
		}
		fmt.Sscan(xid, &e.TransactionID)
		i, ok := index[stream]
		if !ok {
			return nil, fmt.Errorf("appended event of unexpected stream %s", stream)
		}
		results[i] = append(results[i], e)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i, out := range results {
		req := batch[i].req
		sort.Slice(out, func(a, b int) bool { return out[a].Version < out[b].Version })
		for j := range out {
			out[j].StreamID, out[j].StreamType, out[j].Type, out[j].Data, out[j].Raw, out[j].Metadata =
				req.id, req.stream.Type, req.types[j], req.evs[j], json.RawMessage(req.datas[j]), req.md
		}
	}
	return results, nil
}

// try sends one batch as one pipeline (one round trip) and returns each
// append's stored envelopes (none for a stale version), or the error and the
// index of the append whose statement failed (-1 for BEGIN, COMMIT or the
// connection, failedSet for batchAppendSQL). Appends to distinct streams go
// in one statement (batchAppendSQL) unless oneByOne; otherwise, and when
// one stream appears twice, each append is one statement (appendSQL) in
// queue order, each seeing those before it.
//
// With a Notifier the pipeline is just the appends' inserts: statements up
// to a pipeline's Sync run in one implicit transaction, committed (or, after
// an error, rolled back) at the Sync, so a lone append costs what pgbench's
// one-statement transaction does. Without one it is BEGIN, the inserts,
// COMMIT and then the NOTIFY in the pipeline's next implicit transaction (see
// send for why after the COMMIT).
func (c *committer) try(ctx context.Context, conn *pgx.Conn, batch []*queued, oneByOne bool) ([][]Envelope, int, error) {
	notify := c.store.notifier == nil
	set := !oneByOne && len(batch) > 1 && distinctStreams(batch)
	b := &pgx.Batch{}
	if notify {
		b.Queue(`BEGIN`)
	}
	if set {
		queueSet(b, batch)
	} else {
		for _, q := range batch {
			r := q.req
			b.Queue(appendSQL, r.id, r.stream.Type, q.expected, r.types, r.datas, r.mdJSON)
		}
	}
	if notify {
		b.Queue(`COMMIT`)
		b.Queue(`SELECT set_config('synchronous_commit', 'off', true), pg_notify($1, '')`, NotifyChannel)
	}
	br := conn.SendBatch(ctx, b)
	defer br.Close()
	if notify {
		if _, err := br.Exec(); err != nil {
			return nil, -1, err
		}
	}
	var results [][]Envelope
	if set {
		rows, err := br.Query()
		if err != nil {
			return nil, failedSet, err
		}
		if results, err = scanSet(rows, batch); err != nil {
			return nil, failedSet, err
		}
	} else {
		results = make([][]Envelope, len(batch))
		for i, q := range batch {
			rows, err := br.Query()
			if err != nil {
				return nil, i, err
			}
			if results[i], err = scanAppended(rows, q.req); err != nil {
				return nil, i, err
			}
		}
	}
	if !notify {
		// The implicit transaction commits at the Sync, which Close reads:
		// its error (a failed commit) belongs to no one append.
		if err := br.Close(); err != nil {
			return nil, -1, err
		}
		return results, -1, nil
	}
	if _, err := br.Exec(); err != nil { // COMMIT
		return nil, -1, err
	}
	// Committed already: a lost wake-up only delays the projections until
	// their poll.
	if _, err := br.Exec(); err != nil {
		slog.Warn("notify after a group commit failed; projections catch up on their poll", "err", err)
	}
	return results, -1, nil
}
