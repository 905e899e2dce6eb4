package eventlog

import (
	"context"
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// row is one event as it arrives from Postgres. Its byte slices point into
// the driver's read buffer and are valid only until the next row: a sink
// copies what it keeps, so the export allocates nothing per event.
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

// exportSQL is one streaming query: one index range scan over
// events_transaction_position and one snapshot for the whole export, rows
// arriving as the driver reads them (memory stays flat). ORDER BY names the
// table's columns: a bare name means an output column first, and when that
// column was transaction_id::text the log came out in text order ("1000"
// before "999"), so a cursor taken mid-way skipped the smaller ids for ever.
// Only transactions below the snapshot's xmin are read: every one of them
// has ended, so no event can later appear before the cursor (see
// internal/projection). It reads analyst_events (migration 0021): the log
// without the user stream's emails and names, which is all the analysts'
// role may read, so an analyst runs the export with their own login and the
// file never carries personal data.
const exportSQL = `
SELECT position, transaction_id, stream_id, stream_type, version, type, occurred_at, data, metadata
FROM analyst_events
WHERE (transaction_id, position) > ($1::text::xid8, $2)
  AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
  AND (cardinality($3::text[]) = 0 OR stream_type = ANY($3))
  AND (cardinality($4::text[]) = 0 OR type = ANY($4))
ORDER BY analyst_events.transaction_id, analyst_events.position
LIMIT $5`

// binaryResults asks for every column in binary form: int8, xid8 and
// timestamptz are 8 big-endian bytes, text is its bytes, jsonb a version
// byte and its text. Nothing has to be parsed.
var binaryResults = pgx.QueryResultFormats{1, 1, 1, 1, 1, 1, 1, 1, 1}

// pgEpochMicros is 2000-01-01 UTC, Postgres's timestamp zero, in Unix µs.
const pgEpochMicros = 946684800 * 1_000_000

// scan streams the selected events to emit, advancing res as it goes.
func scan(ctx context.Context, pool *pgxpool.Pool, o Options, res *Result, emit func(*row) error) error {
	var limit *int64 // NULL: no limit
	if o.Limit > 0 {
		limit = &o.Limit
	}
	rows, err := pool.Query(ctx, exportSQL, binaryResults, strconv.FormatUint(res.Next.XID, 10), res.Next.Position,
		nonNil(o.StreamTypes), nonNil(o.Types), limit)
	if err != nil {
		return fmt.Errorf("read events: %w", err)
	}
	defer rows.Close()
	var r row
	for rows.Next() {
		v := rows.RawValues()
		if len(v) != 9 || len(v[0]) != 8 || len(v[1]) != 8 || len(v[4]) != 8 || len(v[6]) != 8 ||
			len(v[7]) < 1 || v[7][0] != 1 || len(v[8]) < 1 || v[8][0] != 1 {
			return fmt.Errorf("read events: unexpected row encoding at cursor %s", res.Next)
		}
		r.Position = int64(binary.BigEndian.Uint64(v[0]))
		r.XID = binary.BigEndian.Uint64(v[1])
		r.StreamID, r.StreamType = v[2], v[3]
		r.Version = int64(binary.BigEndian.Uint64(v[4]))
		r.Type = v[5]
		r.OccurredAt = int64(binary.BigEndian.Uint64(v[6])) + pgEpochMicros
		r.Data, r.Metadata = v[7][1:], v[8][1:]
		if err := emit(&r); err != nil {
			return fmt.Errorf("write export: %w", err)
		}
		res.Next = Cursor{XID: r.XID, Position: r.Position}
		res.Events++
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read events: %w", err)
	}
	return nil
}
