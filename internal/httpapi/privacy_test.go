package httpapi

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"
	"gocloud.dev/blob"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/analytics"
	"github.com/photo3d/photo3d/internal/apikey"
	"github.com/photo3d/photo3d/internal/auth"
	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/dashboard"
	"github.com/photo3d/photo3d/internal/dbtest"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/glbvariants/glbtest"
	"github.com/photo3d/photo3d/internal/job"
	"github.com/photo3d/photo3d/internal/job/jobtest"
	"github.com/photo3d/photo3d/internal/mail"
	"github.com/photo3d/photo3d/internal/notify"
	"github.com/photo3d/photo3d/internal/privacy"
	"github.com/photo3d/photo3d/internal/projection"
	"github.com/photo3d/photo3d/internal/publish"
	"github.com/photo3d/photo3d/internal/upload"
	"github.com/photo3d/photo3d/internal/webhook"
	"github.com/photo3d/photo3d/internal/workspace"
)

// privacyStack is the api as cmd/api wires it for issue 31: accounts (with
// the erasure scheduler), catalogue, publishing with the shopper pages, API
// keys and webhooks, over one real Postgres, River and file blob store; plus
// the worker's async projections and the erasure job.
type privacyStack struct {
	creationStack
	outbox   *mail.Outbox
	runner   *projection.Runner
	projs    []projection.Projection
	shoppers *analytics.Collector
	eraser   *privacy.EraseWorker
	exporter *privacy.ExportWorker
}

func newPrivacyStack(t *testing.T) privacyStack {
	t.Helper()
	env := jobtest.New(t, creationBase)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	store := eventstore.New(events.Domain(), eventstore.WithInline(upload.Projection{}, job.Projection{}, catalog.Projection{},
		publish.Projection{}, apikey.Projection{}))
	// Model uploads are queued for a worker the stack does not run: they
	// answer 202 at once.
	svc := catalog.NewService(env.DB.Pool, store, env.Jobs, catalog.SubscriptionPlans{Subscriptions: env.Subs}).
		WithModels(env.Blobs, 0).WithRiver(env.River).WithModelWait(time.Millisecond)
	pubs := publish.NewService(env.DB.Pool, store, publish.SubscriptionPlans{Subscriptions: env.Subs, DB: env.DB.Pool}, creationBase)
	meter := publish.NewMeter(env.DB.Pool, env.Subs, store, log, publish.MeterConfig{})
	t.Cleanup(func() { _ = meter.Close(context.Background()) })
	shoppers := &analytics.Collector{OwnHost: "photo3d.test"}
	shoppers.Writer = analytics.NewWriter(env.DB.Pool, nil, analytics.WriterConfig{})
	pages := ShopperPages(publish.PagesConfig{DB: env.DB.Pool, Store: store, Bucket: env.Blobs.Bucket, Meter: meter,
		BaseURL: creationBase, CacheTTL: time.Nanosecond, Log: log,
		Assets:        publish.Assets{Script: "/assets/viewer-test.js"},
		ProductAssets: publish.Assets{Script: "/assets/product-test.js"}}, shoppers)
	keys := apikey.NewService(env.DB.Pool, store)
	hooks := webhook.NewService(env.DB.Pool, store, env.River, true)
	outbox := mail.NewOutbox(50)
	accounts, err := account.NewService(env.DB.Pool, store, env.Subs, account.Options{
		PublicBaseURL: creationBase, Mailer: mail.Immediate{Sender: mail.Log{Logger: log, Outbox: outbox}}, Bucket: env.Blobs.Bucket, Logger: log,
		HashParams: account.HashParams{MemoryKiB: 1024, Time: 1, Threads: 1, KeyLen: 32, SaltLen: 16},
		Revokers:   []account.AccessRevoker{keys, hooks}, Erasure: privacy.Scheduler(env.River),
	})
	require.NoError(t, err)
	tokens := auth.NewTokens([]byte("creation-test-secret-0123456789abcdef"), env.BaseURL)
	h := NewRouter(Deps{Logger: log, DB: env.DB.Pool, Tokens: tokens, MaxBodyBytes: 1 << 20, Uploads: env.Uploads, Jobs: env.Jobs,
		Blobs: env.Blobs, Subscriptions: env.Subs, Catalog: svc, Publications: pubs, PublicPages: pages,
		Accounts: accounts, Media: env.Blobs.Bucket, Outbox: outbox, AuthRateLimit: AuthRateLimit{PerIP: 1000, PerEmail: 1000},
		Notifications: notify.NewService(env.DB.Pool), Workspace: workspace.NewReader(env.DB.Pool),
		Dashboard: dashboard.NewService(workspace.NewReader(env.DB.Pool), nil), APIKeys: keys, Webhooks: hooks, Exports: &privacy.Exports{DB: env.DB.Pool, River: env.River, Signer: env.Blobs}})
	projs := []projection.Projection{notify.NewProjection(), workspace.NewProjection(), webhook.NewProjection(env.River, creationBase)}
	return privacyStack{
		creationStack: creationStack{env: env, h: h, tokens: tokens},
		outbox:        outbox, shoppers: shoppers, projs: projs,
		runner: projection.NewRunner(env.DB.Pool, store, projection.Config{Logger: log}, projs...),
		eraser: &privacy.EraseWorker{DB: env.DB.Pool, Store: store, Bucket: env.Blobs.Bucket,
			Mailer: mail.Log{Logger: log, Outbox: outbox}, Logger: log, BaseURL: creationBase},
		exporter: &privacy.ExportWorker{DB: env.DB.Pool, Store: store, Bucket: env.Blobs.Bucket,
			Mail: mail.Immediate{Sender: mail.Log{Logger: log, Outbox: outbox}}, Logger: log, BaseURL: creationBase},
	}
}

// send makes a request with an explicit Authorization header ("" for none).
func (s privacyStack) send(t *testing.T, authz, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.RemoteAddr = "203.0.113.9:40000"
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if authz != "" {
		req.Header.Set("Authorization", authz)
	}
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	return rec
}

// signUp registers through the api, opens the mailed verification link and
// signs in with the password; it returns the user id and a session token.
func (s privacyStack) signUp(t *testing.T, email, password string) (string, string) {
	t.Helper()
	rec := s.send(t, "", "POST", "/api/auth/signup", fmt.Sprintf(`{"email":%q,"password":%q,"name":"Erin Erasable"}`, email, password))
	require.Equal(t, http.StatusAccepted, rec.Code, rec.Body.String())
	var token string
	for _, m := range s.outbox.List() {
		if m.To == email && strings.Contains(m.Body, "verify-email?token=") { // newest first
			token = strings.Fields(m.Body[strings.Index(m.Body, "verify-email?token=")+len("verify-email?token="):])[0]
			break
		}
	}
	require.NotEmpty(t, token, "verification mail")
	rec = s.send(t, "", "POST", "/api/auth/verify-email", fmt.Sprintf(`{"token":%q}`, token))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	sess := s.login(t, email, password)
	require.Equal(t, http.StatusOK, sess.Code, sess.Body.String())
	var out struct {
		Data struct {
			Token string       `json:"token"`
			User  account.User `json:"user"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(sess.Body.Bytes(), &out))
	return out.Data.User.ID, out.Data.Token
}

func (s privacyStack) login(t *testing.T, email, password string) *httptest.ResponseRecorder {
	t.Helper()
	return s.send(t, "", "POST", "/api/auth/login", fmt.Sprintf(`{"email":%q,"password":%q}`, email, password))
}

// tablesHolding counts, in every base table of the schema (listed from
// information_schema, so a table added later is scanned without touching
// this test: events, read models, River's jobs, webhook deliveries,
// idempotency records, notifications…), the rows whose text contains s.
func tablesHolding(t *testing.T, s privacyStack, needle string) map[string]int {
	t.Helper()
	ctx := context.Background()
	rows, err := s.env.DB.Pool.Query(ctx, `SELECT quote_ident(table_name) FROM information_schema.tables
		WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1`)
	require.NoError(t, err)
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Contains(t, tables, "events")
	require.Contains(t, tables, "river_job")
	require.Greater(t, len(tables), 40)
	out := map[string]int{}
	for _, tbl := range tables {
		var n int
		// convert_from of every bytea column too (idempotency bodies are
		// bytea): the row's text form shows bytea as hex, so look for both.
		require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM `+tbl+` x
			WHERE strpos(lower(x::text), lower($1)) > 0 OR strpos(x::text, encode(convert_to($1, 'UTF8'), 'hex')) > 0`, needle).Scan(&n), tbl)
		if n > 0 {
			out[tbl] = n
		}
	}
	return out
}

// Issue 31: a merchant signs up, sells through a published product page
// with an email gate, integrates with an API key and a webhook; a shopper
// leaves an address. The merchant's address is then only in user_pii (and
// the pending verification link's table), the shopper's only in
// product_leads: never in the log, a read model, a River job, a webhook
// delivery or an idempotency record. After "Delete account" the account is
// closed at once (sign-in, the old session and the API key refused, the page
// 410 Gone) and, once the erasure job ran, neither address is in any table,
// the files are gone from the blob store and the address can sign up again.
func TestPersonalDataLivesInItsTablesAndErasureLeavesNoTrace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newPrivacyStack(t)
	const email, password = "erin.erasable@shop.example", "erasable-pass-1"
	const shopperEmail = "sam.shopper@buyer.example"
	user, session := s.signUp(t, email, password)
	bearer := "Bearer " + session
	startTrialFor(t, s.creationStack, user)

	// A product with a real model, published with the email gate.
	bp := s.env.Blueprint(t, user, "ready")
	modelKey := "models/" + bp + "/model.glb" // the key jobtest's blueprint records
	require.NoError(t, s.env.Blobs.Bucket.WriteAll(ctx, modelKey, glbtest.Model(t), nil))
	files := []string{modelKey, "uploads/" + user + "/photo.png", "models/" + user + "/" + bp + "/thumbnail.png",
		"variants/0123456789abcdef/model.glb"}
	for _, k := range files[1:] {
		require.NoError(t, s.env.Blobs.Bucket.WriteAll(ctx, k, []byte("mine"),
			&blob.WriterOptions{Metadata: map[string]string{"model": modelKey}}))
	}
	other := s.env.User(t) // another merchant's files stay
	theirs := []string{"models/" + other + "/x/model.glb", "variants/fedcba9876543210/model.glb"}
	for _, k := range theirs {
		require.NoError(t, s.env.Blobs.Bucket.WriteAll(ctx, k, []byte("theirs"),
			&blob.WriterOptions{Metadata: map[string]string{"model": theirs[0]}}))
	}
	rec := s.send(t, bearer, "POST", "/api/products", fmt.Sprintf(`{"name":"Erasable vase","blueprintId":%q}`, bp))
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	var product struct {
		Data productReply `json:"data"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &product))

	// Integrations: an API key (used with an Idempotency-Key) and a webhook.
	rec = s.send(t, bearer, "POST", "/api/api-keys", `{"name":"shop","scopes":["read","write","publish"]}`)
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	var key struct {
		Data struct {
			Key string `json:"key"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &key))
	require.NotEmpty(t, key.Data.Key)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer receiver.Close()
	rec = s.send(t, bearer, "POST", "/api/webhooks", fmt.Sprintf(`{"url":%q,"events":["lead.captured","product.published"]}`, receiver.URL+"/hook"))
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	req := httptest.NewRequest("POST", "/api/products/"+product.Data.ID+"/publish", strings.NewReader(`{"requireEmail":true}`))
	req.Header.Set("Authorization", "Bearer "+key.Data.Key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", "publish-erasable-1")
	recp := httptest.NewRecorder()
	s.h.ServeHTTP(recp, req)
	require.Less(t, recp.Code, 300, recp.Body.String())
	var pub struct {
		Data publishReply `json:"data"`
	}
	require.NoError(t, json.Unmarshal(recp.Body.Bytes(), &pub))

	// A shopper views the page and leaves an address.
	page := s.send(t, "", "GET", "/v/"+pub.Data.Slug, "")
	require.Equal(t, http.StatusOK, page.Code)
	rec = s.send(t, "", "POST", "/v/"+pub.Data.Slug+"/lead?vid=viewer-erasable-00001", fmt.Sprintf(`{"email":%q,"consent":true}`, shopperEmail))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.NoError(t, s.shoppers.Writer.Flush(ctx))
	_, err := analytics.Rollup(ctx, s.env.DB.Pool, time.Now())
	require.NoError(t, err)
	for _, p := range s.projs { // notifications, workspace, webhook deliveries (River jobs)
		_, err := s.runner.Drain(ctx, p)
		require.NoError(t, err)
	}
	var deliveries, leadJobs int
	require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM webhook_deliveries WHERE event_type = 'lead.captured'`).Scan(&deliveries))
	require.Equal(t, 1, deliveries, "the lead's webhook delivery exists (and is scanned)")
	require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'webhook_deliver'`).Scan(&leadJobs))
	require.Positive(t, leadJobs)

	require.Equal(t, map[string]int{"user_pii": 1, "email_verifications": 1}, tablesHolding(t, s, email),
		"after sign-up the merchant's address is in user_pii and the verification link's row only")
	require.Equal(t, map[string]int{"product_leads": 1}, tablesHolding(t, s, shopperEmail),
		"the shopper's address is in product_leads only")

	// Delete account: the wrong password changes nothing.
	rec = s.send(t, bearer, "DELETE", "/api/users/me", `{"password":"not-my-password"}`)
	require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
	require.Contains(t, rec.Body.String(), account.MsgErasePassword)
	require.Equal(t, http.StatusOK, s.login(t, email, password).Code)
	// An API key can never delete its account (session-only).
	rec = s.send(t, "Bearer "+key.Data.Key, "DELETE", "/api/users/me", fmt.Sprintf(`{"password":%q}`, password))
	require.Equal(t, http.StatusForbidden, rec.Code, rec.Body.String())

	// Sales channels: a feed token and a Shopify connection (security review 3, M1, M2).
	for _, q := range []string{
		`INSERT INTO channel_feeds (user_id, token, created_at, rotated_at) VALUES ($1, 'erasable-feed-token-0123456789ab', now(), now())`,
		`INSERT INTO channel_shopify (user_id, shop, token_sealed, connected_at) VALUES ($1, 'erasable.myshopify.com', '\x00', now())`,
	} {
		_, err = s.env.DB.Pool.Exec(ctx, q, user)
		require.NoError(t, err)
	}

	rec = s.send(t, bearer, "DELETE", "/api/users/me", fmt.Sprintf(`{"password":%q}`, password))
	require.Equal(t, http.StatusAccepted, rec.Code, rec.Body.String())
	require.Contains(t, rec.Body.String(), MsgErasureAccepted)
	var channelRows int
	require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM channel_feeds WHERE user_id = $1) +
		(SELECT count(*) FROM channel_shopify WHERE user_id = $1)`, user).Scan(&channelRows))
	require.Zero(t, channelRows, "the feed token and the Shopify token end with the request")
	// From the 202: no sign-in, no session, no key, the page is gone.
	require.Equal(t, http.StatusUnauthorized, s.login(t, email, password).Code)
	require.Equal(t, http.StatusUnauthorized, s.send(t, bearer, "GET", "/api/users/me", "").Code)
	require.Equal(t, http.StatusUnauthorized, s.send(t, "Bearer "+key.Data.Key, "GET", "/api/products", "").Code)
	gone := s.send(t, "", "GET", "/v/"+pub.Data.Slug, "")
	require.Equal(t, http.StatusGone, gone.Code)
	require.Contains(t, gone.Body.String(), "This page is no longer available")
	require.NotContains(t, gone.Body.String(), "Erasable vase")
	var hooksLeft int
	require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM webhook_endpoints WHERE user_id = $1 AND removed_at IS NULL`, user).Scan(&hooksLeft))
	require.Zero(t, hooksLeft, "webhooks end with the request")

	// The erasure job, run by a real River worker; then the projections catch up.
	s.runErasure(t)

	require.Empty(t, tablesHolding(t, s, email), "after erasure the merchant's address is nowhere")
	require.Empty(t, tablesHolding(t, s, shopperEmail), "after erasure the shopper's address is nowhere")
	for _, k := range files {
		ok, err := s.env.Blobs.Bucket.Exists(ctx, k)
		require.NoError(t, err)
		require.False(t, ok, "%s is deleted from the blob store", k)
	}
	for _, k := range theirs {
		ok, err := s.env.Blobs.Bucket.Exists(ctx, k)
		require.NoError(t, err)
		require.True(t, ok, "another merchant's %s stays", k)
	}
	var shopperRows int
	require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM shopper_events WHERE user_id = $1) +
		(SELECT count(*) FROM shopper_days WHERE user_id = $1)`, user).Scan(&shopperRows))
	require.Zero(t, shopperRows, "the account's analytics are deleted")
	require.Equal(t, http.StatusGone, s.send(t, "", "GET", "/v/"+pub.Data.Slug, "").Code)
	var goodbye []string
	for _, m := range s.outbox.List() {
		if m.To == email && m.Subject == "Your Photo3D account has been deleted" {
			goodbye = append(goodbye, m.Body)
		}
	}
	require.Len(t, goodbye, 1, "the final mail")
	require.Contains(t, goodbye[0], "/signup")

	// The address is free again: a new account, a new id.
	again, _ := s.signUp(t, email, "a-new-life-2")
	require.NotEqual(t, user, again)
}

// A Google-only account has no password: it confirms "Delete account" with
// a fresh Google sign-in (an ID token carrying a nonce this server issued,
// for the same Google account), through the in-process fake key server.
func TestDeleteAccountOfAGoogleOnlyAccountNeedsAFreshGoogleSignIn(t *testing.T) {
	t.Parallel()
	b := acctSetup(t, acctOpts{erasure: func(db *dbtest.DB) account.ErasureScheduler {
		rc, err := river.NewClient(riverpgxv5.New(db.Pool), &river.Config{})
		require.NoError(t, err)
		return privacy.Scheduler(rc)
	}})
	g := b.google
	rec, r := b.send(t, acctReq{method: "POST", path: "/api/auth/google", body: `{"credential":"` + g.token(t, g.key, nil) + `"}`})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	sess := acctData[session](t, r)
	del := func(body string) (*httptest.ResponseRecorder, acctReply) {
		return b.send(t, acctReq{method: "DELETE", path: "/api/users/me", token: sess.Token, body: body})
	}

	rec, r = del(`{}`)
	require.Equal(t, http.StatusBadRequest, rec.Code)
	require.Equal(t, "google_confirmation_required", r.Error.Code)
	rec, r = del(`{"password":"guessing-a-password"}`)
	require.Equal(t, http.StatusBadRequest, rec.Code)
	require.Equal(t, "google_confirmation_required", r.Error.Code, "a Google-only account has no password to give")
	// Someone else's Google account does not confirm.
	rec, r = del(`{"googleCredential":"` + g.token(t, g.key, jwt.MapClaims{"sub": "google-sub-2", "email": "other@gmail.com"}) + `"}`)
	require.Equal(t, http.StatusBadRequest, rec.Code)
	require.Equal(t, "google_confirmation_required", r.Error.Code)
	// A token without a nonce of ours (an old one, or one made elsewhere) does not either.
	noNonce := g.nonce
	g.nonce = nil
	stale := g.token(t, g.key, nil)
	g.nonce = noNonce
	rec, _ = del(`{"googleCredential":"` + stale + `"}`)
	require.Equal(t, http.StatusUnauthorized, rec.Code)
	var pending int
	require.NoError(t, b.db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM river_job WHERE kind = 'account_erase'`).Scan(&pending))
	require.Zero(t, pending, "nothing is erased without a confirmation")

	rec, _ = del(`{"googleCredential":"` + g.token(t, g.key, nil) + `"}`)
	require.Equal(t, http.StatusAccepted, rec.Code, rec.Body.String())
	require.NoError(t, b.db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM river_job WHERE kind = 'account_erase' AND args->>'userId' = $1`,
		sess.User.ID).Scan(&pending))
	require.Equal(t, 1, pending)
	// Google sign-in no longer opens the account while it is being erased.
	rec, r = b.send(t, acctReq{method: "POST", path: "/api/auth/google", body: `{"credential":"` + g.token(t, g.key, nil) + `"}`})
	require.Equal(t, http.StatusConflict, rec.Code, rec.Body.String())
	require.Equal(t, account.MsgErasing, r.Error.Message)
	rec, _ = b.send(t, acctReq{method: "GET", path: "/api/users/me", token: sess.Token})
	require.Equal(t, http.StatusUnauthorized, rec.Code)
}

// runJobs works the queued River jobs of the given kinds with a real
// client until one of each has completed.
func (s privacyStack) runJobs(t *testing.T, kinds ...string) {
	t.Helper()
	workers := river.NewWorkers()
	river.AddWorker(workers, s.eraser)
	river.AddWorker(workers, s.exporter)
	rc, err := river.NewClient(riverpgxv5.New(s.env.DB.Pool), &river.Config{Logger: s.env.Logger, Workers: workers,
		Queues: map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 2}}, FetchCooldown: 50 * time.Millisecond, TestOnly: true})
	require.NoError(t, err)
	done, cancel := rc.Subscribe(river.EventKindJobCompleted)
	defer cancel()
	require.NoError(t, rc.Start(context.Background()))
	defer func() { _ = rc.StopAndCancel(context.Background()) }()
	want := map[string]bool{}
	for _, k := range kinds {
		want[k] = true
	}
	deadline := time.After(30 * time.Second)
	for len(want) > 0 {
		select {
		case ev := <-done:
			delete(want, ev.Job.Kind)
		case <-deadline:
			t.Fatalf("jobs %v did not complete", want)
		}
	}
}

// Download my data: the export is a River job; its ZIP holds the account,
// the products, the leads (JSON and CSV) and the files; the link is signed
// and short-lived, the owner is notified and mailed (a link to the profile,
// never to the file), and an API key cannot start or read an export.
func TestDownloadMyDataBuildsAZipOfTheAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newPrivacyStack(t)
	const email, password = "dana.download@shop.example", "download-pass-1"
	user, session := s.signUp(t, email, password)
	bearer := "Bearer " + session
	startTrialFor(t, s.creationStack, user)
	bp := s.env.Blueprint(t, user, "ready")
	require.NoError(t, s.env.Blobs.Bucket.WriteAll(ctx, "models/"+bp+"/model.glb", glbtest.Model(t), nil))
	require.NoError(t, s.env.Blobs.Bucket.WriteAll(ctx, "uploads/"+user+"/photo.png", []byte("the photo"), nil))
	rec := s.send(t, bearer, "POST", "/api/products", fmt.Sprintf(`{"name":"Exported lamp","blueprintId":%q}`, bp))
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	var product struct {
		Data productReply `json:"data"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &product))
	rec = s.send(t, bearer, "POST", "/api/products/"+product.Data.ID+"/publish", `{"requireEmail":true}`)
	require.Less(t, rec.Code, 300, rec.Body.String())
	var pub struct {
		Data publishReply `json:"data"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &pub))
	rec = s.send(t, "", "POST", "/v/"+pub.Data.Slug+"/lead?vid=viewer-export-000001", `{"email":"=cmd@buyer.example","consent":true}`)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())

	rec = s.send(t, bearer, "GET", "/api/users/me/export", "")
	require.Equal(t, http.StatusOK, rec.Code)
	require.JSONEq(t, `{"success":true,"data":{"status":"none"}}`, rec.Body.String())
	rec = s.send(t, bearer, "POST", "/api/users/me/export", "")
	require.Equal(t, http.StatusAccepted, rec.Code, rec.Body.String())
	require.Contains(t, rec.Body.String(), `"status":"pending"`)
	rec = s.send(t, bearer, "POST", "/api/users/me/export", "")
	require.Equal(t, http.StatusAccepted, rec.Code)
	var jobs int
	require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'account_export'`).Scan(&jobs))
	require.Equal(t, 1, jobs, "asking twice builds one export")

	s.runJobs(t, privacy.ExportArgs{}.Kind())
	rec = s.send(t, bearer, "GET", "/api/users/me/export", "")
	require.Equal(t, http.StatusOK, rec.Code)
	var got struct {
		Data privacy.Export `json:"data"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &got))
	require.Equal(t, "ready", got.Data.Status)
	require.NotNil(t, got.Data.ExpiresAt)
	require.WithinDuration(t, time.Now().Add(privacy.ExportLifetime), *got.Data.ExpiresAt, time.Minute)
	require.Contains(t, got.Data.URL, "exports%2F"+user)

	file := s.send(t, "", "GET", got.Data.URL, "")
	require.Equal(t, http.StatusOK, file.Code, file.Body.String())
	zr, err := zip.NewReader(bytes.NewReader(file.Body.Bytes()), int64(file.Body.Len()))
	require.NoError(t, err)
	entries := map[string]string{}
	for _, f := range zr.File {
		r, err := f.Open()
		require.NoError(t, err)
		b, err := io.ReadAll(r)
		require.NoError(t, err)
		entries[f.Name] = string(b)
	}
	require.Contains(t, entries["account.json"], email)
	require.Contains(t, entries["products.json"], "Exported lamp")
	require.Contains(t, entries["publications.json"], pub.Data.Slug)
	require.Contains(t, entries["subscription-history.json"], "subscription.trial_started")
	require.Contains(t, entries["leads.json"], "=cmd@buyer.example")
	require.Contains(t, entries["leads.csv"], "'=cmd@buyer.example", "a formula-like cell is defused")
	require.Equal(t, "the photo", entries["files/uploads/"+user+"/photo.png"])
	// The product's model is in a folder named after it (issue 50, P20).
	require.Equal(t, string(glbtest.Model(t)), entries["products/Exported lamp/model.glb"])
	require.NotContains(t, entries, "files/models/"+bp+"/model.glb", "each file is in the ZIP once")
	require.Equal(t, privacy.ExportFileName(*got.Data.RequestedAt), got.Data.FileName)
	require.Regexp(t, `^photo3d-export-\d{4}-\d{2}-\d{2}\.zip$`, got.Data.FileName)
	tampered := strings.Replace(got.Data.URL, user, user[:len(user)-1]+"x", 1)
	require.NotEqual(t, http.StatusOK, s.send(t, "", "GET", tampered, "").Code, "the link is signed")

	// Notified (from the log) and mailed, with a link to the profile only.
	for _, p := range s.projs {
		_, err := s.runner.Drain(ctx, p)
		require.NoError(t, err)
	}
	rec = s.send(t, bearer, "GET", "/api/notifications", "")
	require.Contains(t, rec.Body.String(), "Your data is ready to download")
	var ready []mail.Message
	for _, m := range s.outbox.List() {
		if m.To == email && m.Subject == "Your Photo3D data is ready to download" {
			ready = append(ready, m)
		}
	}
	require.Len(t, ready, 1)
	require.Contains(t, ready[0].Body, "/workspace/profile")
	require.NotContains(t, ready[0].Body, "exports/")

	// Session-only: an API key cannot start or read an export.
	rec = s.send(t, bearer, "POST", "/api/api-keys", `{"name":"shop","scopes":["read","write"]}`)
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	var key struct {
		Data struct {
			Key string `json:"key"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &key))
	require.Equal(t, http.StatusForbidden, s.send(t, "Bearer "+key.Data.Key, "GET", "/api/users/me/export", "").Code)
	require.Equal(t, http.StatusForbidden, s.send(t, "Bearer "+key.Data.Key, "POST", "/api/users/me/export", "").Code)
}
