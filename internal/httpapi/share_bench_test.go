package httpapi_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/photo3d/photo3d/internal/httpapi"
	"github.com/photo3d/photo3d/internal/publish/publishtest"
)

// BenchmarkSharePage serves GET /v/{slug} through the whole router (request
// id, metrics, security headers, compression, the per-IP limiter, the page
// cache and the meter), every request a new viewer the meter counts. Profile
// it with -cpuprofile to see where a share page view's time goes.
func BenchmarkSharePage(b *testing.B) {
	env := publishtest.New(b)
	h := httpapi.NewRouter(httpapi.Deps{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), DB: env.DB.Pool,
		Publications: env.Service, PublicPages: env.Pages, PublicRateLimit: 1 << 30})
	owner := env.Merchant(b)
	// The page GET only checks the balance (the view beacon takes the view),
	// so any positive balance serves every request; 1,000,000 is one purchase's cap.
	env.SetViewBalance(b, owner, 1_000_000)
	p := env.Publish(b, owner, env.Blueprint(b, owner, "Chair"))
	var n atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest("GET", "/v/"+p.Slug, nil)
			req.RemoteAddr = "198.51.100.1:40000"
			req.Header.Set("User-Agent", fmt.Sprintf("Mozilla/5.0 bench-viewer-%d", n.Add(1)))
			req.Header.Set("Accept-Encoding", "gzip, br")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != 200 {
				b.Fatalf("status %d", rec.Code)
			}
		}
	})
}
