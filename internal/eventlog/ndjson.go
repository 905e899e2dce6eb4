package eventlog

import (
	"bufio"
	"encoding/json"
	"io"
	"strconv"
	"time"
)

// ndjsonSink writes one JSON object per event:
//
//	{"position":1,"xid":"750","streamId":"job-j1","streamType":"job","version":1,
//	 "type":"job.queued.v1","occurredAt":"2026-…Z","data":{…},"metadata":{…}}
//
// It builds each line by hand into one reused buffer: encoding/json through
// reflection and a string per column made the export CPU-bound. The output
// is what encoding/json would write (xid is a string because it can exceed
// JavaScript's safe integers; data and metadata are the stored JSON,
// compacted).
type ndjsonSink struct {
	w   *bufio.Writer
	buf []byte
}

func newNDJSONSink(w io.Writer) *ndjsonSink {
	return &ndjsonSink{w: bufio.NewWriterSize(w, 1<<20), buf: make([]byte, 0, 4096)}
}

func (s *ndjsonSink) write(r *row) error {
	b := append(s.buf[:0], `{"position":`...)
	b = strconv.AppendInt(b, r.Position, 10)
	b = append(b, `,"xid":"`...)
	b = strconv.AppendUint(b, r.XID, 10)
	b = append(b, `","streamId":`...)
	b = appendJSONString(b, r.StreamID)
	b = append(b, `,"streamType":`...)
	b = appendJSONString(b, r.StreamType)
	b = append(b, `,"version":`...)
	b = strconv.AppendInt(b, r.Version, 10)
	b = append(b, `,"type":`...)
	b = appendJSONString(b, r.Type)
	b = append(b, `,"occurredAt":"`...)
	b = time.UnixMicro(r.OccurredAt).UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","data":`...)
	b = appendCompactJSON(b, r.Data)
	b = append(b, `,"metadata":`...)
	b = appendCompactJSON(b, r.Metadata)
	b = append(b, "}\n"...)
	s.buf = b
	_, err := s.w.Write(b)
	return err
}

func (s *ndjsonSink) close() error { return s.w.Flush() }

// appendJSONString quotes s as encoding/json does (HTML left alone). Ids and
// type names are plain ASCII; anything else takes the library's path.
func appendJSONString(b, s []byte) []byte {
	for _, c := range s {
		if c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			q, _ := json.Marshal(string(s)) // a string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendCompactJSON drops the blanks Postgres prints after ':' and ','
// outside strings. The input is jsonb output, hence valid JSON whose strings
// have every control character escaped.
func appendCompactJSON(b, j []byte) []byte {
	inString, escaped := false, false
	for _, c := range j {
		switch {
		case inString:
			if escaped {
				escaped = false
			} else if c == '\\' {
				escaped = true
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == ' ' || c == '\n' || c == '\t' || c == '\r':
			continue
		}
		b = append(b, c)
	}
	return b
}
