package httpapi

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/photo3d/photo3d/internal/auth"
	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/job/jobtest"
)

// BenchmarkCreateCatalogConcurrent is a realistic API write end to end:
// POST /api/catalogs through the router, auth, validation, the merchant lock,
// the event append with its inline projection, COMMIT and the projections'
// NOTIFY, and the read-back for the answer; 32 merchants at once, each on
// its own stream, over a pool of 32 connections (the api's is 30). Run with
// fsync on (ops/appendbench.sh does) to see what durable commits cost:
//
//	TEST_DATABASE_URL=… go test -run '^$' -bench CreateCatalogConcurrent -benchtime 3s ./internal/httpapi
func BenchmarkCreateCatalogConcurrent(b *testing.B) {
	env := jobtest.New(b, creationBase)
	// Its own pool rather than dbtest's PoolOf, so that ops/appendbench.sh
	// can build this file into older trees (BASE=…) for before/after.
	cfg := env.DB.Pool.Config()
	cfg.MaxConns = 32
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	svc := catalog.NewService(pool, env.Store, env.Jobs, catalog.SubscriptionPlans{Subscriptions: env.Subs})
	tokens := auth.NewTokens([]byte("creation-test-secret-0123456789abcdef"), creationBase)
	h := NewRouter(Deps{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), DB: pool, Tokens: tokens,
		MaxBodyBytes: 1 << 20, Uploads: env.Uploads, Jobs: env.Jobs, Blobs: env.Blobs, Subscriptions: env.Subs, Catalog: svc})
	const writers = 32
	bearers := make([]string, writers)
	for i := range bearers {
		tok, _, err := tokens.Issue(env.User(b))
		if err != nil {
			b.Fatal(err)
		}
		bearers[i] = "Bearer " + tok
	}
	var next, n atomic.Int64
	b.SetParallelism((writers + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		bearer := bearers[int(next.Add(1)-1)%writers]
		for pb.Next() {
			body := fmt.Sprintf(`{"name": "Catalog %d"}`, n.Add(1))
			req := httptest.NewRequest("POST", "/api/catalogs", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", bearer)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusCreated && rec.Code != http.StatusOK {
				b.Errorf("status %d: %s", rec.Code, rec.Body)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "creates/s")
}
