// Package eventlog hands the event log to analysts: an export that streams
// events as NDJSON in commit-safe order and can resume where it stopped.
//
// Order and completeness follow the rule the async projections use: events
// are read in (transaction id, position) order and only from transactions
// older than every transaction still running (pg_snapshot_xmin), so an event
// whose transaction commits late is never skipped by a resumed export. The
// cursor is therefore the pair "xid:position", printed after every export
// and carried by every line.
package eventlog

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Cursor is a place in the commit-safe order: everything up to and
// including (XID, Position) has been exported.
type Cursor struct {
	XID      uint64
	Position int64
}

// String is the form -after accepts.
func (c Cursor) String() string { return fmt.Sprintf("%d:%d", c.XID, c.Position) }

// ParseCursor reads "xid:position" ("" is the beginning of the log).
func ParseCursor(s string) (Cursor, error) {
	if s == "" {
		return Cursor{}, nil
	}
	x, p, ok := strings.Cut(s, ":")
	xid, err1 := strconv.ParseUint(x, 10, 64)
	pos, err2 := strconv.ParseInt(p, 10, 64)
	if !ok || err1 != nil || err2 != nil || pos < 0 {
		return Cursor{}, fmt.Errorf("cursor %q: want XID:POSITION as printed by the last export", s)
	}
	return Cursor{XID: xid, Position: pos}, nil
}

// Options select what to export.
type Options struct {
	After       Cursor
	StreamTypes []string // empty: all
	Types       []string // event types, e.g. job.completed.v1; empty: all
	Limit       int64    // 0: no limit
}

// Result says how much was written and where to resume.
type Result struct {
	Events int64
	Next   Cursor
}

// ErrBadFilter is returned for filters that cannot match anything sensible.
var ErrBadFilter = errors.New("bad export filter")

// line is one NDJSON record; data and metadata are passed through verbatim.
type line struct {
	Position   int64           `json:"position"`
	XID        string          `json:"xid"`
	StreamID   string          `json:"streamId"`
	StreamType string          `json:"streamType"`
	Version    int64           `json:"version"`
	Type       string          `json:"type"`
	OccurredAt time.Time       `json:"occurredAt"`
	Data       json.RawMessage `json:"data"`
	Metadata   json.RawMessage `json:"metadata"`
}

// Export writes events after o.After as NDJSON to w, one event per line,
// until it reaches the commit-safe horizon (or o.Limit).
func Export(ctx context.Context, pool *pgxpool.Pool, w io.Writer, o Options) (Result, error) {
	for _, f := range append(append([]string{}, o.StreamTypes...), o.Types...) {
		if f == "" || len(f) > 200 {
			return Result{}, fmt.Errorf("%w: %q", ErrBadFilter, f)
		}
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	res := Result{Next: o.After}
	err := exportRows(ctx, pool, enc, &res, o)
	if ferr := bw.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("write export: %w", ferr)
	}
	return res, err
}

// exportRows streams one query: one index descent and one snapshot for the
// whole export, rows arriving as pgx reads them (memory stays flat).
func exportRows(ctx context.Context, pool *pgxpool.Pool, enc *json.Encoder, res *Result, o Options) error {
	var limit *int64 // NULL: no limit
	if o.Limit > 0 {
		limit = &o.Limit
	}
	rows, err := pool.Query(ctx, `
SELECT position, transaction_id::text, stream_id, stream_type, version, type, occurred_at, data::text, metadata::text
FROM events
WHERE (transaction_id, position) > ($1::text::xid8, $2)
  AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
  AND (cardinality($3::text[]) = 0 OR stream_type = ANY($3))
  AND (cardinality($4::text[]) = 0 OR type = ANY($4))
ORDER BY transaction_id, position
LIMIT $5`, strconv.FormatUint(res.Next.XID, 10), res.Next.Position, nonNil(o.StreamTypes), nonNil(o.Types), limit)
	if err != nil {
		return fmt.Errorf("read events: %w", err)
	}
	defer rows.Close()
	var l line
	var data, md string
	for rows.Next() {
		if err := rows.Scan(&l.Position, &l.XID, &l.StreamID, &l.StreamType, &l.Version, &l.Type, &l.OccurredAt, &data, &md); err != nil {
			return fmt.Errorf("read events: %w", err)
		}
		l.Data, l.Metadata = json.RawMessage(data), json.RawMessage(md)
		l.OccurredAt = l.OccurredAt.UTC()
		if err := enc.Encode(&l); err != nil {
			return fmt.Errorf("write export: %w", err)
		}
		xid, err := strconv.ParseUint(l.XID, 10, 64)
		if err != nil {
			return fmt.Errorf("read events: transaction id %q: %w", l.XID, err)
		}
		res.Next = Cursor{XID: xid, Position: l.Position}
		res.Events++
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read events: %w", err)
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
