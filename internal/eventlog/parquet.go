package eventlog

import (
	"io"
	"time"
	"unsafe"

	"github.com/parquet-go/parquet-go"
)

// ParquetEvent is one row of a Parquet export: the NDJSON fields as columns,
// named alike so one query works on either file. data and metadata are JSON
// (logical type JSON, compacted), xid an unsigned 64-bit integer, occurredAt
// a UTC timestamp in microseconds (Postgres's precision).
type ParquetEvent struct {
	Position   int64     `parquet:"position,delta"`
	XID        uint64    `parquet:"xid,delta"`
	StreamID   string    `parquet:"streamId"`
	StreamType string    `parquet:"streamType,dict"`
	Version    int64     `parquet:"version"`
	Type       string    `parquet:"type,dict"`
	OccurredAt time.Time `parquet:"occurredAt,timestamp(microsecond)"`
	Data       string    `parquet:"data,json"`
	Metadata   string    `parquet:"metadata,json"`
}

// parquetRowsPerGroup bounds the writer's memory (a row group is buffered
// whole) while keeping groups large enough for column statistics to help.
const parquetRowsPerGroup = 128 * 1024

// parquetSink batches rows and hands them to the writer, which copies the
// values into its column buffers. The batch's strings are views into one
// arena that is reused after every hand-over, so no event costs an
// allocation of its own.
type parquetSink struct {
	w     *parquet.GenericWriter[ParquetEvent]
	batch []ParquetEvent
	arena []byte
}

const (
	parquetBatch = 1024
	arenaSize    = 4 << 20
)

func newParquetSink(w io.Writer) *parquetSink {
	return &parquetSink{
		w: parquet.NewGenericWriter[ParquetEvent](w, parquet.Compression(&parquet.Snappy),
			parquet.MaxRowsPerRowGroup(parquetRowsPerGroup), parquet.CreatedBy("photo3d worker export", "", "")),
		batch: make([]ParquetEvent, 0, parquetBatch),
		arena: make([]byte, 0, arenaSize),
	}
}

func (s *parquetSink) write(r *row) error {
	need := len(r.StreamID) + len(r.StreamType) + len(r.Type) + len(r.Data) + len(r.Metadata)
	if len(s.batch) == parquetBatch || len(s.arena)+need > cap(s.arena) {
		if err := s.flush(); err != nil {
			return err
		}
		if need > cap(s.arena) {
			s.arena = make([]byte, 0, need)
		}
	}
	s.batch = append(s.batch, ParquetEvent{
		Position:   r.Position,
		XID:        r.XID,
		StreamID:   s.str(r.StreamID, false),
		StreamType: s.str(r.StreamType, false),
		Version:    r.Version,
		Type:       s.str(r.Type, false),
		OccurredAt: time.UnixMicro(r.OccurredAt).UTC(),
		Data:       s.str(r.Data, true),
		Metadata:   s.str(r.Metadata, true),
	})
	return nil
}

// str copies b into the arena (compacting JSON) and returns a view of it,
// valid until the next flush. The arena never grows between flushes, so
// earlier views stay put.
func (s *parquetSink) str(b []byte, compact bool) string {
	start := len(s.arena)
	if compact {
		s.arena = appendCompactJSON(s.arena, b)
	} else {
		s.arena = append(s.arena, b...)
	}
	v := s.arena[start:]
	if len(v) == 0 {
		return ""
	}
	return unsafe.String(&v[0], len(v))
}

func (s *parquetSink) flush() error {
	if len(s.batch) > 0 {
		if _, err := s.w.Write(s.batch); err != nil {
			return err
		}
	}
	clear(s.batch) // drop the views before the arena is reused
	s.batch, s.arena = s.batch[:0], s.arena[:0]
	return nil
}

func (s *parquetSink) close() error {
	if err := s.flush(); err != nil {
		return err
	}
	return s.w.Close()
}
