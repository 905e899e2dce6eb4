package httpapi

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/job/jobtest"
)

// startModelWorker runs the model queue like cmd/worker does (own queue,
// catalog.ModelWorkers slots) until the test ends. store must run the
// catalogue projection inline, as the worker's does.
func startModelWorker(t testing.TB, env *jobtest.Env, store *eventstore.Store) *river.Client[pgx.Tx] {
	t.Helper()
	workers := river.NewWorkers()
	river.AddWorker(workers, &catalog.PrepareModelWorker{DB: env.DB.Pool, Store: store, Blobs: env.Blobs, Logger: env.Logger})
	rc, err := river.NewClient(riverpgxv5.New(env.DB.Pool), &river.Config{
		Logger: env.Logger, Queues: map[string]river.QueueConfig{catalog.QueueModel: {MaxWorkers: catalog.ModelWorkers}},
		Workers: workers, FetchCooldown: 50 * time.Millisecond, TestOnly: true,
	})
	require.NoError(t, err)
	require.NoError(t, rc.Start(context.Background()))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = rc.StopAndCancel(ctx)
	})
	return rc
}
