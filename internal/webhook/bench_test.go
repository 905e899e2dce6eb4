package webhook_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/dbtest"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/webhook"
)

// BenchmarkDeliveryThroughput measures signed deliveries per second, queuing
// included: b.N deliveries are queued (one transaction each, as the test
// button does), then River with the default queue's 10 workers, as cmd/worker
// runs them, posts them to an in-process receiver answering 204:
//
//	go test -run '^$' -bench DeliveryThroughput -benchtime 500x ./internal/webhook
func BenchmarkDeliveryThroughput(b *testing.B) {
	db := dbtest.New(b)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	insert, err := river.NewClient(riverpgxv5.New(db.Pool), &river.Config{Logger: log})
	require.NoError(b, err)
	svc := webhook.NewService(db.Pool, eventstore.New(events.Domain()), insert, true)
	var got atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		got.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	ctx := context.Background()
	user := uuid.NewString()
	db.VerifiedUser(b, user)
	ep, err := svc.Create(ctx, user, webhook.Input{URL: srv.URL, Events: []string{webhook.EventJobCompleted}})
	require.NoError(b, err)

	workers := river.NewWorkers()
	river.AddWorker(workers, &webhook.DeliverWorker{DB: db.Pool, Client: webhook.Guard{AllowPrivate: true}.Client()})
	rc, err := river.NewClient(riverpgxv5.New(db.Pool), &river.Config{Logger: log, Workers: workers,
		Queues: map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 10}}, FetchCooldown: 50 * time.Millisecond})
	require.NoError(b, err)
	b.ResetTimer()
	for range b.N {
		_, err := svc.Test(ctx, user, ep.ID)
		require.NoError(b, err)
	}
	require.NoError(b, rc.Start(ctx))
	defer func() { _ = rc.Stop(ctx) }()
	for got.Load() < int64(b.N) {
		time.Sleep(5 * time.Millisecond)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "deliveries/s")
}
