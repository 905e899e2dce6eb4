package analytics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/photo3d/photo3d/internal/periodic"
)

// Row is one stored shopper event (a shopper_events row).
type Row struct {
	At            time.Time
	UserID        string
	PublicationID string
	ProductID     string
	Viewer        string
	Kind          string
	Counted       bool
	Ms            int32
	Hotspot       string
	Variant       string
	Mode          string
	Platform      string
	Device        string
	Source        string
	Region        string
	// Arm is the experiment arm the viewer was assigned to on this page ("":
	// none), decided by the server from the viewer id (Publications.Arm).
	Arm string
}

var rowColumns = []string{"at", "user_id", "publication_id", "product_id", "viewer", "kind", "counted", "ms",
	"hotspot", "variant", "mode", "platform", "device", "source", "region", "arm"}

func (r Row) values() []any {
	return []any{r.At, r.UserID, r.PublicationID, r.ProductID, r.Viewer, r.Kind, r.Counted, r.Ms,
		r.Hotspot, r.Variant, r.Mode, r.Platform, r.Device, r.Source, r.Region, r.Arm}
}

// WriterConfig tunes a Writer; zero values take the defaults.
type WriterConfig struct {
	FlushEvery time.Duration // default 1s: a crash loses at most this much
	MaxBuffer  int           // rows held while the database is unreachable (default 500,000)
}

// ErrBufferFull is returned by Add when the database has been unreachable for
// long enough that the buffer is at its cap: the beacon is answered 503 and
// the browser's batch is lost, rather than the process growing without bound.
var ErrBufferFull = errors.New("shopper event buffer full")

// Writer buffers rows in memory and writes them with COPY.
type Writer struct {
	db  *pgxpool.Pool
	log *slog.Logger
	cfg WriterConfig

	mu   sync.Mutex
	rows []Row

	flushMu sync.Mutex // one COPY at a time
}

// NewWriter builds a writer; Run flushes it periodically and Close at shutdown.
func NewWriter(db *pgxpool.Pool, log *slog.Logger, cfg WriterConfig) *Writer {
	if cfg.FlushEvery <= 0 {
		cfg.FlushEvery = time.Second
	}
	if cfg.MaxBuffer <= 0 {
		cfg.MaxBuffer = 500_000
	}
	if log == nil {
		log = slog.Default()
	}
	return &Writer{db: db, log: log, cfg: cfg}
}

// Add queues rows for the next flush. It only touches memory.
func (w *Writer) Add(rows ...Row) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.rows)+len(rows) > w.cfg.MaxBuffer {
		return ErrBufferFull
	}
	w.rows = append(w.rows, rows...)
	return nil
}

// Room reports whether n more rows fit under the buffer's cap now.
func (w *Writer) Room(n int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.rows)+n <= w.cfg.MaxBuffer
}

// addCounted queues rows that include a counted view even past the cap: the
// view has been taken from the owner's balance, so dropping its row would
// bill a view nobody can see. Collect checks Room first, so the overshoot is
// at most one batch per request in flight.
func (w *Writer) addCounted(rows ...Row) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.rows = append(w.rows, rows...)
}

// Pending is how many rows wait for the next flush.
func (w *Writer) Pending() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.rows)
}

// Flush writes every queued row with one COPY. When the COPY fails because
// a day's partition is missing (a clock jump past the worker's upkeep) the
// partitions are created and the COPY retried once; on any other failure the
// rows go back to the front of the buffer for the next flush.
func (w *Writer) Flush(ctx context.Context) error {
	w.flushMu.Lock()
	defer w.flushMu.Unlock()
	w.mu.Lock()
	rows := w.rows
	w.rows = nil
	w.mu.Unlock()
	if len(rows) == 0 {
		return nil
	}
	err := w.copy(ctx, rows)
	if err != nil {
		if perr := EnsurePartitionsFor(ctx, w.db, rows); perr == nil {
			err = w.copy(ctx, rows)
		}
	}
	if err != nil {
		w.mu.Lock()
		keep := min(len(rows), max(w.cfg.MaxBuffer-len(w.rows), 0))
		w.rows = append(rows[:keep:keep], w.rows...)
		w.mu.Unlock()
		return fmt.Errorf("write %d shopper events: %w", len(rows), err)
	}
	return nil
}

func (w *Writer) copy(ctx context.Context, rows []Row) error {
	_, err := w.db.CopyFrom(ctx, pgx.Identifier{"shopper_events"}, rowColumns,
		pgx.CopyFromSlice(len(rows), func(i int) ([]any, error) { return rows[i].values(), nil }))
	return err
}

// Run flushes every FlushEvery until ctx ends; call Close afterwards.
func (w *Writer) Run(ctx context.Context) {
	periodic.Run(ctx, w.cfg.FlushEvery, w.log, "flush shopper events", w.Flush)
}

// Close writes what is left; call it after the HTTP server has drained.
func (w *Writer) Close(ctx context.Context) error {
	return w.Flush(ctx)
}
