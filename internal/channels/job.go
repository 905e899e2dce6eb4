package channels

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/glbvariants"
)

// FilesArgs is the River job that makes one model's channel files for a
// product's variants (Packager.Build), run by the worker
// (publish.ChannelFilesWorker). It is queued in the transaction that
// publishes a product or changes what its live page shows, and, uniquely,
// when a request finds a file missing: requests never build.
type FilesArgs struct {
	OwnerID   string                `json:"ownerId"`
	ProductID string                `json:"productId"`
	ModelKey  string                `json:"modelKey"`
	Variants  []glbvariants.Variant `json:"variants"`
}

// NewFilesArgs returns the job for a product's model and variants, written
// the same way whoever queues it (no empty part maps), so River's unique
// key is one per content.
func NewFilesArgs(ownerID, productID, modelKey string, vs []glbvariants.Variant) FilesArgs {
	out := make([]glbvariants.Variant, len(vs))
	for i, v := range vs {
		out[i] = glbvariants.Variant{ID: v.ID, Material: v.Material}
		if len(v.Parts) > 0 {
			out[i].Parts = maps.Clone(v.Parts)
		}
	}
	return FilesArgs{OwnerID: ownerID, ProductID: productID, ModelKey: modelKey, Variants: out}
}

// Kind implements river.JobArgs; stored in river_job, never change it.
func (FilesArgs) Kind() string { return "channel_files" }

// FilesUniquePeriod is the window in which one content is queued at most
// once, however many requests or events ask for it.
const FilesUniquePeriod = 10 * time.Minute

// FilesAttempts is how many runs a build gets; each continues where the
// previous stopped (files made are kept), and the last one refuses what is
// still missing rather than leaving it pending for ever.
const FilesAttempts = 4

// InsertOpts implements river.JobArgsWithInsertOpts: the model queue (its
// own slots per worker process, shared with own-model preparation, never
// with photos or mail), and one job per content per FilesUniquePeriod, so
// anonymous requests cannot queue builds faster than that.
func (FilesArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: catalog.QueueModel, MaxAttempts: FilesAttempts,
		UniqueOpts: river.UniqueOpts{ByArgs: true, ByPeriod: FilesUniquePeriod}}
}

// Queue asks the worker for channel files on behalf of requests that found
// one missing. River's unique key makes repeated asks one job; the short
// in-process memory spares the database an insert per request meanwhile.
type Queue struct {
	river *river.Client[pgx.Tx]

	mu     sync.Mutex
	recent map[string]time.Time
}

// requestMemo is how long this process remembers having asked.
const requestMemo = time.Minute

// maxRecent bounds that memory.
const maxRecent = 10_000

// NewQueue returns a queue over an (insert-only) River client; a nil client
// asks nothing (files then stay pending).
func NewQueue(rc *river.Client[pgx.Tx]) *Queue {
	return &Queue{river: rc, recent: map[string]time.Time{}}
}

// Request queues args unless this process asked for the same content
// within requestMemo.
func (q *Queue) Request(ctx context.Context, args FilesArgs) error {
	if q == nil || q.river == nil {
		return nil
	}
	key := args.OwnerID + " " + args.ProductID + " " + glbvariants.Hash(args.ModelKey, args.Variants)
	now := time.Now()
	q.mu.Lock()
	if t, ok := q.recent[key]; ok && now.Sub(t) < requestMemo {
		q.mu.Unlock()
		return nil
	}
	if len(q.recent) >= maxRecent {
		clear(q.recent)
	}
	q.recent[key] = now
	q.mu.Unlock()
	if _, err := q.river.Insert(ctx, args, nil); err != nil {
		q.mu.Lock()
		delete(q.recent, key)
		q.mu.Unlock()
		return fmt.Errorf("queue channel files: %w", err)
	}
	return nil
}
