// Package eventstore appends domain events to the events table and reads them
// back. It is the write side of Photo3D's event sourcing: every state change is
// an event appended with optimistic concurrency (UNIQUE(stream_id, version) is
// the guard), inline projections run in the same transaction, and a NOTIFY
// wakes the worker's async projections once the transaction has committed
// (sent right after the COMMIT: see pgdb.AfterCommitter for why not inside).
package eventstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// NotifyChannel is the LISTEN/NOTIFY channel signalled by every append.
const NotifyChannel = "photo3d_events"

// AnyVersion skips the optimistic concurrency check; use it only for streams
// where order between writers does not matter (none of the money streams).
const AnyVersion int64 = -1

// ConflictError is returned when the stream's version is not the expected one:
// someone else appended first. Callers reload and retry, or report a conflict.
type ConflictError struct {
	Stream   string
	Expected int64
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("stream %s changed concurrently (expected version %d)", e.Stream, e.Expected)
}

// ErrConflict matches any *ConflictError with errors.Is.
var ErrConflict = errors.New("event stream conflict")

// Is lets errors.Is(err, ErrConflict) match.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// Metadata travels with every event: who did it and why. It must never hold
// secrets (tokens, passwords): the log is replayed by analysts.
type Metadata struct {
	Actor         string `json:"actor,omitempty"`
	RequestID     string `json:"requestId,omitempty"`
	CorrelationID string `json:"correlationId,omitempty"`
	CausationID   string `json:"causationId,omitempty"`
}

type metadataKey struct{}

// WithMetadata attaches metadata to ctx; Append stamps it on every event, so
// handlers set the actor and request id once instead of threading them through.
func WithMetadata(ctx context.Context, md Metadata) context.Context {
	return context.WithValue(ctx, metadataKey{}, md)
}

// MetadataFrom returns the metadata attached to ctx, if any.
func MetadataFrom(ctx context.Context) Metadata {
	md, _ := ctx.Value(metadataKey{}).(Metadata)
	return md
}

// Envelope is a stored event with its position in the log.
type Envelope struct {
	Position      int64
	StreamID      string
	StreamType    string
	Version       int64
	Type          string
	Data          events.Event
	Raw           json.RawMessage
	Metadata      Metadata
	OccurredAt    time.Time
	TransactionID uint64
}

// Inline is a projection the API must be able to read back at once (users,
// balances, jobs); it runs inside the append's transaction.
type Inline interface {
	Apply(ctx context.Context, tx pgx.Tx, e Envelope) error
}

// InlineFunc adapts a function to Inline.
type InlineFunc func(ctx context.Context, tx pgx.Tx, e Envelope) error

// Apply implements Inline.
func (f InlineFunc) Apply(ctx context.Context, tx pgx.Tx, e Envelope) error { return f(ctx, tx, e) }

// Store appends and loads events. It is safe for concurrent use.
type Store struct {
	registry *events.Registry
	inline   []Inline
	observe  func(eventType string)
	notifier *pgdb.Notifier
}

// Option configures a Store.
type Option func(*Store)

// WithInline registers inline projections, run in order after every append.
func WithInline(p ...Inline) Option { return func(s *Store) { s.inline = append(s.inline, p...) } }

// WithObserver is called once per appended event (metrics: events by type).
func WithObserver(f func(eventType string)) Option { return func(s *Store) { s.observe = f } }

// WithNotifier wakes the projections through n (one coalesced NOTIFY on
// NotifyChannel for however many appends committed meanwhile) instead of one
// NOTIFY per append: see pgdb.Notifier for why. It applies to appends in a
// pgdb.WithTx transaction; an append in a transaction begun elsewhere still
// NOTIFYs inside it.
func WithNotifier(n *pgdb.Notifier) Option { return func(s *Store) { s.notifier = n } }

// New builds a Store over a registry of event types.
func New(registry *events.Registry, opts ...Option) *Store {
	s := &Store{registry: registry}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Registry returns the registry the store decodes with.
func (s *Store) Registry() *events.Registry { return s.registry }

const appendSQL = `
WITH current AS (
    SELECT coalesce(max(version), 0) AS v FROM events WHERE stream_id = $1
)
INSERT INTO events (stream_id, stream_type, version, type, data, metadata)
SELECT $1, $2, current.v + x.ord, x.t, x.d, $6
FROM unnest($4::text[], $5::jsonb[]) WITH ORDINALITY AS x(t, d, ord), current
WHERE $3::bigint < 0 OR current.v = $3::bigint
ORDER BY x.ord
RETURNING position, version, occurred_at, transaction_id::text`

// Append writes evs to stream in tx, provided the stream is at version
// expected (0 for a new stream, AnyVersion to skip the check). It returns the
// stored envelopes. A stale expected version is a *ConflictError; the caller's
// transaction must then be rolled back. In a pgdb.WithTx transaction the
// NOTIFY that wakes the projections is sent once, right after its COMMIT; in
// any other transaction it is sent inside it.
func (s *Store) Append(ctx context.Context, tx pgx.Tx, stream events.Stream, expected int64, evs ...events.Event) ([]Envelope, error) {
	if len(evs) == 0 {
		return nil, nil
	}
	req, err := s.encode(ctx, stream, evs)
	if err != nil {
		return nil, err
	}
	out, err := s.send(ctx, tx, req, expected)
	if err != nil {
		return nil, err
	}
	for _, e := range out {
		for _, p := range s.inline {
			if err := p.Apply(ctx, tx, e); err != nil {
				return nil, fmt.Errorf("inline projection for %s: %w", e.Type, err)
			}
		}
	}
	if err := runAppendHooks(ctx, tx); err != nil {
		return nil, err
	}
	s.observed(out)
	return out, nil
}

// InAppendingTx returns a context under which every transaction that appends
// events also runs fn, inside it, before it commits: once per transaction
// (the first append runs it; a transaction that appends again does not run
// it again), after that append's events and inline projections are written.
// An error from fn fails the Append, so the caller rolls the transaction
// back. Hooks accumulate: under a context with several, each runs, outermost
// first.
//
// Why: a caller outside a service sometimes has to know whether the
// service's change committed, and only a write in the very same transaction
// can tell it: with the change if it committed, with nothing if it rolled
// back, whatever happens to the connection or the process afterwards. The
// Idempotency-Key layer (internal/httpapi) marks its key 'committed' this
// way, so a retry whose first attempt's answer was lost after its COMMIT is
// never carried out a second time. Every state change appends events, so the
// hook reaches every write without the services knowing about it.
//
// fn must only write what is harmless to write again: a transaction that
// Append cannot tell apart from one it has seen (a pgx.Tx whose type is not
// comparable) runs it at every append, and so does each savepoint, which is
// a transaction of its own.
func InAppendingTx(ctx context.Context, fn func(ctx context.Context, tx pgx.Tx) error) context.Context {
	parent, _ := ctx.Value(appendHooksKey{}).([]*appendHook)
	hooks := append(slices.Clip(parent), &appendHook{fn: fn})
	return context.WithValue(ctx, appendHooksKey{}, hooks)
}

// WithoutAppendHooks returns ctx without its InAppendingTx hooks, for a write
// a request makes on its way that is not the request's change: one a retry
// redoes or finds done, harmlessly. Completing a photo stored straight in a
// cloud bucket the first time a build names it is one (internal/upload): a
// build refused after it changed nothing a retry must not do again, so that
// completion must not mark the request's Idempotency-Key 'committed'.
func WithoutAppendHooks(ctx context.Context) context.Context {
	if ctx.Value(appendHooksKey{}) == nil {
		return ctx
	}
	return context.WithValue(ctx, appendHooksKey{}, []*appendHook(nil))
}

type appendHooksKey struct{}

// appendHook is one InAppendingTx hook and the transactions it has run in.
type appendHook struct {
	fn  func(ctx context.Context, tx pgx.Tx) error
	mu  sync.Mutex
	ran []pgx.Tx // kept, not their addresses: a later transaction cannot reuse one
}

// runAppendHooks runs ctx's InAppendingTx hooks that have not yet run in tx.
func runAppendHooks(ctx context.Context, tx pgx.Tx) error {
	hooks, _ := ctx.Value(appendHooksKey{}).([]*appendHook)
	for _, h := range hooks {
		if err := h.run(ctx, tx); err != nil {
			return err
		}
	}
	return nil
}

// run runs the hook in tx unless it already has. The lock is not held while
// fn runs: transactions of one context appending at once (one goroutine
// each) must not wait for each other's hooks, which may wait for their locks.
func (h *appendHook) run(ctx context.Context, tx pgx.Tx) error {
	comparable := reflect.TypeOf(tx).Comparable()
	if comparable {
		h.mu.Lock()
		seen := slices.Contains(h.ran, tx)
		h.mu.Unlock()
		if seen {
			return nil
		}
	}
	if err := h.fn(ctx, tx); err != nil {
		return fmt.Errorf("append hook: %w", err)
	}
	if comparable {
		h.mu.Lock()
		h.ran = append(h.ran, tx)
		h.mu.Unlock()
	}
	return nil
}

// appendRequest is a batch of events encoded for appendSQL.
type appendRequest struct {
	stream events.Stream
	id     string
	evs    []events.Event
	types  []string
	datas  []string
	md     Metadata
	mdJSON string
}

func (s *Store) encode(ctx context.Context, stream events.Stream, evs []events.Event) (appendRequest, error) {
	req := appendRequest{stream: stream, id: stream.String(), evs: evs, md: MetadataFrom(ctx),
		types: make([]string, len(evs)), datas: make([]string, len(evs))}
	for i, ev := range evs {
		if !s.registry.Known(ev.EventType()) {
			return req, fmt.Errorf("append %s: %w", ev.EventType(), events.ErrUnknownType)
		}
		b, err := json.Marshal(ev)
		if err != nil {
			return req, fmt.Errorf("encode %s: %w", ev.EventType(), err)
		}
		req.types[i] = ev.EventType()
		req.datas[i] = string(b)
	}
	mdJSON, err := json.Marshal(req.md)
	if err != nil {
		return req, fmt.Errorf("encode metadata: %w", err)
	}
	req.mdJSON = string(mdJSON)
	return req, nil
}

// send runs the version-checked insert in the caller's transaction and
// returns the stored envelopes in version order. The NOTIFY that wakes the
// projections goes after the caller's COMMIT where the transaction allows it
// (pgdb.WithTx): Postgres holds a database-wide lock from a NOTIFY-ing
// transaction's pre-commit until its commit has been flushed, so with the
// NOTIFY inside, concurrent appending transactions would commit one flush
// after another instead of sharing flushes (see pgdb.AfterCommitter). In a
// transaction begun elsewhere it is sent inside it, in the same round trip
// as the insert.
func (s *Store) send(ctx context.Context, tx pgx.Tx, req appendRequest, expected int64) ([]Envelope, error) {
	id := req.id
	batch := &pgx.Batch{}
	batch.Queue(appendSQL, id, req.stream.Type, expected, req.types, req.datas, req.mdJSON)
	if ac, ok := tx.(pgdb.AfterCommitter); ok && s.notifier != nil {
		// In pgdb.WithTx with a notifier: poke it once the caller's COMMIT
		// has succeeded (one coalesced NOTIFY for concurrent appends).
		ac.AfterCommitFunc("notify "+NotifyChannel, s.notifier.Poke)
	} else if ok {
		// In pgdb.WithTx: NOTIFY once, right after the caller's COMMIT.
		ac.AfterCommit("notify "+NotifyChannel, `SELECT pg_notify($1, '')`, NotifyChannel)
	} else {
		// A transaction begun elsewhere has no after-commit hook: NOTIFY
		// inside it (delivered at its commit, but serialised on the flush).
		batch.Queue(`SELECT pg_notify($1, '')`, NotifyChannel)
	}
	br := tx.SendBatch(ctx, batch)
	rows, err := br.Query()
	if err != nil {
		_ = br.Close()
		return nil, s.mapErr(err, id, expected)
	}
	out, err := scanAppended(rows, req)
	if err != nil {
		_ = br.Close()
		return nil, s.mapErr(err, id, expected)
	}
	if err := br.Close(); err != nil {
		return nil, s.mapErr(err, id, expected)
	}
	if len(out) == 0 {
		return nil, &ConflictError{Stream: id, Expected: expected}
	}
	return out, nil
}

// scanAppended reads appendSQL's RETURNING rows (closing rows) into req's
// envelopes in version order; none when the expected version was stale.
func scanAppended(rows pgx.Rows, req appendRequest) ([]Envelope, error) {
	defer rows.Close()
	out := make([]Envelope, 0, len(req.evs))
	for rows.Next() {
		var e Envelope
		var xid string
		if err := rows.Scan(&e.Position, &e.Version, &e.OccurredAt, &xid); err != nil {
			return nil, fmt.Errorf("scan appended event: %w", err)
		}
		fmt.Sscan(xid, &e.TransactionID)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// RETURNING order is not guaranteed; versions are contiguous, so sorting by
	// version lines the rows up with evs.
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i := range out {
		out[i].StreamID, out[i].StreamType, out[i].Type, out[i].Data, out[i].Raw, out[i].Metadata =
			req.id, req.stream.Type, req.types[i], req.evs[i], json.RawMessage(req.datas[i]), req.md
	}
	return out, nil
}

func (s *Store) observed(out []Envelope) {
	if s.observe == nil {
		return
	}
	for _, e := range out {
		s.observe(e.Type)
	}
}

func (s *Store) mapErr(err error, stream string, expected int64) error {
	if pgdb.IsUniqueViolation(err, "events_stream_version") {
		return &ConflictError{Stream: stream, Expected: expected}
	}
	return fmt.Errorf("append to %s: %w", stream, err)
}

const selectColumns = `position, stream_id, stream_type, version, type, data, metadata, occurred_at, transaction_id::text`

// Load returns every event of a stream in version order, and the current version.
func (s *Store) Load(ctx context.Context, q pgdb.Querier, stream events.Stream) ([]Envelope, int64, error) {
	rows, err := q.Query(ctx, `SELECT `+selectColumns+` FROM events WHERE stream_id = $1 ORDER BY version`, stream.String())
	if err != nil {
		return nil, 0, fmt.Errorf("load %s: %w", stream, err)
	}
	out, err := s.scan(rows)
	if err != nil {
		return nil, 0, fmt.Errorf("load %s: %w", stream, err)
	}
	var version int64
	if len(out) > 0 {
		version = out[len(out)-1].Version
	}
	return out, version, nil
}

// Version returns a stream's current version (0 when it has no events).
func (s *Store) Version(ctx context.Context, q pgdb.Querier, stream events.Stream) (int64, error) {
	var v int64
	err := q.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM events WHERE stream_id = $1`, stream.String()).Scan(&v)
	if err != nil {
		return 0, fmt.Errorf("version of %s: %w", stream, err)
	}
	return v, nil
}

// Scan decodes rows selected with Columns into envelopes.
func (s *Store) scan(rows pgx.Rows) ([]Envelope, error) {
	defer rows.Close()
	var out []Envelope
	for rows.Next() {
		var e Envelope
		var raw, md []byte
		var xid string
		if err := rows.Scan(&e.Position, &e.StreamID, &e.StreamType, &e.Version, &e.Type, &raw, &md, &e.OccurredAt, &xid); err != nil {
			return nil, err
		}
		fmt.Sscan(xid, &e.TransactionID)
		e.Raw = raw
		if len(md) > 0 {
			if err := json.Unmarshal(md, &e.Metadata); err != nil {
				return nil, fmt.Errorf("decode metadata at %d: %w", e.Position, err)
			}
		}
		ev, err := s.registry.Decode(e.Type, raw)
		if err != nil {
			return nil, fmt.Errorf("event at position %d: %w", e.Position, err)
		}
		e.Data = ev
		out = append(out, e)
	}
	return out, rows.Err()
}

// Columns is the column list ScanRows expects, for readers such as projections.
const Columns = selectColumns

// ScanRows decodes rows selected with Columns.
func (s *Store) ScanRows(rows pgx.Rows) ([]Envelope, error) { return s.scan(rows) }
