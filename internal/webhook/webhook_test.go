package webhook_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/dbtest"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/webhook"
)

type bundle struct {
	db  *dbtest.DB
	svc *webhook.Service
	log *slog.Logger
}

func setup(t *testing.T) bundle {
	t.Helper()
	db := dbtest.New(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	rc, err := river.NewClient(riverpgxv5.New(db.Pool), &river.Config{Logger: log})
	require.NoError(t, err)
	store := eventstore.New(events.Domain())
	// The api side allows http and loopback so the in-process receiver can be
	// registered; the worker's guard decides per test.
	return bundle{db: db, svc: webhook.NewService(db.Pool, store, rc, true), log: log}
}

// startWorker runs a River client with the delivery worker on the default
// queue, like cmd/worker; stop it with the returned function (also at cleanup).
func (b bundle) startWorker(t *testing.T, w *webhook.DeliverWorker) (*river.Client[pgx.Tx], func()) {
	t.Helper()
	w.DB = b.db.Pool
	workers := river.NewWorkers()
	river.AddWorker(workers, w)
	rc, err := river.NewClient(riverpgxv5.New(b.db.Pool), &river.Config{Logger: b.log,
		Queues: map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 2}}, Workers: workers,
		FetchCooldown: 20 * time.Millisecond, FetchPollInterval: 50 * time.Millisecond, TestOnly: true})
	require.NoError(t, err)
	require.NoError(t, rc.Start(context.Background()))
	var once sync.Once
	stop := func() {
		once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = rc.Stop(ctx)
		})
	}
	t.Cleanup(stop)
	return rc, stop
}

// receiver is an in-process webhook endpoint that verifies every signature
// and answers with the next scripted status (the last one repeats).
type receiver struct {
	srv    *httptest.Server
	secret string
	mu     sync.Mutex
	codes  []int
	got    []received
}

type received struct {
	event, delivery string
	body            string
	verified        bool
	status          int
}

func newReceiver(t *testing.T, secret string, codes ...int) *receiver {
	r := &receiver{secret: secret, codes: codes}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		ok := webhook.Verify(r.secret, req.Header.Get(webhook.HeaderSignature), body, time.Now(), 5*time.Minute)
		r.mu.Lock()
		code := r.codes[0]
		if len(r.codes) > 1 {
			r.codes = r.codes[1:]
		}
		r.got = append(r.got, received{event: req.Header.Get(webhook.HeaderEvent), delivery: req.Header.Get(webhook.HeaderDelivery),
			body: string(body), verified: ok, status: code})
		r.mu.Unlock()
		w.WriteHeader(code)
		_, _ = w.Write([]byte(strings.Repeat("x", 3000))) // longer than what the log keeps
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) requests() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

func (r *receiver) setCodes(codes ...int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.codes = codes
}

const secret = "whsec_test_0123456789abcdef"

// user makes a verified account (webhooks are refused to unverified ones).
func (b bundle) user(t *testing.T) string {
	t.Helper()
	id := uuid.NewString()
	b.db.VerifiedUser(t, id)
	return id
}

func (b bundle) register(t *testing.T, user, url string) webhook.Created {
	t.Helper()
	c, err := b.svc.Create(context.Background(), user, webhook.Input{URL: url, Events: []string{webhook.EventJobCompleted}, Secret: secret})
	require.NoError(t, err)
	return c
}

// waitDelivery polls the owner's delivery log until the delivery leaves
// "pending" (or the test's patience ends).
func (b bundle) waitDelivery(t *testing.T, user, endpoint, id string) webhook.Delivery {
	t.Helper()
	// A bound on waiting, not a timing assertion. (Retries under River's
	// scheduler interval go straight back to "available"; a delivery that
	// once stayed pending past 30 s here was River's fallback policy taking
	// over from a retry time already past: see TestNextRetryIsNeverInThePast.)
	deadline := time.Now().Add(120 * time.Second)
	for {
		list, err := b.svc.Deliveries(context.Background(), user, endpoint, 100)
		require.NoError(t, err)
		for _, d := range list {
			if d.ID == id && d.State != webhook.StatePending {
				return d
			}
		}
		if !time.Now().Before(deadline) {
			var jobs []string
			rows, err := b.db.Pool.Query(context.Background(), `SELECT state || ' attempt ' || attempt || ' scheduled ' || scheduled_at::text FROM river_job WHERE args->>'delivery_id' = $1 OR args::text LIKE '%' || $1 || '%'`, id)
			if err == nil {
				for rows.Next() {
					var j string
					_ = rows.Scan(&j)
					jobs = append(jobs, j)
				}
				rows.Close()
			}
			t.Fatalf("delivery %s still pending: %+v; its River jobs: %v", id, list, jobs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestSignedDeliveryIsRetriedAfter500sThenDelivered(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rcv := newReceiver(t, secret, 500, 503, 200)
	user := b.user(t)
	ep := b.register(t, user, rcv.srv.URL+"/hooks")
	b.startWorker(t, &webhook.DeliverWorker{Client: webhook.Guard{AllowPrivate: true}.Client(), Base: 20 * time.Millisecond, Window: time.Minute})

	queued, err := b.svc.Test(context.Background(), user, ep.ID)
	require.NoError(t, err)
	require.Equal(t, webhook.StatePending, queued.State)
	d := b.waitDelivery(t, user, ep.ID, queued.ID)

	require.Equal(t, webhook.StateDelivered, d.State)
	require.Equal(t, 3, d.Attempts)
	require.Equal(t, 200, *d.LastStatus)
	require.Empty(t, d.LastError)
	require.Nil(t, d.NextRetryAt)
	got := rcv.requests()
	require.Len(t, got, 3)
	for _, r := range got {
		require.True(t, r.verified, "signature must verify with the endpoint's secret")
		require.Equal(t, webhook.EventTest, r.event)
		require.Equal(t, queued.ID, r.delivery)
		require.Contains(t, r.body, `"type":"webhook.test"`)
	}
	// A wrong secret does not verify: the receiver's check is real.
	require.False(t, webhook.Verify("whsec_other_secret_value", webhook.Sign(secret, time.Now(), []byte(got[0].body)), []byte(got[0].body), time.Now(), time.Minute))
	// Nor does an old signature (replay protection by the signed timestamp).
	require.False(t, webhook.Verify(secret, webhook.Sign(secret, time.Now().Add(-time.Hour), []byte(got[0].body)), []byte(got[0].body), time.Now(), 5*time.Minute))

	// The response body is not stored beyond 1 KB.
	var kept int
	require.NoError(t, b.db.Pool.QueryRow(context.Background(), `SELECT length(last_response) FROM webhook_deliveries WHERE id = $1`, d.ID).Scan(&kept))
	require.Equal(t, 1024, kept)
}

func TestDeliveryGivesUpAfterTheRetryWindow(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rcv := newReceiver(t, secret, 500)
	user := b.user(t)
	ep := b.register(t, user, rcv.srv.URL)
	window := time.Second
	b.startWorker(t, &webhook.DeliverWorker{Client: webhook.Guard{AllowPrivate: true}.Client(), Base: 30 * time.Millisecond, Window: window})

	queued, err := b.svc.Test(context.Background(), user, ep.ID)
	require.NoError(t, err)
	d := b.waitDelivery(t, user, ep.ID, queued.ID)
	require.Equal(t, webhook.StateFailed, d.State)
	require.GreaterOrEqual(t, d.Attempts, 2, "retried before giving up")
	require.Equal(t, 500, *d.LastStatus)
	require.Contains(t, d.LastError, "The endpoint answered 500.")
	require.Contains(t, d.LastError, "Gave up")
	require.Nil(t, d.NextRetryAt)
	require.False(t, d.LastAttemptAt.Before(d.FirstAttemptAt.Add(window)), "retried until the window closed")
	require.Len(t, rcv.requests(), d.Attempts)

	// Stopped for good: no attempt after the give-up.
	time.Sleep(300 * time.Millisecond)
	require.Len(t, rcv.requests(), d.Attempts)
}

// River refuses a retry time before its own clock reading and falls back to
// its default policy (attempt⁴ s: 625 s at the fifth attempt). The last
// retry is placed at the window's end, which can pass between Work recording
// it and River asking; NextRetry must then answer "now", not the past.
func TestNextRetryIsNeverInThePast(t *testing.T) {
	t.Parallel()
	b := setup(t)
	user := b.user(t)
	ep := b.register(t, user, "http://127.0.0.1:9/hooks")
	queued, err := b.svc.Test(context.Background(), user, ep.ID)
	require.NoError(t, err)
	w := &webhook.DeliverWorker{DB: b.db.Pool}
	job := &river.Job[webhook.DeliverArgs]{JobRow: &rivertype.JobRow{Attempt: 5}, Args: webhook.DeliverArgs{DeliveryID: queued.ID}}
	setNext := func(at time.Time) {
		_, err := b.db.Pool.Exec(context.Background(), `UPDATE webhook_deliveries SET next_retry_at = $2 WHERE id = $1`, queued.ID, at)
		require.NoError(t, err)
	}

	future := time.Now().Add(time.Hour).Truncate(time.Microsecond)
	setNext(future)
	require.True(t, w.NextRetry(job).Equal(future), "a future retry time is the one in the delivery log")

	setNext(time.Now().Add(-50 * time.Millisecond))
	before := time.Now()
	got := w.NextRetry(job)
	require.False(t, got.Before(before), "retry time %s lies before the call at %s", got, before)
	require.Less(t, got.Sub(before), 5*time.Second, "a past retry time is due now, not after a backoff")
}

func TestDeliverySurvivesAWorkerRestartAndCompletesOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rcv := newReceiver(t, secret, 500)
	user := b.user(t)
	ep := b.register(t, user, rcv.srv.URL)
	worker := func() *webhook.DeliverWorker {
		return &webhook.DeliverWorker{Client: webhook.Guard{AllowPrivate: true}.Client(), Base: 700 * time.Millisecond, Window: time.Minute}
	}
	_, stopFirst := b.startWorker(t, worker())
	queued, err := b.svc.Test(context.Background(), user, ep.ID)
	require.NoError(t, err)

	// The first attempt fails; stop that worker while the retry is pending.
	require.Eventually(t, func() bool { return len(rcv.requests()) == 1 }, 20*time.Second, 10*time.Millisecond)
	stopFirst()
	list, err := b.svc.Deliveries(context.Background(), user, ep.ID, 10)
	require.NoError(t, err)
	require.Equal(t, webhook.StatePending, list[0].State)
	require.Equal(t, 1, list[0].Attempts)
	require.NotNil(t, list[0].NextRetryAt)

	// A new worker process picks the retry up; the endpoint is healthy again.
	rcv.setCodes(200)
	b.startWorker(t, worker())
	d := b.waitDelivery(t, user, ep.ID, queued.ID)
	require.Equal(t, webhook.StateDelivered, d.State)
	require.Equal(t, 2, d.Attempts)
	time.Sleep(200 * time.Millisecond)
	got := rcv.requests()
	require.Len(t, got, 2)
	require.Equal(t, 200, got[1].status)
	require.Equal(t, got[0].delivery, got[1].delivery, "the same delivery id on the retry")
}

// mapResolver resolves the given names (others fail) without /etc/hosts.
func mapResolver(names map[string]string) webhook.Resolver {
	return func(_ context.Context, host string) ([]netip.Addr, error) {
		if ip, ok := names[host]; ok {
			return []netip.Addr{netip.MustParseAddr(ip)}, nil
		}
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
}

func TestGuardRefusesNonPublicAddressesAfterResolution(t *testing.T) {
	t.Parallel()
	// A live listener on loopback proves the refusal happens before connecting.
	var hits int
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		hits++
		mu.Unlock()
	}))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	g := webhook.Guard{Resolve: mapResolver(map[string]string{
		"hooks.shop.example": "127.0.0.1", "intranet.shop.example": "10.0.0.1",
		"metadata.shop.example": "169.254.169.254", "mapped.shop.example": "::ffff:127.0.0.1",
	})}
	client := g.Client()
	for _, c := range []struct{ url, want string }{
		{"http://127.0.0.1:" + port + "/", "127.0.0.1 is a loopback address"},
		{"http://10.0.0.1/", "10.0.0.1 is a private address"},
		{"http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a link-local address"},
		{"http://hooks.shop.example:" + port + "/", "hooks.shop.example resolves to 127.0.0.1, a loopback address"},
		{"http://intranet.shop.example/", "resolves to 10.0.0.1, a private address"},
		{"http://metadata.shop.example/", "resolves to 169.254.169.254, a link-local address"},
		{"http://mapped.shop.example:" + port + "/", "a loopback address"},
		{"http://[::1]:" + port + "/", "::1 is a loopback address"},
		{"http://[fd00::1]/", "private address"},
		{"http://[fe80::1]/", "link-local address"},
		{"http://100.64.0.1/", "shared (carrier-grade NAT) address"},
		{"http://0.0.0.0:" + port + "/", "unspecified address"},
		{"http://224.0.0.1/", "multicast address"},
	} {
		resp, err := client.Post(c.url, "application/json", strings.NewReader("{}"))
		if resp != nil {
			resp.Body.Close()
		}
		require.ErrorIs(t, err, webhook.ErrForbiddenAddress, c.url)
		require.ErrorContains(t, err, c.want, c.url)
	}
	mu.Lock()
	require.Zero(t, hits, "no request may reach the loopback listener")
	mu.Unlock()

	// Allowed by config (tests, development), the same call goes through.
	resp, err := webhook.Guard{AllowPrivate: true, Resolve: mapResolver(map[string]string{"hooks.shop.example": "127.0.0.1"})}.
		Client().Post("http://hooks.shop.example:"+port+"/", "application/json", strings.NewReader("{}"))
	require.NoError(t, err)
	resp.Body.Close()

	// Redirects are not followed (a public endpoint cannot bounce us inside).
	redir := httptest.NewServer(http.RedirectHandler("http://169.254.169.254/", http.StatusFound))
	defer redir.Close()
	resp, err = webhook.Guard{AllowPrivate: true}.Client().Post(redir.URL, "application/json", strings.NewReader("{}"))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusFound, resp.StatusCode)
}

func TestRefusedAddressShowsInTheDeliveryLog(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rcv := newReceiver(t, secret, 200)
	port := rcv.srv.URL[strings.LastIndex(rcv.srv.URL, ":")+1:]
	user := b.user(t)
	ep := b.register(t, user, "http://hooks.shop.example:"+port+"/in")
	b.startWorker(t, &webhook.DeliverWorker{Client: webhook.Guard{Resolve: mapResolver(map[string]string{"hooks.shop.example": "127.0.0.1"})}.Client(),
		Base: 20 * time.Millisecond, Window: 150 * time.Millisecond})
	queued, err := b.svc.Test(context.Background(), user, ep.ID)
	require.NoError(t, err)
	d := b.waitDelivery(t, user, ep.ID, queued.ID)
	require.Equal(t, webhook.StateFailed, d.State)
	require.Nil(t, d.LastStatus)
	require.Contains(t, d.LastError, "Refused: hooks.shop.example resolves to 127.0.0.1, a loopback address")
	require.Empty(t, rcv.requests())
}

func TestRegistrationIsValidatedAndOwnerScoped(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	rc, err := river.NewClient(riverpgxv5.New(db.Pool), &river.Config{})
	require.NoError(t, err)
	store := eventstore.New(events.Domain())
	svc := webhook.NewService(db.Pool, store, rc, false) // production rules
	ctx := context.Background()
	owner, other := uuid.NewString(), uuid.NewString()
	db.VerifiedUser(t, owner)
	db.VerifiedUser(t, other)
	ok := []string{webhook.EventLeadCaptured}
	for _, c := range []struct {
		in   webhook.Input
		code string
	}{
		{webhook.Input{URL: "http://shop.example/hook", Events: ok}, "invalid_webhook_url"},
		{webhook.Input{URL: "https://user:pw@shop.example/hook", Events: ok}, "invalid_webhook_url"},
		{webhook.Input{URL: "ftp://shop.example/hook", Events: ok}, "invalid_webhook_url"},
		{webhook.Input{URL: "/relative", Events: ok}, "invalid_webhook_url"},
		{webhook.Input{URL: "https://shop.example/" + strings.Repeat("a", 2048), Events: ok}, "invalid_webhook_url"},
		{webhook.Input{URL: "https://127.0.0.1/hook", Events: ok}, "invalid_webhook_url"},
		{webhook.Input{URL: "https://[::1]/hook", Events: ok}, "invalid_webhook_url"},
		{webhook.Input{URL: "https://169.254.169.254/", Events: ok}, "invalid_webhook_url"},
		{webhook.Input{URL: "https://localhost/", Events: ok}, "invalid_webhook_url"},
		{webhook.Input{URL: "https://shop.example/hook"}, "invalid_webhook_events"},
		{webhook.Input{URL: "https://shop.example/hook", Events: []string{"job.completed", "user.deleted"}}, "invalid_webhook_events"},
		{webhook.Input{URL: "https://shop.example/hook", Events: ok, Secret: "short"}, "invalid_webhook_secret"},
		{webhook.Input{URL: "https://shop.example/hook", Events: ok, Secret: "has a space in it 123"}, "invalid_webhook_secret"},
	} {
		_, err := svc.Create(ctx, owner, c.in)
		fe, isFault := fault.As(err)
		require.True(t, isFault, "%+v: %v", c.in, err)
		require.Equal(t, c.code, fe.Code, "%+v", c.in)
	}

	c, err := svc.Create(ctx, owner, webhook.Input{URL: "https://shop.example/hook#frag", Events: []string{"lead.captured", "job.completed", "job.completed"}})
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(c.Secret, "whsec_") && len(c.Secret) > 40, c.Secret)
	require.Equal(t, "https://shop.example/hook", c.URL)
	require.Equal(t, []string{"job.completed", "lead.captured"}, c.Events)

	// The secret and the full URL are never in the event log.
	var logged string
	require.NoError(t, db.Pool.QueryRow(ctx, `SELECT string_agg(data::text, ' ') FROM events WHERE stream_type = 'webhook'`).Scan(&logged))
	require.NotContains(t, logged, c.Secret)
	require.NotContains(t, logged, "/hook")
	require.Contains(t, logged, "shop.example")

	// Another merchant sees nothing and gets 404 on every id route.
	list, err := svc.List(ctx, other)
	require.NoError(t, err)
	require.Empty(t, list)
	_, err = svc.Test(ctx, other, c.ID)
	require.True(t, fault.IsKind(err, fault.NotFound), "%v", err)
	_, err = svc.Deliveries(ctx, other, c.ID, 10)
	require.True(t, fault.IsKind(err, fault.NotFound), "%v", err)
	require.True(t, fault.IsKind(svc.Remove(ctx, other, c.ID), fault.NotFound))
	require.True(t, fault.IsKind(svc.Remove(ctx, owner, "not-a-uuid"), fault.NotFound))
	list, err = svc.List(ctx, owner)
	require.NoError(t, err)
	require.Len(t, list, 1)

	// At most ten endpoints per merchant.
	for range webhook.MaxEndpoints - 1 {
		_, err := svc.Create(ctx, owner, webhook.Input{URL: "https://shop.example/more", Events: ok})
		require.NoError(t, err)
	}
	_, err = svc.Create(ctx, owner, webhook.Input{URL: "https://shop.example/one-too-many", Events: ok})
	require.True(t, fault.IsKind(err, fault.Conflict), "%v", err)

	// Deleting frees a slot and stops the endpoint's routes.
	require.NoError(t, svc.Remove(ctx, owner, c.ID))
	_, err = svc.Deliveries(ctx, owner, c.ID, 10)
	require.True(t, fault.IsKind(err, fault.NotFound))
	_, err = svc.Create(ctx, owner, webhook.Input{URL: "https://shop.example/again", Events: ok})
	require.NoError(t, err)
}

func TestPruneKeepsPendingAndRecentDeliveries(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	user := b.user(t)
	ep := b.register(t, user, "http://shop.example/hook")
	var ids []string
	for range 3 {
		d, err := b.svc.Test(ctx, user, ep.ID)
		require.NoError(t, err)
		ids = append(ids, d.ID)
	}
	now := time.Now()
	_, err := b.db.Pool.Exec(ctx, `UPDATE webhook_deliveries SET state = 'delivered', finished_at = $2 WHERE id = $1`, ids[0], now.Add(-31*24*time.Hour))
	require.NoError(t, err)
	_, err = b.db.Pool.Exec(ctx, `UPDATE webhook_deliveries SET state = 'failed', finished_at = $2 WHERE id = $1`, ids[1], now.Add(-29*24*time.Hour))
	require.NoError(t, err)
	require.NoError(t, (&webhook.PruneWorker{DB: b.db.Pool}).Work(ctx, nil))
	list, err := b.svc.Deliveries(ctx, user, ep.ID, 10)
	require.NoError(t, err)
	var left []string
	for _, d := range list {
		left = append(left, d.ID)
	}
	require.ElementsMatch(t, ids[1:], left, "only the delivery finished over 30 days ago is gone")
}
