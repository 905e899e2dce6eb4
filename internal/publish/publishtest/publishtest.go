// Package publishtest builds a complete, real publishing stack for tests: a
// throwaway Postgres database, the event store with the publication
// projection, the real subscription ledger, an in-memory bucket holding the
// models, and helpers that make owners and finished blueprints by appending
// the same events the job pipeline appends.
package publishtest

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/dbtest"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/eventstore/committest"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/publish"
	"github.com/photo3d/photo3d/internal/subscription"
)

// BaseURL is the public base URL the test stack uses.
const BaseURL = "http://photo3d.test"

// ModelBytes is the body stored for every test model.
var ModelBytes = []byte("glTF\x02\x00\x00\x00 test model")

// PosterBytes is a minimal PNG signature stored for every test poster.
var PosterBytes = []byte("\x89PNG\r\n\x1a\n test poster")

// Env is the stack.
type Env struct {
	Ctx      context.Context
	DB       *dbtest.DB
	Store    *eventstore.Store
	Subs     *subscription.Service
	Service  *publish.Service
	Meter    *publish.Meter
	Pages    *publish.Pages
	Bucket   *blob.Bucket
	Log      *slog.Logger
	MeterCfg publish.MeterConfig
	Accounts *account.Service
}

// Option adjusts the stack before it is built.
type Option func(*Env, *publish.PagesConfig)

// WithCacheTTL sets how long rendered pages are cached (tiny: edits show at once).
func WithCacheTTL(d time.Duration) Option {
	return func(_ *Env, c *publish.PagesConfig) { c.CacheTTL = d }
}

// WithClock sets the pages' clock (view-token expiry, view windows).
func WithClock(now func() time.Time) Option {
	return func(_ *Env, c *publish.PagesConfig) { c.Now = now }
}

// New builds the stack on a fresh database.
func New(t testing.TB, opts ...Option) *Env {
	t.Helper()
	db := dbtest.New(t)
	store := eventstore.New(events.Domain(), eventstore.WithInline(publish.Projection{}, committest.Projection))
	subs := subscription.NewService(store, subscription.TestMode{})
	bucket := memblob.OpenBucket(nil)
	t.Cleanup(func() { _ = bucket.Close() })
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	e := &Env{Ctx: context.Background(), DB: db, Store: store, Subs: subs, Bucket: bucket, Log: log,
		MeterCfg: publish.MeterConfig{FlushEvery: 50 * time.Millisecond, ExhaustedRetry: 50 * time.Millisecond}}
	e.Service = publish.NewService(db.Pool, store, publish.SubscriptionPlans{Subscriptions: subs, DB: db.Pool}, BaseURL)
	e.Meter = e.NewMeter()
	accounts, err := account.NewService(db.Pool, store, subs, account.Options{PublicBaseURL: BaseURL, Bucket: bucket, Logger: log,
		HashParams: account.HashParams{MemoryKiB: 64, Time: 1, Threads: 1, KeyLen: 32, SaltLen: 16}})
	require.NoError(t, err)
	e.Accounts = accounts
	cfg := publish.PagesConfig{DB: db.Pool, Store: store, Bucket: bucket, Meter: e.Meter, BaseURL: BaseURL,
		Brands: publish.AccountBrands{Accounts: accounts, DB: db.Pool},
		Assets: publish.Assets{Script: "/assets/viewer-test.js", Styles: []string{"/assets/viewer-test.css"}}, Log: log}
	for _, o := range opts {
		o(e, &cfg)
	}
	e.Pages = publish.NewPages(cfg)
	return e
}

// NewMeter builds another meter on the same ledger: a second api instance.
func (e *Env) NewMeter() *publish.Meter {
	return publish.NewMeter(e.DB.Pool, e.Subs, e.Store, e.Log, e.MeterCfg)
}

func (e *Env) tx(t testing.TB, fn func(tx pgx.Tx) error) {
	t.Helper()
	require.NoError(t, pgdb.WithTx(e.Ctx, e.DB.Pool, fn))
}

// Owner opens a subscription on plan: "free", "trial" or "pro".
func (e *Env) Owner(t testing.TB, plan string) string {
	t.Helper()
	id := uuid.NewString()
	e.tx(t, func(tx pgx.Tx) error {
		if err := e.Subs.Open(e.Ctx, tx, id); err != nil {
			return err
		}
		switch plan {
		case "trial":
			_, err := e.Subs.StartTrial(e.Ctx, tx, id, subscription.DefaultTrialDays)
			return err
		case "pro":
			_, err := e.Subs.ChangePlan(e.Ctx, tx, id, subscription.PlanPro)
			return err
		}
		return nil
	})
	return id
}

// Merchant signs a user up through the account service (which opens the
// free subscription) and starts the Pro trial; it returns the user id.
func (e *Env) Merchant(t testing.TB) string {
	t.Helper()
	u, err := e.Accounts.Signup(e.Ctx, account.SignupInput{Email: uuid.NewString() + "@example.com", Password: "correct horse 42", Name: "Shop Owner"})
	require.NoError(t, err)
	e.tx(t, func(tx pgx.Tx) error {
		_, err := e.Subs.StartTrial(e.Ctx, tx, u.ID, subscription.DefaultTrialDays)
		return err
	})
	return u.ID
}

// Downgrade moves an owner to the free plan (ending any trial).
func (e *Env) Downgrade(t testing.TB, userID string) {
	t.Helper()
	e.tx(t, func(tx pgx.Tx) error {
		_, err := e.Subs.ChangePlan(e.Ctx, tx, userID, subscription.PlanFree)
		return err
	})
}

// SetViewBalance makes the owner's public-view balance exactly n, buying
// views or spending the surplus through a lease as a real instance would.
func (e *Env) SetViewBalance(t testing.TB, userID string, n int64) {
	t.Helper()
	bal := e.Subscription(t, userID).PublicViewsBalance
	require.NotNil(t, bal, "unlimited plans have no balance to set")
	switch {
	case *bal < n:
		e.tx(t, func(tx pgx.Tx) error {
			_, err := e.Subs.PurchaseAddon(e.Ctx, tx, userID, subscription.AddonKindViews, n-*bal)
			return err
		})
	case *bal > n:
		lease := uuid.NewString()
		e.tx(t, func(tx pgx.Tx) error {
			got, err := e.Subs.LeaseViews(e.Ctx, tx, userID, lease, *bal-n, time.Hour)
			if err != nil {
				return err
			}
			require.Equal(t, *bal-n, got)
			return e.Subs.ReturnLease(e.Ctx, tx, userID, lease, 0)
		})
	}
	require.Equal(t, n, *e.Subscription(t, userID).PublicViewsBalance)
}

// Subscription reads the owner's subscription view.
func (e *Env) Subscription(t testing.TB, userID string) subscription.View {
	t.Helper()
	v, err := e.Subs.Get(e.Ctx, e.DB.Pool, userID)
	require.NoError(t, err)
	return v
}

// Blueprint appends a queued and completed job for userID and stores its
// model and poster; it returns the blueprint (job) id.
func (e *Env) Blueprint(t testing.TB, userID, name string) string {
	t.Helper()
	id := e.QueuedBlueprint(t, userID, name)
	e.Complete(t, id)
	return id
}

// QueuedBlueprint appends only JobQueued: a blueprint still being built.
func (e *Env) QueuedBlueprint(t testing.TB, userID, name string) string {
	t.Helper()
	id := uuid.NewString()
	e.appendJob(t, id, events.JobQueued{JobID: id, UserID: userID, UploadID: uuid.NewString(), Name: name, At: time.Now().UTC()})
	return id
}

// Complete appends JobCompleted with a fresh model and poster.
func (e *Env) Complete(t testing.TB, jobID string) {
	t.Helper()
	run := uuid.NewString()
	modelKey, posterKey := "models/"+jobID+"/"+run+".glb", "thumbnails/"+jobID+"/"+run+".png"
	require.NoError(t, e.Bucket.WriteAll(e.Ctx, modelKey, ModelBytes, &blob.WriterOptions{ContentType: "model/gltf-binary"}))
	require.NoError(t, e.Bucket.WriteAll(e.Ctx, posterKey, PosterBytes, &blob.WriterOptions{ContentType: "image/png"}))
	e.appendJob(t, jobID, events.JobCompleted{JobID: jobID, AssetID: uuid.NewString(), ModelKey: modelKey,
		ThumbnailKey: posterKey, Parts: []events.JobPart{{ID: "p1", Name: "Body", Color: "#888888", Share: 1}},
		Reconstructor: "test", Version: "1", At: time.Now().UTC()})
}

// Rename appends BlueprintRenamed.
func (e *Env) Rename(t testing.TB, jobID, name string) {
	t.Helper()
	e.appendJob(t, jobID, events.BlueprintRenamed{JobID: jobID, Name: name})
}

// Delete appends BlueprintDeleted.
func (e *Env) Delete(t testing.TB, jobID string) {
	t.Helper()
	e.appendJob(t, jobID, events.BlueprintDeleted{JobID: jobID, At: time.Now().UTC()})
}

func (e *Env) appendJob(t testing.TB, jobID string, ev events.Event) {
	t.Helper()
	e.tx(t, func(tx pgx.Tx) error {
		_, err := e.Store.Append(e.Ctx, tx, events.Stream{Type: events.StreamJob, ID: jobID}, eventstore.AnyVersion, ev)
		return err
	})
}

// Publish publishes a blueprint and returns the publication.
func (e *Env) Publish(t testing.TB, userID, blueprintID string) publish.Publication {
	t.Helper()
	p, _, err := e.Service.Create(e.Ctx, userID, blueprintID)
	require.NoError(t, err)
	return p
}

// EventTypes lists the types of a stream's events in order.
func (e *Env) EventTypes(t testing.TB, stream events.Stream) []string {
	t.Helper()
	envs, _, err := e.Store.Load(e.Ctx, e.DB.Pool, stream)
	require.NoError(t, err)
	out := make([]string, 0, len(envs))
	for _, x := range envs {
		out = append(out, x.Type)
	}
	return out
}
