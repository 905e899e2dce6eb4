package eventlog_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/eventlog"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// stored is an event as the database holds it, the reference both formats
// are checked against.
type stored struct {
	Position   int64
	XID        uint64
	StreamID   string
	StreamType string
	Version    int64
	Type       string
	OccurredAt time.Time
	Data       string
	Metadata   string
}

// fill appends 30 streams × 100 events whose names carry what a naive
// encoder gets wrong (quotes, backslashes, control characters, non-ASCII,
// U+2028, HTML) and, every 7th, 3 KB of text, so the Parquet writer crosses
// its batch and arena sizes several times. One stream id is non-ASCII.
func (b bundle) fill(t *testing.T) []stored {
	t.Helper()
	ctx := eventstore.WithMetadata(b.ctx, eventstore.Metadata{Actor: "user:ü\"1", RequestID: "req\\1"})
	for s := range 30 {
		require.NoError(t, pgdb.WithTx(ctx, b.db.Pool, func(tx pgx.Tx) error {
			id := fmt.Sprintf("s%02d", s)
			if s == 7 {
				id = "stréam\"7\u2028"
			}
			evs := make([]events.Event, 100)
			for i := range evs {
				name := fmt.Sprintf("vase %d \"q\" \\ ü 🏺 <b>&</b> \t\n\u2028 \x01", i)
				if i%7 == 0 {
					name += strings.Repeat("long ", 600)
				}
				evs[i] = events.JobQueued{JobID: id, UserID: "u1", Name: name, At: time.Date(2026, 11, 23, 1, 2, 3, 456789000, time.UTC)}
			}
			_, err := b.store.Append(ctx, tx, events.Stream{Type: events.StreamJob, ID: id}, 0, evs...)
			return err
		}))
	}
	rows, err := b.db.Pool.Query(b.ctx, `SELECT position, transaction_id::text, stream_id, stream_type, version, type, occurred_at, data::text, metadata::text
		FROM events ORDER BY events.transaction_id, events.position`)
	require.NoError(t, err)
	var out []stored
	for rows.Next() {
		var s stored
		var xid string
		require.NoError(t, rows.Scan(&s.Position, &xid, &s.StreamID, &s.StreamType, &s.Version, &s.Type, &s.OccurredAt, &s.Data, &s.Metadata))
		s.XID, err = strconv.ParseUint(xid, 10, 64)
		require.NoError(t, err)
		s.OccurredAt = s.OccurredAt.UTC()
		out = append(out, s)
	}
	require.NoError(t, rows.Err())
	require.Len(t, out, 3000)
	return out
}

func TestExportParquetHoldsEveryEventOnceWithItsFields(t *testing.T) {
	t.Parallel()
	b := setup(t)
	want := b.fill(t)
	file, res := b.exportAll(t, eventlog.Parquet, len(want))

	f, err := parquet.OpenFile(bytes.NewReader(file), int64(len(file)))
	require.NoError(t, err)
	require.EqualValues(t, len(want), f.NumRows())
	var cols []string
	for _, c := range f.Schema().Fields() {
		cols = append(cols, c.Name())
	}
	require.Equal(t, []string{"position", "xid", "streamId", "streamType", "version", "type", "occurredAt", "data", "metadata"}, cols,
		"the NDJSON field names, so one query reads either file")
	data, ok := f.Schema().Lookup("data")
	require.True(t, ok)
	require.Equal(t, "JSON", data.Node.Type().LogicalType().String(), "data is typed JSON")

	rd := parquet.NewGenericReader[eventlog.ParquetEvent](bytes.NewReader(file))
	got := make([]eventlog.ParquetEvent, len(want)+1)
	n, err := rd.Read(got)
	require.Equal(t, len(want), n, "read error: %v", err)
	require.NoError(t, rd.Close())
	seen := map[int64]bool{}
	for i, w := range want {
		g := got[i]
		require.False(t, seen[g.Position], "position %d twice", g.Position)
		seen[g.Position] = true
		require.Equal(t, w.Position, g.Position, "row %d: (xid, position) order", i)
		require.Equal(t, w.XID, g.XID)
		require.Equal(t, w.StreamID, g.StreamID)
		require.Equal(t, w.StreamType, g.StreamType)
		require.Equal(t, w.Version, g.Version)
		require.Equal(t, w.Type, g.Type)
		require.True(t, w.OccurredAt.Equal(g.OccurredAt), "occurredAt %s, want %s", g.OccurredAt, w.OccurredAt)
		require.JSONEq(t, w.Data, g.Data)
		require.JSONEq(t, w.Metadata, g.Metadata)
	}
	last := want[len(want)-1]
	require.Equal(t, eventlog.Cursor{XID: last.XID, Position: last.Position}, res.Next)
}

// The hand-built NDJSON line is byte for byte what encoding/json writes for
// the event (the first exporter used it; analysts' parsers rely on it).
func TestExportNDJSONIsWhatEncodingJSONWrites(t *testing.T) {
	t.Parallel()
	b := setup(t)
	want := b.fill(t)
	out, _ := b.exportN(t, eventlog.Options{Format: eventlog.NDJSON}, len(want))
	var buf bytes.Buffer
	_, err := eventlog.Export(b.ctx, b.db.Pool, &buf, eventlog.Options{})
	require.NoError(t, err)
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 1<<20)
	for i := 0; sc.Scan(); i++ {
		w := want[i]
		require.Equal(t, w.Position, out[i].Position)
		var ref bytes.Buffer
		enc := json.NewEncoder(&ref)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(struct {
			Position   int64           `json:"position"`
			XID        string          `json:"xid"`
			StreamID   string          `json:"streamId"`
			StreamType string          `json:"streamType"`
			Version    int64           `json:"version"`
			Type       string          `json:"type"`
			OccurredAt time.Time       `json:"occurredAt"`
			Data       json.RawMessage `json:"data"`
			Metadata   json.RawMessage `json:"metadata"`
		}{w.Position, strconv.FormatUint(w.XID, 10), w.StreamID, w.StreamType, w.Version, w.Type, w.OccurredAt,
			json.RawMessage(w.Data), json.RawMessage(w.Metadata)}))
		require.Equal(t, strings.TrimSuffix(ref.String(), "\n"), sc.Text(), "line %d", i)
	}
	require.NoError(t, sc.Err())
}

// An export with nothing to say (a filter that matches nothing, or a cursor
// at the end) is still a Parquet file a reader opens: zero rows, same schema.
func TestExportParquetOfNothingIsAValidFile(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.queue(t, 0)
	var buf bytes.Buffer
	res, err := eventlog.Export(b.ctx, b.db.Pool, &buf, eventlog.Options{Format: eventlog.Parquet, Types: []string{"no.such.type.v1"}})
	require.NoError(t, err)
	require.Zero(t, res.Events)
	f, err := parquet.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	require.NoError(t, err)
	require.Zero(t, f.NumRows())
	_, ok := f.Schema().Lookup("occurredAt")
	require.True(t, ok)
}
