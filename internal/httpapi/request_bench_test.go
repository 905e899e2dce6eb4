package httpapi

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/apikey"
	"github.com/photo3d/photo3d/internal/auth"
	"github.com/photo3d/photo3d/internal/blobstore"
	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/channels"
	"github.com/photo3d/photo3d/internal/config"
	"github.com/photo3d/photo3d/internal/dbtest"
	"github.com/photo3d/photo3d/internal/dispatch"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/glbvariants"
	"github.com/photo3d/photo3d/internal/glbvariants/glbtest"
	"github.com/photo3d/photo3d/internal/job"
	"github.com/photo3d/photo3d/internal/job/jobtest"
	"github.com/photo3d/photo3d/internal/metrics"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/publish"
	"github.com/photo3d/photo3d/internal/subscription"
	"github.com/photo3d/photo3d/internal/team"
	"github.com/photo3d/photo3d/internal/upload"
)

// BenchmarkRequestPaths measures the api's two write requests whose work
// must commit together (events, their read models and a River job in one
// transaction) as a merchant's browser sends them, and Postgres running the
// same SQL without us:
//
//   - create-product: POST /api/products {name, uploadId, generate: true},
//     the add-product wizard's "create and build": product and job events,
//     the products and jobs read models, the credit reservation and the
//     River reconstruct job, then the product read back for the answer;
//   - publish: POST /api/products/{id}/publish of a ready product: the
//     publication's events and read model, its channel_files River job, and
//     the publication read back.
//
// Each runs at 1 and 32 concurrent clients, each client a merchant of its
// own, through the router as cmd/api wires it (auth, middleware, metrics,
// JSON, the services, a pool of 30 connections, the NOTIFY coalescer) but
// in process (no TCP). It reports requests/s and p50/p99 latency.
//
// Then it records, through a pgx tracer, every statement one request of
// the kind sends (in order, pipelined batches kept as pipelines), turns
// them into a pgbench script (request_pgbench_test.go: the captured
// statements with their arguments as literals, the ids a request makes
// fresh computed per transaction) and runs pgbench -M prepared with the
// same number of clients, each a freshly seeded merchant as ours are, on
// the same database, just before and just after our run. It reports
// pgbench's transactions/s (both runs) and p50/p99, and the ratio ours ÷
// the mean of the two; it checks that pgbench's transactions stored what
// the requests store (products, jobs, publications, River jobs).
//
//	TEST_DATABASE_URL=… go test -run '^$' -bench RequestPaths -benchtime 1000x ./internal/httpapi
//
// REQBENCH_SCRIPTS=DIR (relative to the repository root) also writes the
// generated scripts there; ops/requestbench/ holds the ones behind the
// figures in docs/benchmarks.md. Without pgbench on PATH, or for fewer
// than 10 requests per client, only our side is measured.
func BenchmarkRequestPaths(b *testing.B) {
	for _, kind := range []string{"create-product", "publish"} {
		for _, clients := range []int{1, 32} {
			b.Run(fmt.Sprintf("%s/clients=%d", kind, clients), func(b *testing.B) {
				benchRequestPath(b, kind, clients)
			})
		}
	}
}

// reqStack is the api wired as cmd/api wires it, for the routes measured.
type reqStack struct {
	pool    *pgxpool.Pool
	h       http.Handler
	tokens  *auth.Tokens
	store   *eventstore.Store
	uploads *upload.Service
	subs    *subscription.Service
	jobs    *job.Service
	blobs   *blobstore.Store
}

// newReqStack mirrors cmd/api's run(): the same store (every inline
// projection of the api, the channel-files job, a pgdb.Notifier), services
// and router, over a pool of 30 connections (tracer: nil but for capture).
func newReqStack(b *testing.B, dbURL string, cfg *config.Config, blobs *blobstore.Store, tracer *sqlTracer) *reqStack {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pcfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		b.Fatal(err)
	}
	pcfg.MaxConns = 30
	pcfg.MaxConnIdleTime = 5 * time.Minute
	if tracer != nil {
		pcfg.ConnConfig.Tracer = tracer
	}
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	b.Cleanup(cancel) // first: the notifier stops before the pool closes
	log := cfg.Logger(io.Discard)
	ms := metrics.New()
	notifier := pgdb.StartNotifier(ctx, pool, eventstore.NotifyChannel)
	rc, err := river.NewClient(riverpgxv5.New(pool), &river.Config{Logger: log})
	if err != nil {
		b.Fatal(err)
	}
	store := eventstore.New(events.Domain(),
		eventstore.WithInline(upload.Projection{}, job.Projection{}, publish.Projection{}, catalog.Projection{}, apikey.Projection{},
			team.Projection{}, publish.ChannelFilesOnChange{River: rc}),
		eventstore.WithObserver(func(t string) { ms.EventsAppended.WithLabelValues(t).Inc() }),
		eventstore.WithNotifier(notifier))
	uploads := upload.NewService(pool, store, blobs, cfg.PublicBaseURL).WithRiver(rc)
	credits := subscription.NewService(store, subscription.BillingFor(cfg.BillingProvider))
	quota := func(ctx context.Context, userID string) (upload.Quota, error) {
		v, err := credits.Get(ctx, pool, userID)
		if err != nil {
			return upload.Quota{}, err
		}
		return upload.QuotaForPlan(string(v.EffectivePlan)), nil
	}
	uploads.WithQuota(quota)
	// MAX_WAITING_BUILDS=0 ("for load tests"): no worker runs here, so a
	// merchant's builds stay queued; the count that enforces the limit runs
	// all the same.
	jobs := job.NewService(pool, dispatch.New(store, rc), uploads, blobs, credits, job.WithMaxWaitingBuilds(0))
	catalogue := catalog.NewService(pool, store, jobs, catalog.SubscriptionPlans{Subscriptions: credits}).
		WithModels(blobs, cfg.ModelHeightMetres).WithRiver(rc).WithQuota(quota)
	publications := publish.NewService(pool, store, publish.SubscriptionPlans{Subscriptions: credits, DB: pool}, cfg.PublicBaseURL)
	meter := publish.NewMeter(pool, credits, store, log, publish.MeterConfig{})
	b.Cleanup(func() { _ = meter.Close(context.Background()) })
	variants := glbvariants.NewCache(blobs.Bucket)
	channelFiles := channels.NewQueue(rc)
	pages := publish.NewPages(publish.PagesConfig{DB: pool, Store: store, Bucket: blobs.Bucket, Meter: meter,
		BaseURL: cfg.PublicBaseURL, Log: log, Variants: variants, Channels: channelFiles})
	tokens := auth.NewTokens(cfg.JWTSecret, cfg.PublicBaseURL)
	// Accounts check every session as cmd/api does; REQBENCH_TEAMS=0 runs
	// without teams, to measure what they add (issue 51: nothing, the
	// membership is read with the session).
	accounts, err := account.NewService(pool, store, credits, account.Options{PublicBaseURL: cfg.PublicBaseURL, Logger: log})
	if err != nil {
		b.Fatal(err)
	}
	var teams *team.Service
	if os.Getenv("REQBENCH_TEAMS") != "0" {
		teams = team.NewService(pool, store, team.Options{Accounts: accounts, Subscriptions: credits, Publications: publications})
	}
	h := NewRouter(Deps{Logger: log, DB: pool, Metrics: ms, MaxBodyBytes: cfg.MaxBodyBytes, Tokens: tokens,
		Uploads: uploads, Jobs: jobs, Blobs: blobs, Catalog: catalogue, Subscriptions: credits,
		Publications: publications, PublicPages: pages, Variants: variants, ChannelFiles: channelFiles,
		Accounts: accounts, Teams: teams})
	return &reqStack{pool: pool, h: h, tokens: tokens, store: store, uploads: uploads, subs: credits, jobs: jobs, blobs: blobs}
}

// merchant is one seeded account: enterprise plan (no product or credit
// limit, sharing allowed), a completed photo upload, its default catalog
// and a ready blueprint with a real GLB.
type merchant struct {
	user, bearer, upload, catalog, blueprint string
}

// seedMerchants makes n merchants of set name, four at a time; client i
// of a run acts as merchant i of its set (reqbench_merchants, which
// pgbench reads).
func seedMerchants(b *testing.B, s *reqStack, set string, n int) []merchant {
	b.Helper()
	out := make([]merchant, n)
	png, glb := jobtest.PNG(b, 96, 96), glbtest.Model(b)
	errs := make([]error, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			out[i], errs[i] = seedMerchant(context.Background(), s, set, i, png, glb)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			b.Fatalf("seed merchants: %v", err)
		}
	}
	return out
}

func seedMerchant(ctx context.Context, s *reqStack, set string, i int, png, glb []byte) (merchant, error) {
	m := merchant{user: uuid.NewString()}
	for _, q := range []string{ // a verified account (dbtest.DB.VerifiedUser)
		`INSERT INTO users (id, version, created_at) VALUES ($1, 0, now())`,
		`INSERT INTO user_pii (user_id, email, name) VALUES ($1, $1 || '@example.test', 'Bench merchant')`,
		`INSERT INTO account_security (user_id, email_verified_at) VALUES ($1, now())`,
	} {
		if _, err := s.pool.Exec(ctx, q, m.user); err != nil {
			return m, err
		}
	}
	if err := pgdb.WithTx(ctx, s.pool, func(tx pgx.Tx) error { return s.subs.Open(ctx, tx, m.user) }); err != nil {
		return m, err
	}
	if _, err := s.pool.Exec(ctx, `UPDATE subscriptions SET plan = 'enterprise' WHERE user_id = $1`, m.user); err != nil {
		return m, err
	}
	up, err := s.uploads.UploadContent(ctx, m.user, "vase.png", bytes.NewReader(png))
	if err != nil {
		return m, err
	}
	m.upload = up.ID
	j, err := s.jobs.Create(ctx, m.user, s.uploads.PublicURL(up.ID))
	if err != nil {
		return m, err
	}
	m.blueprint = j.ID
	// Completed as the worker completes a build (jobtest.Env.Finish).
	done := events.JobCompleted{JobID: j.ID, AssetID: j.ID, ModelKey: "models/" + j.ID + "/model.glb",
		ThumbnailKey: "models/" + j.ID + "/thumbnail.png", Parts: []events.JobPart{{ID: "p1", Name: "Body"}}, At: time.Now().UTC()}
	if err := pgdb.WithTx(ctx, s.pool, func(tx pgx.Tx) error {
		_, err := s.store.Append(ctx, tx, events.Stream{Type: events.StreamJob, ID: j.ID}, eventstore.AnyVersion, done)
		return err
	}); err != nil {
		return m, err
	}
	if err := s.blobs.Bucket.WriteAll(ctx, "models/"+j.ID+"/model.glb", glb, nil); err != nil {
		return m, err
	}
	tok, _, err := s.tokens.Issue(m.user)
	if err != nil {
		return m, err
	}
	m.bearer = "Bearer " + tok
	// The default catalog comes with a merchant's first product: one draft
	// (no build) made through the api, so measured requests all take the
	// same path.
	if rec := s.do(m.bearer, "POST", "/api/products", `{"name":"First","uploadId":"`+m.upload+`"}`, ""); rec.Code != http.StatusCreated {
		return m, fmt.Errorf("first product: %d %s", rec.Code, rec.Body)
	}
	if err := s.pool.QueryRow(ctx, `SELECT id FROM catalogs WHERE user_id = $1`, m.user).Scan(&m.catalog); err != nil {
		return m, err
	}
	_, err = s.pool.Exec(ctx, `INSERT INTO reqbench_merchants (set_name, client, user_id, upload_id, catalog_id, blueprint_id)
		VALUES ($1, $2, $3, $4, $5, $6)`, set, i, m.user, m.upload, m.catalog, m.blueprint)
	return m, err
}

// seedProducts gives each merchant ms[c] ready, unpublished products made
// from its blueprint, with the events POST /api/products appends for one
// (ids[c][i]); a publish run takes them in order.
func seedProducts(b *testing.B, s *reqStack, ms []merchant, ids [][]string) {
	b.Helper()
	ctx := context.Background()
	at := time.Now().UTC()
	errs := make([]error, len(ms))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for c, m := range ms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			errs[c] = pgdb.WithTx(ctx, s.pool, func(tx pgx.Tx) error {
				for i, id := range ids[c] {
					_, err := s.store.Append(ctx, tx, events.Stream{Type: events.StreamProduct, ID: id}, 0,
						events.ProductCreated{ProductID: id, UserID: m.user, CatalogID: m.catalog, Name: fmt.Sprintf("Chair %d", i),
							Source: events.ProductSourceBlueprint, At: at},
						events.ProductModelAttached{ProductID: id, JobID: m.blueprint, Source: events.ProductSourceBlueprint, At: at})
					if err != nil {
						return err
					}
				}
				return nil
			})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			b.Fatalf("seed products: %v", err)
		}
	}
}

// do serves one request in process; requestID empty lets the api make one.
func (s *reqStack) do(bearer, method, path, body, requestID string) *httptest.ResponseRecorder {
	return s.doCtx(context.Background(), bearer, method, path, body, requestID)
}

func (s *reqStack) doCtx(ctx context.Context, bearer, method, path, body, requestID string) *httptest.ResponseRecorder {
	req := httptest.NewRequestWithContext(ctx, method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", bearer)
	if requestID != "" {
		req.Header.Set("X-Request-Id", requestID)
	}
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	return rec
}

// reqKind is one measured request: its path and body for merchant m
// (product: the seeded product a publish takes).
type reqKind struct {
	method string
	path   func(m merchant, product string) string
	body   func(m merchant) string
}

var reqKinds = map[string]reqKind{
	"create-product": {method: "POST",
		path: func(merchant, string) string { return "/api/products" },
		body: func(m merchant) string {
			return `{"name":"Oak chair","uploadId":"` + m.upload + `","generate":true}`
		}},
	"publish": {method: "POST",
		path: func(_ merchant, product string) string { return "/api/products/" + product + "/publish" },
		body: func(merchant) string { return `{"requireEmail":false,"allowDeepLinks":false}` }},
}

// pgbenchProductID is the id of the n-th product pgbench's client publishes
// in run (the formula of the script's tokSeeded expression).
func pgbenchProductID(run string, client, n int) string {
	sum := md5.Sum([]byte(fmt.Sprintf("%s/pubproduct/%d/%d", run, client, n)))
	h := hex.EncodeToString(sum[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

func benchRequestPath(b *testing.B, kind string, clients int) {
	ctx := context.Background()
	clients = min(clients, b.N)          // the -benchtime Nx probe run with N=1
	per := (b.N + clients - 1) / clients // requests per client
	db := dbtest.New(b)
	dir := b.TempDir()
	cfg, err := config.Load("api", nil, func(k string) string {
		return map[string]string{"DATABASE_URL": db.URL, "DATA_DIR": dir}[k]
	}, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	blobs, err := blobstore.OpenFile(filepath.Join(dir, "blobs"), cfg.PublicBaseURL+"/blobs", []byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = blobs.Close() })
	if _, err := db.Pool.Exec(ctx, `CREATE TABLE reqbench_merchants (set_name text, client int, user_id text, upload_id text,
		catalog_id text, blueprint_id text, PRIMARY KEY (set_name, client))`); err != nil {
		b.Fatal(err)
	}
	rk := reqKinds[kind]
	s := newReqStack(b, db.URL, cfg, blobs, nil)
	newIDs := func(n int) []string {
		ids := make([]string, n)
		for i := range ids {
			ids[i] = uuid.NewString()
		}
		return ids
	}

	// Capture: the statements of one request of the kind (the merchant's
	// second: the first prepares the capture pool's statements).
	cs := newReqStack(b, db.URL, cfg, blobs, &sqlTracer{})
	capM := seedMerchants(b, cs, "capture", 1)
	capProducts := newIDs(2)
	seedProducts(b, cs, capM, [][]string{capProducts})
	var captured *sqlCapture
	var known []token
	for i := range 2 {
		c := &sqlCapture{}
		m := capM[0]
		rec := cs.doCtx(context.WithValue(ctx, captureKey{}, c), m.bearer, rk.method, rk.path(m, capProducts[i]), rk.body(m), uuid.NewString())
		if rec.Code != http.StatusCreated {
			b.Fatalf("capture %s: %d %s", kind, rec.Code, rec.Body)
		}
		var reply struct {
			Data struct {
				Slug string `json:"slug"`
			} `json:"data"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &reply); err != nil {
			b.Fatal(err)
		}
		captured = c
		known = []token{
			{value: m.user, name: "m_user", kind: tokMerchant},
			{value: m.upload, name: "m_upload", kind: tokMerchant},
			{value: m.catalog, name: "m_catalog", kind: tokMerchant},
			{value: m.blueprint, name: "m_blueprint", kind: tokMerchant},
		}
		if kind == "publish" {
			known = append(known, token{value: capProducts[i], name: "pubproduct", kind: tokSeeded},
				token{value: reply.Data.Slug, name: "slug", kind: tokSlug})
		}
	}
	if os.Getenv("REQBENCH_DUMP") != "" {
		for _, st := range captured.stmts {
			fmt.Fprintf(os.Stderr, "-- batch %d\n%s\n   %#v\n", st.batch, st.sql, st.args)
		}
	}

	// pgbench just before and just after our run, each time on merchants of
	// its own (seeded as ours are); our rate is held to the mean of the two,
	// since the neighbours' load drifts.
	var pgRuns []*pgbenchResult
	var runPgbenchOnce func(set string)
	pgbenchBin, lookErr := exec.LookPath("pgbench")
	if b.N >= 10*clients && lookErr == nil {
		script, err := pgbenchScript(ctx, db.Pool, captured.stmts, known)
		if err != nil {
			b.Fatalf("pgbench script of %s: %v", kind, err)
		}
		if d := os.Getenv("REQBENCH_SCRIPTS"); d != "" {
			if !filepath.IsAbs(d) {
				d = filepath.Join("..", "..", d) // go test runs in internal/httpapi
			}
			if err := os.WriteFile(filepath.Join(d, kind+".sql"), []byte(script), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		runPgbenchOnce = func(set string) {
			run := fmt.Sprintf("r%d", time.Now().UnixNano())
			pm := seedMerchants(b, s, set, clients)
			if kind == "publish" {
				ids := make([][]string, clients)
				for c := range ids {
					ids[c] = make([]string, per)
					for n := range ids[c] {
						ids[c][n] = pgbenchProductID(run, c, n+1)
					}
				}
				seedProducts(b, s, pm, ids)
			}
			before := storedCounts(b, db.Pool, pm)
			pgRuns = append(pgRuns, runPgbench(b, pgbenchBin, db.URL, script, run, set, clients, per))
			after := storedCounts(b, db.Pool, pm)
			// What every transaction must have stored, as a request does.
			want := map[string]int{"create-product": 1, "publish": 0}[kind]
			for what, n := range map[string]int{"products": want, "jobs": want, "publications": 1 - want, "river jobs": 1} {
				if got := after[what] - before[what]; got != n*clients*per {
					b.Fatalf("pgbench stored %d %s in %d transactions, want %d: its SQL did not do what the request does",
						got, what, clients*per, n*clients*per)
				}
			}
		}
		runPgbenchOnce("pgbench-before")
	} else if lookErr != nil {
		b.Logf("no pgbench on PATH: only our side is measured")
	}

	// Our run: warm-up merchants first (the pool's connections and their
	// statement caches), then the measured ones.
	const warmPer = 3
	warm := seedMerchants(b, s, "warm", clients)
	ours := seedMerchants(b, s, "ours", clients)
	products := make([][]string, clients)
	warmProducts := make([][]string, clients)
	if kind == "publish" {
		for c := range clients {
			products[c], warmProducts[c] = newIDs(per), newIDs(warmPer)
		}
		seedProducts(b, s, ours, products)
		seedProducts(b, s, warm, warmProducts)
	}
	drive := func(ms []merchant, prods [][]string, n int, lat []time.Duration) {
		var wg sync.WaitGroup
		var next atomic.Int64
		for c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				m := ms[c]
				for i := range n {
					var product string
					if prods[c] != nil {
						product = prods[c][i]
					}
					start := time.Now()
					rec := s.do(m.bearer, rk.method, rk.path(m, product), rk.body(m), "")
					if lat != nil {
						lat[next.Add(1)-1] = time.Since(start)
					}
					if rec.Code != http.StatusCreated {
						b.Errorf("%s: %d %s", kind, rec.Code, rec.Body)
						return
					}
				}
			}()
		}
		wg.Wait()
	}
	drive(warm, warmProducts, warmPer, nil)
	lat := make([]time.Duration, clients*per)
	b.ResetTimer()
	start := time.Now()
	drive(ours, products, per, lat)
	elapsed := time.Since(start)
	b.StopTimer()
	slices.Sort(lat)
	rps := float64(len(lat)) / elapsed.Seconds()
	b.ReportMetric(rps, "req/s")
	b.ReportMetric(millis(lat[len(lat)/2]), "p50-ms")
	b.ReportMetric(millis(lat[len(lat)*99/100]), "p99-ms")
	stmts := 0
	for _, st := range captured.stmts {
		if !strings.Contains(st.sql, "topic_to_notify") { // River's throttled NOTIFY
			stmts++
		}
	}
	b.ReportMetric(float64(stmts), "stmts/req")
	if runPgbenchOnce == nil {
		return
	}
	runPgbenchOnce("pgbench-after")
	var pgLat []float64
	for _, r := range pgRuns {
		pgLat = append(pgLat, r.lat...)
	}
	slices.Sort(pgLat)
	tps := (pgRuns[0].tps + pgRuns[1].tps) / 2
	b.ReportMetric(pgRuns[0].tps, "pgbench-before-tps")
	b.ReportMetric(pgRuns[1].tps, "pgbench-after-tps")
	b.ReportMetric(pgLat[len(pgLat)/2], "pgbench-p50-ms")
	b.ReportMetric(pgLat[len(pgLat)*99/100], "pgbench-p99-ms")
	b.ReportMetric(rps/tps, "ratio")
}

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// storedCounts counts what the merchants' requests stored.
func storedCounts(b *testing.B, pool *pgxpool.Pool, ms []merchant) map[string]int {
	b.Helper()
	users := make([]string, len(ms))
	for i, m := range ms {
		users[i] = m.user
	}
	out := map[string]int{}
	for what, q := range map[string]string{
		"products":     `SELECT count(*) FROM products WHERE user_id = ANY($1)`,
		"jobs":         `SELECT count(*) FROM jobs WHERE user_id = ANY($1)`,
		"publications": `SELECT count(*) FROM publications WHERE user_id = ANY($1)`,
		"river jobs":   `SELECT count(*) FROM river_job WHERE cardinality($1::text[]) > 0`,
	} {
		var n int
		if err := pool.QueryRow(context.Background(), q, users).Scan(&n); err != nil {
			b.Fatal(err)
		}
		out[what] = n
	}
	return out
}
