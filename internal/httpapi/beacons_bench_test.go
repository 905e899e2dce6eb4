package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/photo3d/photo3d/internal/analytics"
	"github.com/photo3d/photo3d/internal/auth"
	"github.com/photo3d/photo3d/internal/httpapi"
	"github.com/photo3d/photo3d/internal/publish/publishtest"
)

// BenchmarkBeaconIngestion posts beacon batches (a view or heartbeat plus
// interactions, 10 events each, as a page sends them) to POST /t through the
// real router, with the writer COPYing to Postgres every second in the
// background. It reports events/s and the endpoint's p99 latency.
//
//	go test -run '^$' -bench BeaconIngestion -benchtime 20000x ./internal/httpapi
func BenchmarkBeaconIngestion(b *testing.B) {
	env := publishtest.New(b)
	owner := env.Owner(b, "pro")
	p := env.Publish(b, owner, env.Blueprint(b, owner, "Bench chair"))
	w := analytics.NewWriter(env.DB.Pool, nil, analytics.WriterConfig{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	h := httpapi.NewRouter(httpapi.Deps{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), DB: env.DB.Pool,
		Tokens: auth.NewTokens([]byte("0123456789abcdef0123456789abcdef"), publishtest.BaseURL), PublicPages: env.Pages,
		Shoppers: &analytics.Collector{Writer: w, Pubs: httpapi.PublicationsOf(env.Pages)}, BeaconRateLimit: 1 << 30})
	token := pubBundle{Env: env, h: h}.pageToken(p.Slug) // the page's view token, as the viewer script sends it
	if token == "" {
		b.Fatal("the share page carries no view token")
	}
	const perBatch = 10
	var seq atomic.Int64
	var mu sync.Mutex
	var lat []time.Duration
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		var mine []time.Duration
		for pb.Next() {
			n := seq.Add(1)
			now := time.Now().UnixMilli()
			evs := []string{fmt.Sprintf(`{"t":"visible","at":%d,"ms":15000}`, now)}
			if n%5 == 0 {
				evs[0] = fmt.Sprintf(`{"t":"view","at":%d}`, now)
			}
			for i := 1; i < perBatch; i++ {
				evs = append(evs, fmt.Sprintf(`{"t":"hotspot","at":%d,"hotspot":"h%d"}`, now, i))
			}
			body := fmt.Sprintf(`{"v":1,"slug":%q,"viewer":"bench-viewer-%08d","token":%q,"tz":"Asia/Kolkata","events":[%s]}`,
				p.Slug, n%50_000, token, strings.Join(evs, ","))
			req := httptest.NewRequest("POST", "/t", strings.NewReader(body))
			req.RemoteAddr = fmt.Sprintf("10.%d.%d.%d:1", n/65536%256, n/256%256, n%256)
			req.Header.Set("Content-Type", "text/plain")
			req.Header.Set("Origin", "http://example.com")
			req.Header.Set("User-Agent", browserUA)
			rec := httptest.NewRecorder()
			t0 := time.Now()
			h.ServeHTTP(rec, req)
			mine = append(mine, time.Since(t0))
			if rec.Code != 204 {
				b.Errorf("status %d", rec.Code)
			}
		}
		mu.Lock()
		lat = append(lat, mine...)
		mu.Unlock()
	})
	elapsed := time.Since(start)
	b.StopTimer()
	cancel()
	<-done
	if err := w.Close(context.Background()); err != nil {
		b.Fatal(err)
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(b.N*perBatch)/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
}
