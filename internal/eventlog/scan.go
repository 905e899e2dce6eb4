package eventlog

import (
	"context"
	"encoding/binary"
	"fmt"
	"sort"
	"strconv"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// row is one event as read from Postgres. Its byte slices point into its
// slice's arenas and are valid only until the sink returns: a sink copies
// what it keeps.
type row struct {
	Position   int64
	XID        uint64
	StreamID   []byte
	StreamType []byte
	Version    int64
	Type       []byte
	OccurredAt int64  // microseconds since the Unix epoch
	Data       []byte // JSON as Postgres prints jsonb (with spaces)
	Metadata   []byte
}

// sink turns rows into one file format.
type sink interface {
	write(r *row) error
	close() error // flushes; a Parquet file is unreadable without it
}

// sliceSQL reads one slice of the export: the events in (lo, hi] in
// (transaction id, position) order; the last slice's hi is (horizon, 0). Both
// bounds are row comparisons so both are index conditions (an "IS NULL OR"
// bound became a filter, and every slice scanned on to the end of the log). ORDER BY
// names the table's columns: a bare name means an output column first, and
// when that column was transaction_id::text the log came out in text order
// ("1000" before "999"), so a cursor taken mid-way skipped the smaller ids for
// ever. Only transactions below the export's horizon (the snapshot xmin taken
// once when it starts) are read: every one of them has ended, so no event can
// later appear before the cursor (see internal/projection), and every slice,
// whatever its own snapshot, sees the same events there (the log is append
// only).
const sliceSQL = `
SELECT position, transaction_id, stream_id, stream_type, version, type, occurred_at, data, metadata
FROM events
WHERE (transaction_id, position) > ($1::text::xid8, $2)
  AND (transaction_id, position) <= ($3::text::xid8, $4)
  AND transaction_id < $5::text::xid8
  AND (cardinality($6::text[]) = 0 OR stream_type = ANY($6))
  AND (cardinality($7::text[]) = 0 OR type = ANY($7))
ORDER BY events.transaction_id, events.position
LIMIT $8`

// boundarySQL picks slice boundaries: the event at or after each of the
// given positions. Any keys cut the (transaction id, position) order into
// contiguous slices; taking them at even position steps keeps the slices
// about even, since transaction ids grow with positions.
const boundarySQL = `
SELECT b.transaction_id::text, b.position
FROM unnest($1::bigint[]) AS q(p),
LATERAL (SELECT transaction_id, position FROM events WHERE position >= q.p ORDER BY position LIMIT 1) b`

// binaryResults asks for every column in binary form: int8, xid8 and
// timestamptz are 8 big-endian bytes, text is its bytes, jsonb a version
// byte and its text. Nothing has to be parsed.
var binaryResults = pgx.QueryResultFormats{1, 1, 1, 1, 1, 1, 1, 1, 1}

// pgEpochMicros is 2000-01-01 UTC, Postgres's timestamp zero, in Unix µs.
const pgEpochMicros = 946684800 * 1_000_000

// Why slices. One ordered index scan is single-threaded work in Postgres
// (reading 1M index entries and heap rows, printing jsonb), and it was most
// of the export's time: the client waited for it ~90% of the time. The
// export therefore reads consecutive slices of the order on exportReaders
// connections at once, each slice buffered whole, and writes them strictly
// in order, so the output and the cursor are exactly those of one scan.
// At most exportReaders+1 slices are in memory (a few MB each).
const (
	exportReaders        = 2
	defaultSliceEvents   = 32 * 1024
	maxExportSlices      = 4096
	sliceArenaBytes      = 1 << 20
	sliceRowsPreallocate = 1024
)

// slice is one range of the order, read whole before it is written.
type slice struct {
	lo, hi Cursor // (lo, hi]; hi is ignored when last
	last   bool
	rows   []row // byte slices point into arenas
	arenas [][]byte
	err    error
	done   chan struct{}
}

// scan streams the selected events to emit, advancing res as it goes.
func scan(ctx context.Context, pool *pgxpool.Pool, o Options, res *Result, emit func(*row) error) error {
	var horizon string
	if err := pool.QueryRow(ctx, `SELECT pg_snapshot_xmin(pg_current_snapshot())::text`).Scan(&horizon); err != nil {
		return fmt.Errorf("read events: %w", err)
	}
	slices, err := planSlices(ctx, pool, o, res.Next, horizon)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	tokens := make(chan struct{}, exportReaders+1) // slices read ahead of the writer
	next := make(chan *slice)
	var wg sync.WaitGroup
	for range exportReaders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for sl := range next {
				sl.err = readSlice(ctx, pool, o, horizon, sl)
				close(sl.done)
			}
		}()
	}
	go func() {
		defer close(next)
		for _, sl := range slices {
			select {
			case tokens <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case next <- sl:
			case <-ctx.Done():
				return
			}
		}
	}()
	defer func() { cancel(); wg.Wait() }() // readers stop at their next row
	for _, sl := range slices {
		select {
		case <-sl.done:
		case <-ctx.Done():
			return fmt.Errorf("read events: %w", ctx.Err())
		}
		if sl.err != nil {
			return sl.err
		}
		for i := range sl.rows {
			if o.Limit > 0 && res.Events >= o.Limit {
				return nil
			}
			r := &sl.rows[i]
			if err := emit(r); err != nil {
				return fmt.Errorf("write export: %w", err)
			}
			res.Next = Cursor{XID: r.XID, Position: r.Position}
			res.Events++
		}
		sl.rows = nil
		<-tokens
	}
	return nil
}

// planSlices cuts the order after the cursor into slices of about
// o.SliceEvents events (by position), in order.
func planSlices(ctx context.Context, pool *pgxpool.Pool, o Options, after Cursor, horizon string) ([]*slice, error) {
	per := o.SliceEvents
	if per <= 0 {
		per = defaultSliceEvents
	}
	var lo, hi int64
	if err := pool.QueryRow(ctx, `SELECT coalesce(min(position), 0), coalesce(max(position), 0) FROM events`).Scan(&lo, &hi); err != nil {
		return nil, fmt.Errorf("read events: %w", err)
	}
	var at []int64
	if n := (hi - lo) / per; n > 0 {
		step := max(per, (hi-lo)/maxExportSlices)
		for p := lo + step; p <= hi; p += step {
			at = append(at, p)
		}
	}
	var bounds []Cursor
	if len(at) > 0 {
		rows, err := pool.Query(ctx, boundarySQL, at)
		if err != nil {
			return nil, fmt.Errorf("plan export: %w", err)
		}
		for rows.Next() {
			var xid string
			var pos int64
			if err := rows.Scan(&xid, &pos); err != nil {
				rows.Close()
				return nil, fmt.Errorf("plan export: %w", err)
			}
			c, err := ParseCursor(xid + ":" + strconv.FormatInt(pos, 10))
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("plan export: %w", err)
			}
			bounds = append(bounds, c)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("plan export: %w", err)
		}
	}
	h, err := strconv.ParseUint(horizon, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("plan export: horizon %q: %w", horizon, err)
	}
	sort.Slice(bounds, func(i, j int) bool { return bounds[i].less(bounds[j]) })
	out := []*slice{}
	prev := after
	for _, b := range bounds {
		if !prev.less(b) || b.XID >= h {
			continue // behind the cursor, a repeat, or beyond the horizon
		}
		out = append(out, &slice{lo: prev, hi: b, done: make(chan struct{})})
		prev = b
	}
	return append(out, &slice{lo: prev, last: true, done: make(chan struct{})}), nil
}

func (c Cursor) less(d Cursor) bool {
	return c.XID < d.XID || (c.XID == d.XID && c.Position < d.Position)
}

// readSlice reads one slice whole, copying each row's bytes out of the
// driver's buffer into arenas that never move once written.
func readSlice(ctx context.Context, pool *pgxpool.Pool, o Options, horizon string, sl *slice) error {
	var limit *int64 // NULL: no limit
	if o.Limit > 0 {
		limit = &o.Limit
	}
	hiXID, hiPos := horizon, int64(0)
	if !sl.last {
		hiXID, hiPos = strconv.FormatUint(sl.hi.XID, 10), sl.hi.Position
	}
	rows, err := pool.Query(ctx, sliceSQL, binaryResults, strconv.FormatUint(sl.lo.XID, 10), sl.lo.Position,
		hiXID, hiPos, horizon, nonNil(o.StreamTypes), nonNil(o.Types), limit)
	if err != nil {
		return fmt.Errorf("read events: %w", err)
	}
	defer rows.Close()
	sl.rows = make([]row, 0, sliceRowsPreallocate)
	arena := make([]byte, 0, sliceArenaBytes)
	keep := func(b []byte) []byte {
		if len(arena)+len(b) > cap(arena) {
			arena = make([]byte, 0, max(sliceArenaBytes, len(b)))
		}
		start := len(arena)
		arena = append(arena, b...)
		return arena[start:len(arena):len(arena)]
	}
	for rows.Next() {
		v := rows.RawValues()
		if len(v) != 9 || len(v[0]) != 8 || len(v[1]) != 8 || len(v[4]) != 8 || len(v[6]) != 8 ||
			len(v[7]) < 1 || v[7][0] != 1 || len(v[8]) < 1 || v[8][0] != 1 {
			return fmt.Errorf("read events: unexpected row encoding after cursor %s", sl.lo)
		}
		sl.rows = append(sl.rows, row{
			Position:   int64(binary.BigEndian.Uint64(v[0])),
			XID:        binary.BigEndian.Uint64(v[1]),
			StreamID:   keep(v[2]),
			StreamType: keep(v[3]),
			Version:    int64(binary.BigEndian.Uint64(v[4])),
			Type:       keep(v[5]),
			OccurredAt: int64(binary.BigEndian.Uint64(v[6])) + pgEpochMicros,
			Data:       keep(v[7][1:]),
			Metadata:   keep(v[8][1:]),
		})
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read events: %w", err)
	}
	return nil
}
