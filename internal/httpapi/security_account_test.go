package httpapi

// Attack tests of issue 28's account and integrator findings (items 2, 10,
// 11, 12, 13 and 14), named TestSecurity… like the rest; README.md's
// "Security" table lists them.

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/apikey"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/glbvariants/glbtest"
	"github.com/photo3d/photo3d/internal/projection"
	"github.com/photo3d/photo3d/internal/webhook"
)

// Item 13: a write-scope API key could start the trial and buy add-ons
// (money spent by a script, or by whoever stole its key). Trials, add-ons
// and billing are session-only; the same requests with a session work.
func TestSecurityAPIKeyCannotSpendMoney(t *testing.T) {
	t.Parallel()
	s := newKeyStack(t, 0, false)
	a := s.env.User(t)
	k := s.newKey(t, a, "shop sync", "read", "write", "publish")
	ctx := context.Background()
	before, err := s.env.Subs.Get(ctx, s.env.DB.Pool, a)
	require.NoError(t, err)

	for _, c := range []struct {
		path string
		body any
	}{
		{"/api/subscription/trial", map[string]any{}},
		{"/api/subscription/addons", map[string]any{"kind": "credits"}},
		{"/api/subscription/addons", map[string]any{"kind": "views"}},
		{"/api/subscription/plan", map[string]any{"plan": "pro"}},
	} {
		res, r := s.withKey(t, k.Secret, "POST", c.path, c.body, "Idempotency-Key", "k-"+c.path)
		require.Equal(t, http.StatusForbidden, res.StatusCode, c.path)
		require.Equal(t, "session_required", errCode(r), c.path)
		require.Contains(t, r.Error.Message, "trials, add-ons or billing", c.path)
	}
	after, err := s.env.Subs.Get(ctx, s.env.DB.Pool, a)
	require.NoError(t, err)
	require.Equal(t, before, after, "nothing was bought or started")
	var n int
	require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM events WHERE stream_id = $1 AND type <> 'subscription.opened.v1'`,
		"subscription-"+a).Scan(&n))
	require.Zero(t, n, "no subscription event")

	// The merchant, signed in, can.
	res, r := s.jsonCall(t, a, "POST", "/api/subscription/trial", map[string]any{})
	require.Less(t, res.StatusCode, 300, "%+v", r.Error)
	res, r = s.jsonCall(t, a, "POST", "/api/subscription/addons", map[string]any{"kind": "credits"})
	require.Less(t, res.StatusCode, 300, "%+v", r.Error)

	// Every route that spends money is session-only, whoever adds it later:
	// the router's POST/PUT/PATCH/DELETE under /api/subscription and every
	// route under /api/billing.
	var checked int
	require.NoError(t, chi.Walk(s.srv.Config.Handler.(chi.Routes), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		money := strings.HasPrefix(route, "/api/billing/") || strings.HasPrefix(route, "/api/subscription/") && method != "GET"
		if money {
			checked++
			require.True(t, sessionOnly(method, route), "%s %s must refuse API keys", method, route)
		}
		return nil
	}))
	require.GreaterOrEqual(t, checked, 3)
	require.True(t, sessionOnly("POST", "/api/billing/checkout"), "billing routes added later are covered by the prefix")
}

// Item 11: the webhook secret was not "shown once": an idempotent retry of
// POST /api/webhooks answered it again for 24 h (and idempotency_keys kept
// it). The replay now answers the endpoint with "secret": null and a note,
// and the stored answer never holds the secret.
func TestSecurityWebhookSecretIsNotReplayed(t *testing.T) {
	t.Parallel()
	s := newProductPubStack(t)
	user := s.env.User(t)
	post := func() *httptest.ResponseRecorder {
		tok, _, err := s.tokens.Issue(user)
		require.NoError(t, err)
		req := httptest.NewRequest("POST", "/api/webhooks", strings.NewReader(`{"url":"https://shop.example/hook","events":["lead.captured"]}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set(IdempotencyHeader, "register-hook-1")
		rec := httptest.NewRecorder()
		s.h.ServeHTTP(rec, req)
		return rec
	}
	first := post()
	require.Equal(t, http.StatusCreated, first.Code, first.Body.String())
	var created struct{ Data map[string]any }
	require.NoError(t, json.Unmarshal(first.Body.Bytes(), &created))
	secret, _ := created.Data["secret"].(string)
	require.Regexp(t, `^whsec_`, secret)

	again := post()
	require.Equal(t, http.StatusCreated, again.Code, again.Body.String())
	require.Equal(t, "true", again.Header().Get("Idempotent-Replayed"))
	require.NotContains(t, again.Body.String(), secret, "the replay does not repeat the secret")
	var replay struct{ Data map[string]any }
	require.NoError(t, json.Unmarshal(again.Body.Bytes(), &replay))
	require.Equal(t, created.Data["id"], replay.Data["id"], "the same endpoint, registered once")
	require.Nil(t, replay.Data["secret"])
	require.Contains(t, replay.Data["secretNote"], "shown once")

	var stored int
	require.NoError(t, s.env.DB.Pool.QueryRow(context.Background(),
		`SELECT count(*) FROM idempotency_keys WHERE position($1::bytea IN body) > 0`, []byte(secret)).Scan(&stored))
	require.Zero(t, stored, "the secret is not kept for replays")
	var endpoints int
	require.NoError(t, s.env.DB.Pool.QueryRow(context.Background(), `SELECT count(*) FROM webhook_endpoints WHERE user_id = $1`, user).Scan(&endpoints))
	require.Equal(t, 1, endpoints)
}

// Item 12: a lead the merchant deleted lived on for 30 days in
// webhook_deliveries.payload (and a pending retry still sent it). Delivery
// rows now never hold the address: the worker adds it when it sends, from
// the lead as it stands, and a deleted lead is not sent at all.
func TestSecurityDeletedLeadsDoNotLiveOnInWebhookDeliveries(t *testing.T) {
	t.Parallel()
	s := newProductPubStack(t)
	ctx := context.Background()
	var mu sync.Mutex
	var received []string
	rcv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		received = append(received, string(b))
		mu.Unlock()
	}))
	defer rcv.Close()

	user := s.env.User(t)
	startTrialFor(t, s.creationStack, user)
	rec, r := s.json(t, user, "POST", "/api/webhooks", map[string]any{"url": rcv.URL + "/crm", "events": []string{webhook.EventLeadCaptured}})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	hook := decodeAs[webhookReply](t, r.Data)
	bp := s.env.Blueprint(t, user, "ready")
	require.NoError(t, s.env.Blobs.Bucket.WriteAll(ctx, "models/"+bp+"/model.glb", glbtest.Model(t), nil))
	rec, r = s.json(t, user, "POST", "/api/products", map[string]any{"name": "Lamp", "blueprintId": bp})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	product := decodeAs[productReply](t, r.Data).ID
	pub := decodeAs[publishReply](t, s.ok(t, user, "POST", "/api/products/"+product+"/publish", map[string]any{"requireEmail": true}))
	for _, email := range []string{"erase.me@example.com", "keep.me@example.com"} {
		require.Equal(t, http.StatusOK, s.shopper(t, "POST", "/v/"+pub.Slug+"/lead", `{"email":"`+email+`","consent":true}`).Code)
	}

	// The worker's projection queues both deliveries (nothing sends yet).
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	insertOnly, err := river.NewClient(riverpgxv5.New(s.env.DB.Pool), &river.Config{Logger: log})
	require.NoError(t, err)
	proj := webhook.NewProjection(insertOnly, creationBase)
	_, err = projection.NewRunner(s.env.DB.Pool, eventstore.New(events.Domain()), projection.Config{Logger: log}, proj).Drain(ctx, proj)
	require.NoError(t, err)
	countPII := func() int {
		var n int
		require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM webhook_deliveries WHERE payload LIKE '%erase.me%'`).Scan(&n))
		return n
	}
	var queued int
	require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = $1`, hook.ID).Scan(&queued))
	require.Equal(t, 2, queued)
	require.Zero(t, countPII(), "delivery rows hold no shopper email")

	// The shopper asks to be forgotten; the merchant deletes the lead.
	leads := decodeAs[struct {
		Items []struct{ ID, Email string }
	}](t, s.ok(t, user, "GET", "/api/products/"+product+"/leads", nil))
	for _, l := range leads.Items {
		if l.Email == "erase.me@example.com" {
			s.ok(t, user, "DELETE", "/api/products/"+product+"/leads/"+l.ID, nil)
		}
	}

	workers := river.NewWorkers()
	river.AddWorker(workers, &webhook.DeliverWorker{DB: s.env.DB.Pool, Client: webhook.Guard{AllowPrivate: true}.Client(), Logger: log})
	rc, err := river.NewClient(riverpgxv5.New(s.env.DB.Pool), &river.Config{Logger: log, Workers: workers,
		Queues: map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 2}}, FetchCooldown: 20 * time.Millisecond,
		FetchPollInterval: 50 * time.Millisecond, TestOnly: true})
	require.NoError(t, err)
	require.NoError(t, rc.Start(ctx))
	defer func() { _ = rc.Stop(ctx) }()
	var log2 deliveryList
	require.Eventually(t, func() bool {
		log2 = decodeAs[deliveryList](t, s.ok(t, user, "GET", "/api/webhooks/"+hook.ID+"/deliveries", nil))
		done := 0
		for _, d := range log2.Items {
			if d.State != webhook.StatePending {
				done++
			}
		}
		return done == 2
	}, 60*time.Second, 50*time.Millisecond)

	states := map[string]string{}
	for _, d := range log2.Items {
		states[d.State] = d.LastError
	}
	require.Contains(t, states, webhook.StateDelivered)
	require.Equal(t, "The lead was deleted; delivery stopped.", states[webhook.StateFailed])
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, received, 1, "only the kept lead is sent")
	require.Contains(t, received[0], `"email":"keep.me@example.com"`, "the address is added when sending")
	require.NotContains(t, received[0], "erase.me")
	require.Zero(t, countPII(), "the deleted address is nowhere in the delivery log")
}

// keyStatus is the status of GET /api/users/me sent with an API key.
func (b *acctBundle) keyStatus(t *testing.T, key string) int {
	t.Helper()
	rec, _ := b.send(t, acctReq{method: "GET", path: "/api/users/me", token: key})
	return rec.Code
}

// resetFromOutbox asks for a reset link for address and uses it.
func (b *acctBundle) resetFromOutbox(t *testing.T, address, password string) {
	t.Helper()
	rec, _ := b.send(t, acctReq{method: "POST", path: "/api/auth/forgot-password", body: `{"email":"` + address + `"}`})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	token := b.linkTo(t, address, resetLink)
	rec, _ = b.send(t, acctReq{method: "POST", path: "/api/auth/reset-password", body: `{"token":"` + token + `","password":"` + password + `"}`})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
}

// Item 2 (High): someone pre-registers shop@corp.example, makes a
// read+write+publish key and a lead.captured webhook; the real owner
// follows the app's advice and resets the password — and the key still
// answered, the webhook still received shoppers' emails. Now an unverified
// account gets neither, and the reset that proves the address ends every
// key and webhook made before it (integrations from before this rule too).
func TestSecurityAPIKeysAndWebhooksDoNotSurviveATakeover(t *testing.T) {
	t.Parallel()
	b := acctSetup(t, acctOpts{})
	ctx := context.Background()
	// The attacker signs up with the owner's address and never verifies it.
	rec, _ := b.send(t, acctReq{method: "POST", path: "/api/auth/signup",
		body: `{"email":"shop@corp.example","password":"attacker-pass-1","name":"Shop"}`})
	require.Equal(t, http.StatusAccepted, rec.Code, rec.Body.String())
	var userID string
	var version int64
	require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT u.user_id, coalesce(a.session_version, 0) FROM user_pii u
		LEFT JOIN account_security a ON a.user_id = u.user_id WHERE u.email = 'shop@corp.example'`).Scan(&userID, &version))
	// A session of the attacker's (minted directly: whether an unverified
	// account may sign in at all is item 14's business).
	attacker, _, err := b.tokens.IssueSession(userID, version)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, b.status(t, attacker))

	newKey := func(token string) (*httptest.ResponseRecorder, acctReply) {
		return b.send(t, acctReq{method: "POST", path: "/api/api-keys", token: token,
			body: `{"name":"sync","scopes":["read","write","publish"]}`})
	}
	newHook := func(token string) (*httptest.ResponseRecorder, acctReply) {
		return b.send(t, acctReq{method: "POST", path: "/api/webhooks", token: token,
			body: `{"url":"https://crm.attacker.example/hook","events":["lead.captured"]}`})
	}
	rec, r := newKey(attacker)
	require.Equal(t, http.StatusForbidden, rec.Code, "no key for an unverified account: %s", rec.Body.String())
	require.Equal(t, "email_unverified", r.Error.Code)
	require.Equal(t, "Verify your email address before creating API keys: open the link we emailed you when you signed up, or send a new one from the notice at the top of the page.", r.Error.Message)
	rec, r = newHook(attacker)
	require.Equal(t, http.StatusForbidden, rec.Code, "no webhook for an unverified account: %s", rec.Body.String())
	require.Equal(t, "email_unverified", r.Error.Code)
	require.Contains(t, r.Error.Message, "before adding webhooks")
	var n int
	require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM api_keys) + (SELECT count(*) FROM webhook_endpoints)`).Scan(&n))
	require.Zero(t, n, "nothing was created")

	// Integrations that exist anyway (made before this rule, when only the
	// sign-in was needed): the attacker's account is briefly marked
	// verified so the API makes them, then back to unverified.
	_, err = b.db.Pool.Exec(ctx, `INSERT INTO account_security (user_id, email_verified_at) VALUES ($1, now())
		ON CONFLICT (user_id) DO UPDATE SET email_verified_at = now()`, userID)
	require.NoError(t, err)
	rec, r = newKey(attacker)
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	key := acctData[apikey.Created](t, r)
	rec, r = newHook(attacker)
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	hook := acctData[webhook.Created](t, r)
	_, err = b.db.Pool.Exec(ctx, `UPDATE account_security SET email_verified_at = NULL WHERE user_id = $1`, userID)
	require.NoError(t, err)
	require.Equal(t, http.StatusUnauthorized, b.keyStatus(t, key.Secret), "a key of an unverified account does not work")
	b.newEvents(t)

	// The real owner resets the password from the mailbox.
	b.resetFromOutbox(t, "shop@corp.example", "owners-own-pass-1")
	require.ElementsMatch(t, []string{"user.password_reset_requested.v1", "apikey.revoked.v1", "webhook.removed.v1",
		"user.password_changed.v1"}, b.newEvents(t))
	owner := b.login(t, "shop@corp.example", "owners-own-pass-1")
	require.True(t, owner.User.EmailVerified)

	rec, r = b.send(t, acctReq{method: "GET", path: "/api/users/me", token: key.Secret})
	require.Equal(t, http.StatusUnauthorized, rec.Code, "the attacker's key is dead")
	require.Equal(t, "api_key_invalid", r.Error.Code)
	require.Equal(t, http.StatusUnauthorized, b.status(t, attacker), "and so is the attacker's session")
	rec, r = b.send(t, acctReq{method: "GET", path: "/api/webhooks", token: owner.Token})
	require.Equal(t, http.StatusOK, rec.Code)
	require.NotContains(t, string(r.Data), hook.ID, "the attacker's webhook is gone")
	rec, r = b.send(t, acctReq{method: "GET", path: "/api/api-keys", token: owner.Token})
	require.Equal(t, http.StatusOK, rec.Code)
	keys := acctData[struct{ Items []apikey.Key }](t, r).Items
	require.Len(t, keys, 1)
	require.NotNil(t, keys[0].RevokedAt, "the owner sees the key as revoked")

	// The owner, verified now, makes their own.
	rec, _ = newKey(owner.Token)
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	rec, _ = newHook(owner.Token)
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
}

// Item 2: keys are bound to the account's session version, so "sign out
// everywhere" (and a password change) ends them too — a stolen key cannot
// outlive the merchant's "sign out everywhere" any more than a stolen
// session.
func TestSecuritySignOutEverywhereEndsAPIKeys(t *testing.T) {
	t.Parallel()
	b := acctSetup(t, acctOpts{})
	b.signup(t, "ada@example.com", "password1", "Ada") // verified from its link
	s := b.login(t, "ada@example.com", "password1")
	mint := func(token string) apikey.Created {
		rec, r := b.send(t, acctReq{method: "POST", path: "/api/api-keys", token: token, body: `{"name":"sync","scopes":["read"]}`})
		require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
		return acctData[apikey.Created](t, r)
	}
	k := mint(s.Token)
	require.Equal(t, http.StatusOK, b.keyStatus(t, k.Secret))
	b.newEvents(t)

	rec, r := b.send(t, acctReq{method: "POST", path: "/api/auth/logout-everywhere", token: s.Token})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	again := acctData[session](t, r)
	require.Equal(t, []string{"apikey.revoked.v1"}, b.newEvents(t))
	require.Equal(t, http.StatusUnauthorized, b.keyStatus(t, k.Secret), "sign out everywhere ends the key")

	// The binding holds by itself, even for a key whose revocation event
	// never happened (made before this rule): the session version moved on.
	k2 := mint(again.Token)
	require.Equal(t, http.StatusOK, b.keyStatus(t, k2.Secret))
	_, err := b.db.Pool.Exec(context.Background(), `UPDATE account_security SET session_version = session_version + 1
		WHERE user_id = $1`, s.User.ID)
	require.NoError(t, err)
	require.Equal(t, http.StatusUnauthorized, b.keyStatus(t, k2.Secret))

	// A password change ends keys too.
	fresh := b.login(t, "ada@example.com", "password1")
	k3 := mint(fresh.Token)
	rec, _ = b.send(t, acctReq{method: "POST", path: "/api/users/me/password", token: fresh.Token,
		body: `{"currentPassword":"password1","newPassword":"password2"}`})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Equal(t, http.StatusUnauthorized, b.keyStatus(t, k3.Secret))
}

// Item 14: sign-up answered alike for new and taken addresses, but "sign up
// with a password P, then sign in with P" still told them apart (a taken
// address answered 401, a new one 200). A new password account now signs
// in only from its mailed link; before that, signing in answers exactly
// like a wrong password (status, body, headers, one argon2id hash), and
// "send the link again" answers alike for every address.
func TestSecuritySignInDoesNotRevealSignups(t *testing.T) {
	t.Parallel()
	b := acctSetup(t, acctOpts{})
	b.signup(t, "owner@example.com", "owner-password", "Owner")
	type answer struct {
		status int
		header http.Header
		body   string
		hashes int64
	}
	send := func(path, body string) answer {
		before := b.accounts.PasswordHashes()
		rec, _ := b.send(t, acctReq{method: "POST", path: path, body: body, header: http.Header{"X-Request-Id": {"same-id"}}})
		h := rec.Header().Clone()
		// The per-IP counters move on each attempt (and their window may roll over).
		h.Del("X-Ratelimit-Remaining")
		h.Del("X-Ratelimit-Reset")
		return answer{rec.Code, h, rec.Body.String(), b.accounts.PasswordHashes() - before}
	}
	probe := func(email string) [2]answer {
		creds := `{"email":"` + email + `","password":"chosen-by-probe"}`
		return [2]answer{
			send("/api/auth/signup", `{"email":"`+email+`","password":"chosen-by-probe","name":"Probe"}`),
			send("/api/auth/login", creds),
		}
	}
	taken := probe("Owner@Example.com")
	fresh := probe("newcomer@example.com")
	require.Equal(t, http.StatusAccepted, fresh[0].status)
	require.Equal(t, http.StatusUnauthorized, fresh[1].status, "a new account does not sign in before its link: %s", fresh[1].body)
	require.Equal(t, taken, fresh, "sign-up then sign-in: byte-identical answers and headers, the same hashing")
	require.Contains(t, fresh[1].body, account.MsgInvalidLogin)
	require.Contains(t, account.MsgInvalidLogin, "verification link", "the message hints at verifying")
	wrong := send("/api/auth/login", `{"email":"owner@example.com","password":"not-the-password"}`)
	require.Equal(t, wrong, fresh[1], "exactly like a wrong password")

	// "Send the link again" answers alike for a new, a verified and an
	// unknown address.
	resend := func(email string) answer { return send("/api/auth/resend-verification", `{"email":"`+email+`"}`) }
	r1, r2, r3 := resend("newcomer@example.com"), resend("owner@example.com"), resend("nobody@example.com")
	require.Equal(t, http.StatusOK, r1.status, r1.body)
	require.Equal(t, r1, r2)
	require.Equal(t, r1, r3)
	var links int
	for _, m := range b.outbox.List() {
		if m.To == "newcomer@example.com" && verifyLink.MatchString(m.Body) {
			links++
		}
	}
	require.Equal(t, 2, links, "only the waiting account got a new link")

	// The newest link signs the newcomer in; the password works from then on.
	rec, r := b.send(t, acctReq{method: "POST", path: "/api/auth/verify-email",
		body: `{"token":"` + b.linkTo(t, "newcomer@example.com", verifyLink) + `"}`})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	opened := acctData[struct {
		Message string `json:"message"`
		session
	}](t, r)
	require.Equal(t, account.MsgEmailVerified, opened.Message)
	require.True(t, opened.User.EmailVerified)
	require.Equal(t, http.StatusOK, b.status(t, opened.Token))
	require.Equal(t, opened.User.ID, b.login(t, "newcomer@example.com", "chosen-by-probe").User.ID)
}
