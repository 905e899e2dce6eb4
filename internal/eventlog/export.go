// Package eventlog hands the event log to analysts: an export that streams
// events as NDJSON or Parquet in commit-safe order and can resume where it
// stopped.
//
// Order and completeness follow the rule the async projections use: events
// are read in (transaction id, position) order and only from transactions
// older than every transaction still running (pg_snapshot_xmin), so an event
// whose transaction commits late is never skipped by a resumed export. The
// cursor is therefore the pair "xid:position", printed after every export
// and carried by every line.
package eventlog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

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
	Format      Format   // "" is NDJSON
}

// Format is the export's file format.
type Format string

// The formats Export writes.
const (
	// NDJSON is one JSON object per line, data and metadata verbatim.
	NDJSON Format = "ndjson"
	// Parquet is one row group per 128k events, the same fields as columns;
	// data and metadata are JSON-typed string columns.
	Parquet Format = "parquet"
)

// ParseFormat accepts the -format values.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case NDJSON, Parquet:
		return f, nil
	}
	return "", fmt.Errorf("-format %q: want ndjson or parquet", s)
}

// Result says how much was written and where to resume.
type Result struct {
	Events int64
	Next   Cursor
}

// ErrBadFilter is returned for filters that cannot match anything sensible.
var ErrBadFilter = errors.New("bad export filter")

// Export writes events after o.After to w in o.Format, in (transaction id,
// position) order, until it reaches the commit-safe horizon (or o.Limit).
// On error, Result still says how far the export got.
func Export(ctx context.Context, pool *pgxpool.Pool, w io.Writer, o Options) (Result, error) {
	for _, f := range append(append([]string{}, o.StreamTypes...), o.Types...) {
		if f == "" || len(f) > 200 {
			return Result{}, fmt.Errorf("%w: %q", ErrBadFilter, f)
		}
	}
	var s sink
	switch o.Format {
	case "", NDJSON:
		s = newNDJSONSink(w)
	case Parquet:
		s = newParquetSink(w)
	default:
		return Result{}, fmt.Errorf("%w: format %q", ErrBadFilter, o.Format)
	}
	res := Result{Next: o.After}
	err := scan(ctx, pool, o, &res, s.write)
	if cerr := s.close(); err == nil && cerr != nil {
		err = fmt.Errorf("write export: %w", cerr)
	}
	return res, err
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
