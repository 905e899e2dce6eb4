package privacy

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"
	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/dbtest"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/mail"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/subscription"
	"github.com/photo3d/photo3d/internal/subscription/stripebilling"
)

type bundle struct {
	ctx      context.Context
	db       *dbtest.DB
	store    *eventstore.Store
	accounts *account.Service
	outbox   *mail.Outbox
	bucket   *blob.Bucket
	worker   *EraseWorker
}

func setup(t *testing.T) *bundle {
	t.Helper()
	ctx := context.Background()
	db := dbtest.New(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	store := eventstore.New(events.Domain())
	rc, err := river.NewClient(riverpgxv5.New(db.Pool), &river.Config{Logger: log})
	require.NoError(t, err)
	outbox := mail.NewOutbox(20)
	bucket, err := fileblob.OpenBucket(t.TempDir(), &fileblob.Options{CreateDir: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = bucket.Close() })
	accounts, err := account.NewService(db.Pool, store, subscription.NewService(store, subscription.TestMode{}), account.Options{
		PublicBaseURL: "http://photo3d.test", Mailer: mail.Immediate{Sender: mail.Log{Logger: log, Outbox: outbox}}, Bucket: bucket, Logger: log,
		HashParams: account.HashParams{MemoryKiB: 1024, Time: 1, Threads: 1, KeyLen: 32, SaltLen: 16},
		Erasure:    Scheduler(rc),
	})
	require.NoError(t, err)
	return &bundle{ctx: ctx, db: db, store: store, accounts: accounts, outbox: outbox, bucket: bucket,
		worker: &EraseWorker{DB: db.Pool, Store: store, Bucket: bucket, Mailer: mail.Log{Logger: log, Outbox: outbox},
			Logger: log, BaseURL: "http://photo3d.test"}}
}

// signUp makes a password account and returns its id.
func (b *bundle) signUp(t *testing.T, email string) string {
	t.Helper()
	u, err := b.accounts.Signup(b.ctx, account.SignupInput{Email: email, Password: "erase-me-please", Name: "Erin"})
	require.NoError(t, err)
	return u.ID
}

func (b *bundle) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, b.db.Pool.QueryRow(b.ctx, sql, args...).Scan(&n), sql)
	return n
}

func (b *bundle) exists(t *testing.T, key string) bool {
	t.Helper()
	ok, err := b.bucket.Exists(b.ctx, key)
	require.NoError(t, err)
	return ok
}

func (b *bundle) goodbyes(email string) int {
	n := 0
	for _, m := range b.outbox.List() {
		if m.To == email && m.Subject == "Your Photo3D account has been deleted" {
			n++
		}
	}
	return n
}

// An erasure cut off half-way (the worker killed, its job context
// cancelled after the files were deleted) leaves the job to River, and the
// next attempt finishes it; a further attempt changes nothing. The goodbye
// mail goes once, user.erased.v1 is recorded once.
func TestEraseFinishesOnRetryAfterBeingCutOffMidway(t *testing.T) {
	t.Parallel()
	b := setup(t)
	user := b.signUp(t, "cut.off@shop.example")
	require.NoError(t, b.bucket.WriteAll(b.ctx, "uploads/"+user+"/a.png", []byte("photo"), nil))
	require.NoError(t, b.bucket.WriteAll(b.ctx, "avatars/"+user+"/me.png", []byte("face"), nil))
	_, err := b.db.Pool.Exec(b.ctx, `INSERT INTO product_leads (id, user_id, product_id, publication_id, email, consent, created_at)
		VALUES ('lead-1', $1, 'p1', 'pub1', 'shopper@buyer.example', 'ok', now())`, user)
	require.NoError(t, err)

	// The job refuses an account that did not ask.
	require.NoError(t, b.worker.Erase(b.ctx, user))
	require.True(t, b.exists(t, "uploads/"+user+"/a.png"), "no request, nothing erased")

	require.NoError(t, b.accounts.RequestErasure(b.ctx, user, account.ErasureConfirmation{Password: "erase-me-please"}))
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM river_job WHERE kind = 'account_erase' AND args->>'userId' = $1`, user))
	_, err = b.accounts.Login(b.ctx, "cut.off@shop.example", "erase-me-please")
	require.Error(t, err, "no sign-in from the request on")

	ctx, cancel := context.WithCancel(b.ctx)
	cut := *b.worker
	cut.afterStep = func(ctx context.Context, step string) error {
		if step == StepFiles {
			cancel() // the process dies here
		}
		return ctx.Err()
	}
	err = cut.Erase(ctx, user)
	require.ErrorIs(t, err, context.Canceled)
	require.False(t, b.exists(t, "uploads/"+user+"/a.png"), "the files step ran")
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM user_pii WHERE user_id = $1`, user), "the run stopped before the personal data")
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM product_leads WHERE user_id = $1`, user))

	// River runs the job again (a real client working the queued job).
	workers := river.NewWorkers()
	river.AddWorker(workers, b.worker)
	rc, err := river.NewClient(riverpgxv5.New(b.db.Pool), &river.Config{Workers: workers, TestOnly: true,
		Queues: map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 1}}, FetchCooldown: 50 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	done, stop := rc.Subscribe(river.EventKindJobCompleted)
	defer stop()
	require.NoError(t, rc.Start(b.ctx))
	defer func() { _ = rc.StopAndCancel(context.Background()) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the erasure job did not complete")
	}

	require.Zero(t, b.count(t, `SELECT count(*) FROM user_pii WHERE user_id = $1`, user))
	require.Zero(t, b.count(t, `SELECT count(*) FROM product_leads WHERE user_id = $1`, user))
	require.False(t, b.exists(t, "avatars/"+user+"/me.png"))
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM users WHERE id = $1 AND erased_at IS NOT NULL`, user))
	require.NoError(t, b.worker.Erase(b.ctx, user), "a third run is a no-op")
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM events WHERE stream_id = $1 AND type = 'user.erased.v1'`, "user-"+user))
	require.Equal(t, 1, b.goodbyes("cut.off@shop.example"))
	// `worker replay accounts` after an erasure rebuilds the same rows.
	dump := func() string {
		rows, err := b.db.Pool.Query(b.ctx, `SELECT u::text FROM users u ORDER BY id`)
		require.NoError(t, err)
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		require.NoError(t, err)
		return strings.Join(lines, "\n")
	}
	before := dump()
	require.NoError(t, pgdb.WithTx(b.ctx, b.db.Pool, func(tx pgx.Tx) error { return account.Rebuild(b.ctx, tx, b.store) }))
	require.Equal(t, before, dump())
	// The address is free again.
	require.NotEqual(t, user, b.signUp(t, "cut.off@shop.example"))
}

// recorder keeps the method and path of every request to the provider.
type recorder struct {
	mu   sync.Mutex
	seen []string
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.seen = append(r.seen, req.Method+" "+req.URL.Path)
	r.mu.Unlock()
	return http.DefaultTransport.RoundTrip(req)
}

// The account's Stripe subscription is cancelled now and its customer
// (address, cards) deleted, through the billing port against stripe-mock;
// a repeated run (after a crash) calls again without failing.
func TestEraseCancelsTheSubscriptionWithTheProvider(t *testing.T) {
	t.Parallel()
	base := os.Getenv("STRIPE_API_BASE")
	if base == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("STRIPE_API_BASE is not set: ops/test.sh starts stripe-mock and sets it")
		}
		t.Skip("STRIPE_API_BASE is not set: run through `make test` (ops/test.sh starts stripe-mock)")
	}
	b := setup(t)
	rec := &recorder{}
	p, err := stripebilling.New(stripebilling.Config{SecretKey: "sk_test_0123456789abcdef0123456789abcdef",
		WebhookSecret: "whsec_test_0123456789abcdef", PricePro: "price_pro", PriceCredits: "price_credits",
		PriceViews: "price_views", APIBase: base, HTTPClient: &http.Client{Transport: rec, Timeout: 10 * time.Second}})
	require.NoError(t, err)
	b.worker.Billing = p
	user := b.signUp(t, "paying@shop.example")
	_, err = b.db.Pool.Exec(b.ctx, `UPDATE subscriptions SET billing_customer_id = 'cus_erase1', billing_subscription_id = 'sub_erase1'
		WHERE user_id = $1`, user)
	require.NoError(t, err)
	require.NoError(t, b.accounts.RequestErasure(b.ctx, user, account.ErasureConfirmation{Password: "erase-me-please"}))
	require.NoError(t, b.worker.billing(b.ctx, user))
	require.NoError(t, b.worker.Erase(b.ctx, user))
	rec.mu.Lock()
	defer rec.mu.Unlock()
	sort.Strings(rec.seen)
	require.Equal(t, []string{"DELETE /v1/customers/cus_erase1", "DELETE /v1/customers/cus_erase1",
		"DELETE /v1/subscriptions/sub_erase1", "DELETE /v1/subscriptions/sub_erase1"}, rec.seen)

	// Without a provider configured the job stops rather than leave a paying
	// subscription running.
	c := setup(t)
	other := c.signUp(t, "paying2@shop.example")
	_, err = c.db.Pool.Exec(c.ctx, `UPDATE subscriptions SET billing_customer_id = 'cus_2' WHERE user_id = $1`, other)
	require.NoError(t, err)
	require.NoError(t, c.accounts.RequestErasure(c.ctx, other, account.ErasureConfirmation{Password: "erase-me-please"}))
	require.ErrorContains(t, c.worker.Erase(c.ctx, other), "no provider is configured")
	require.Equal(t, 1, c.count(t, `SELECT count(*) FROM user_pii WHERE user_id = $1`, other))
}

// `worker erase-shopper EMAIL`: the shopper's leads go at every merchant,
// whatever the case of the address; other shoppers' stay.
func TestEraseShopperDeletesTheirLeadsAtEveryMerchant(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for i, l := range [][2]string{{"m1", "Sam.Shopper@buyer.example"}, {"m2", "sam.shopper@buyer.example"},
		{"m2", "sam.shopper@buyer.example"}, {"m1", "someone@else.example"}} {
		// One lead per shopper and product (migration 0033): the shopper's two
		// leads at m2 are on two products.
		_, err := b.db.Pool.Exec(b.ctx, `INSERT INTO product_leads (id, user_id, product_id, publication_id, email, consent, created_at)
			VALUES ($1, $2, $3, $4, $5, 'ok', now())`, "lead-"+string(rune('a'+i)), l[0], "p-"+string(rune('a'+i)), "pub-"+string(rune('a'+i)), l[1])
		require.NoError(t, err)
	}
	res, err := EraseShopper(b.ctx, b.db.Pool, "SAM.shopper@buyer.example")
	require.NoError(t, err)
	require.Equal(t, ShopperResult{Leads: 3, Merchants: 2}, res)
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM product_leads`))
	require.Zero(t, b.count(t, `SELECT count(*) FROM product_leads WHERE lower(email) LIKE 'sam.%'`))
	_, err = EraseShopper(b.ctx, b.db.Pool, "not an address")
	require.Error(t, err)
}

// `worker migrate-pii` on a log written before issue 31: the personal
// fields leave the events (the analyst and every reader of the log see ids
// only), user_pii gets the latest values for an account it missed, the
// accounts read model rebuilt from the log is the same before and after,
// and a second run changes nothing.
func TestMigratePIIStripsOldEventsAndReplaysGiveTheSameRows(t *testing.T) {
	t.Parallel()
	b := setup(t)
	legacy := func(stream string, version int, typ, data string) {
		_, err := b.db.Pool.Exec(b.ctx, `INSERT INTO events (stream_id, stream_type, version, type, data)
			VALUES ($1, 'user', $2, $3, $4::jsonb)`, stream, version, typ, data)
		require.NoError(t, err)
	}
	legacy("user-old1", 1, "user.registered.v1", `{"userId":"old1","email":"old.one@shop.example","name":"Old One","firstName":"Old","lastName":"One","method":"password","at":"2026-01-01T00:00:00Z"}`)
	legacy("user-old1", 2, "user.profile_updated.v1", `{"userId":"old1","name":"Olga One","firstName":"Olga","lastName":"One"}`)
	legacy("user-old2", 1, "user.registered.v1", `{"userId":"old2","email":"old.two@shop.example","name":"Old Two","method":"google","at":"2026-01-02T00:00:00Z"}`)
	// Migration 0029 copied what the users read model had; old2's row is
	// missing (say, a read model rebuilt before the upgrade lost it).
	_, err := b.db.Pool.Exec(b.ctx, `INSERT INTO user_pii (user_id, email, name, first_name, last_name) VALUES ('old1', 'old.one@shop.example', 'Olga One', 'Olga', 'One')`)
	require.NoError(t, err)
	rebuild := func() string {
		require.NoError(t, pgdb.WithTx(b.ctx, b.db.Pool, func(tx pgx.Tx) error { return account.Rebuild(b.ctx, tx, b.store) }))
		rows, err := b.db.Pool.Query(b.ctx, `SELECT u::text FROM users u ORDER BY id`)
		require.NoError(t, err)
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		require.NoError(t, err)
		return strings.Join(lines, "\n")
	}
	before := rebuild()
	require.Contains(t, before, "old1")

	res, err := MigrateEvents(b.ctx, b.db.Pool)
	require.NoError(t, err)
	require.Equal(t, MigrateResult{Stripped: 3, Copied: 1}, res)
	require.Zero(t, b.count(t, `SELECT count(*) FROM events WHERE data::text ILIKE '%old.%' OR data::text LIKE '%Olga%' OR data ? 'name'`))
	var name, email string
	require.NoError(t, b.db.Pool.QueryRow(b.ctx, `SELECT name, email FROM user_pii WHERE user_id = 'old2'`).Scan(&name, &email))
	require.Equal(t, []string{"Old Two", "old.two@shop.example"}, []string{name, email})
	require.NoError(t, b.db.Pool.QueryRow(b.ctx, `SELECT name FROM user_pii WHERE user_id = 'old1'`).Scan(&name))
	require.Equal(t, "Olga One", name, "rows already there are kept")
	require.Equal(t, before, rebuild(), "the read model is the same from the migrated log")

	res, err = MigrateEvents(b.ctx, b.db.Pool)
	require.NoError(t, err)
	require.Equal(t, MigrateResult{}, res, "a second run finds nothing to do")
	// Still decodable by the registry.
	rows, err := b.db.Pool.Query(b.ctx, `SELECT `+eventstore.Columns+` FROM events ORDER BY position`)
	require.NoError(t, err)
	envs, err := b.store.ScanRows(rows)
	require.NoError(t, err)
	require.Len(t, envs, 3)
	require.Equal(t, events.UserRegistered{UserID: "old1", Method: "password", At: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}, envs[0].Data)
	require.False(t, errors.Is(err, events.ErrUnknownType))
}

// Security review 3, L7: the text step blanks the merchant's text in the
// account's events (a legacy address field of an event stored before issue
// 31 goes too) and keeps another account's; cut off after it, the job runs
// again and finishes, and running the step again rewrites no event.
func TestEraseTextStepIsCutOffSafelyAndRunsAgainWithoutRewriting(t *testing.T) {
	t.Parallel()
	b := setup(t)
	user := b.signUp(t, "text.step@shop.example")
	other := b.signUp(t, "other.brand@shop.example")
	for _, u := range []string{user, other} {
		_, err := b.accounts.UpdateBranding(b.ctx, u, "Erika Mustermann Ceramics", "#112233")
		require.NoError(t, err)
	}
	_, err := b.db.Pool.Exec(b.ctx, `UPDATE events SET data = data || '{"email":"text.step@shop.example"}'
		WHERE stream_id = $1 AND type = 'user.registered.v1'`, "user-"+user)
	require.NoError(t, err)
	require.NoError(t, b.accounts.RequestErasure(b.ctx, user, account.ErasureConfirmation{Password: "erase-me-please"}))
	holding := func(u string) int {
		return b.count(t, `SELECT count(*) FROM events WHERE stream_id = $1 AND (data::text ILIKE '%erika%' OR data::text ILIKE '%@shop.example%')`, "user-"+u)
	}
	require.Equal(t, 2, holding(user))

	ctx, cancel := context.WithCancel(b.ctx)
	cut := *b.worker
	cut.afterStep = func(ctx context.Context, step string) error {
		if step == StepText {
			cancel()
		}
		return ctx.Err()
	}
	require.ErrorIs(t, cut.Erase(ctx, user), context.Canceled)
	require.Zero(t, holding(user), "the text step ran")
	require.Equal(t, 1, holding(other), "another account's text stays")
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM user_pii WHERE user_id = $1`, user), "the run stopped before the final step")

	versions := func() string {
		var s string
		require.NoError(t, b.db.Pool.QueryRow(b.ctx, `SELECT string_agg(xmin::text || ':' || data::text, ',' ORDER BY position) FROM events`).Scan(&s))
		return s
	}
	before := versions()
	require.NoError(t, b.worker.text(b.ctx, user))
	require.Equal(t, before, versions(), "a second run rewrites no event")
	require.NoError(t, b.worker.Erase(b.ctx, user))
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM users WHERE id = $1 AND erased_at IS NOT NULL`, user))
	require.Zero(t, holding(user))
}
