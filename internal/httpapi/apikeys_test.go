package httpapi

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/apikey"
	"github.com/photo3d/photo3d/internal/auth"
	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/job"
	"github.com/photo3d/photo3d/internal/job/jobtest"
	"github.com/photo3d/photo3d/internal/publish"
	"github.com/photo3d/photo3d/internal/reconstruct"
	"github.com/photo3d/photo3d/internal/subscription"
	"github.com/photo3d/photo3d/internal/upload"
)

// keyStack is the api as cmd/api wires it for integrators: creation,
// catalogue, subscriptions, publishing and API keys, on a real listener, with
// (optionally) the real worker building models.
type keyStack struct {
	liveStack
	keys *apikey.Service
}

func newKeyStack(t testing.TB, rateLimit int, worker bool) keyStack {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	env := jobtest.New(t, base)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	store := eventstore.New(events.Domain(), eventstore.WithInline(upload.Projection{}, job.Projection{}, catalog.Projection{},
		publish.Projection{}, apikey.Projection{}))
	keys := apikey.NewService(env.DB.Pool, store)
	svc := catalog.NewService(env.DB.Pool, store, env.Jobs, catalog.SubscriptionPlans{Subscriptions: env.Subs})
	pubs := publish.NewService(env.DB.Pool, store, publish.SubscriptionPlans{Subscriptions: env.Subs, DB: env.DB.Pool}, base)
	meter := publish.NewMeter(env.DB.Pool, env.Subs, store, log, publish.MeterConfig{})
	t.Cleanup(func() { _ = meter.Close(context.Background()) })
	pages := publish.NewPages(publish.PagesConfig{DB: env.DB.Pool, Store: store, Bucket: env.Blobs.Bucket, Meter: meter,
		BaseURL: base, Log: log, Assets: publish.Assets{Script: "/assets/viewer-test.js"}})
	tokens := auth.NewTokens([]byte("creation-test-secret-0123456789abcdef"), base)
	srv.Config.Handler = NewRouter(Deps{Logger: log, DB: env.DB.Pool, Tokens: tokens, MaxBodyBytes: 1 << 20,
		Uploads: env.Uploads, Jobs: env.Jobs, Blobs: env.Blobs, Subscriptions: env.Subs, Catalog: svc,
		Publications: pubs, PublicPages: pages, APIKeys: keys, APIKeyRateLimit: rateLimit})
	srv.Start()
	t.Cleanup(srv.Close)
	if worker {
		env.StartWorker(t, reconstruct.NewBuiltin())
	}
	return keyStack{liveStack: liveStack{env: env, srv: srv, tokens: tokens}, keys: keys}
}

// withKey sends a JSON request authenticated by an API key (or any bearer token).
func (s keyStack) withKey(t *testing.T, key, method, path string, body any, header ...string) (*http.Response, reply) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(t, err)
		rd = strings.NewReader(string(b))
	}
	res, r, _ := s.send(t, key, method, path, "application/json", rd, header...)
	return res, r
}

// newKey creates a key through the panel's route with user's session.
func (s keyStack) newKey(t testing.TB, user, name string, scopes ...string) apikey.Created {
	t.Helper()
	res, r := s.jsonCall(t, user, "POST", "/api/api-keys", map[string]any{"name": name, "scopes": scopes})
	require.Equal(t, http.StatusCreated, res.StatusCode, string(r.Data))
	return decodeAs[apikey.Created](t, r.Data)
}

func errCode(r reply) string {
	if r.Error == nil {
		return ""
	}
	return r.Error.Code
}

func TestAPIKeysCreateListValidate(t *testing.T) {
	t.Parallel()
	s := newKeyStack(t, 0, false)
	a := s.env.User(t)

	for _, c := range []struct {
		body map[string]any
		code string
	}{
		{map[string]any{"name": "", "scopes": []string{"read"}}, "name_required"},
		{map[string]any{"name": strings.Repeat("n", 81), "scopes": []string{"read"}}, "name_too_long"},
		{map[string]any{"name": "bad\x01name", "scopes": []string{"read"}}, "invalid_name"},
		{map[string]any{"name": "Shop", "scopes": []string{}}, "invalid_scopes"},
		{map[string]any{"name": "Shop", "scopes": []string{"read", "admin"}}, "invalid_scopes"},
		{map[string]any{"name": "Shop"}, "invalid_scopes"},
	} {
		res, r := s.jsonCall(t, a, "POST", "/api/api-keys", c.body)
		require.Equal(t, http.StatusBadRequest, res.StatusCode, c.body)
		require.Equal(t, c.code, errCode(r), c.body)
	}
	res, _, _ := s.do(t, a, "POST", "/api/api-keys", "application/json", strings.NewReader(`{"name":"x","scopes":["read"]} {}`))
	require.Equal(t, http.StatusBadRequest, res.StatusCode, "trailing JSON is refused")

	k := s.newKey(t, a, "  Shopify sync  ", "publish", "read", "read")
	require.True(t, strings.HasPrefix(k.Secret, "p3d_"), k.Secret)
	require.Len(t, k.Secret, 4+43)
	require.Equal(t, k.Secret[:12], k.Prefix)
	require.Equal(t, "Shopify sync", k.Name)
	require.Equal(t, []apikey.Scope{"read", "publish"}, k.Scopes, "de-duplicated, in display order")

	res, r := s.jsonCall(t, a, "GET", "/api/api-keys", nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.NotContains(t, string(r.Data), k.Secret, "the key is shown once, never listed")
	list := decodeAs[struct {
		Items     []map[string]any `json:"items"`
		MaxActive int              `json:"maxActive"`
	}](t, r.Data)
	require.Len(t, list.Items, 1)
	require.Equal(t, 20, list.MaxActive)
	require.Equal(t, k.Prefix, list.Items[0]["prefix"])
	require.Nil(t, list.Items[0]["lastUsedAt"])
	require.NotContains(t, list.Items[0], "key")

	// At most 20 active keys; a revoked one frees a place.
	for i := 1; i < apikey.MaxActiveKeys; i++ {
		s.newKey(t, a, "k", "read")
	}
	res, r = s.jsonCall(t, a, "POST", "/api/api-keys", map[string]any{"name": "one too many", "scopes": []string{"read"}})
	require.Equal(t, http.StatusConflict, res.StatusCode)
	require.Equal(t, "too_many_api_keys", errCode(r))
	res, _ = s.jsonCall(t, a, "DELETE", "/api/api-keys/"+k.ID, nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	s.newKey(t, a, "replacement", "read")
}

func TestAPIKeyScopesRevocationIsolation(t *testing.T) {
	t.Parallel()
	s := newKeyStack(t, 0, false)
	a, b := s.env.User(t), s.env.User(t)
	giveTrial(t, s.env, a)
	bpA := s.env.Blueprint(t, a, "ready")
	bpB := s.env.Blueprint(t, b, "ready")
	res, r := s.jsonCall(t, b, "POST", "/api/products", map[string]any{"name": "B's chair", "blueprintId": bpB})
	require.Equal(t, http.StatusCreated, res.StatusCode, string(r.Data))
	productB := decodeAs[struct{ ID string }](t, r.Data).ID

	read := s.newKey(t, a, "reader", "read")
	write := s.newKey(t, a, "writer", "read", "write")
	pub := s.newKey(t, a, "publisher", "read", "write", "publish")
	slot := map[string]any{"filename": "vase.png", "contentType": "image/png", "size": 1000}

	// read: GETs only.
	res, _ = s.withKey(t, read.Secret, "GET", "/api/blueprints", nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	res, r = s.withKey(t, read.Secret, "POST", "/api/uploads", slot)
	require.Equal(t, http.StatusForbidden, res.StatusCode)
	require.Equal(t, "insufficient_scope", errCode(r))
	require.Equal(t, `This API key does not have the "write" scope this request needs.`, r.Error.Message)

	// write: creates, but cannot publish.
	res, _ = s.withKey(t, write.Secret, "POST", "/api/uploads", slot)
	require.Equal(t, http.StatusCreated, res.StatusCode)
	res, r = s.withKey(t, write.Secret, "POST", "/api/publications", map[string]any{"blueprintId": bpA})
	require.Equal(t, http.StatusForbidden, res.StatusCode)
	require.Equal(t, "insufficient_scope", errCode(r))
	require.Contains(t, r.Error.Message, `"publish"`)

	// publish: publishes, and the event names the key as the actor.
	res, r = s.withKey(t, pub.Secret, "POST", "/api/publications", map[string]any{"blueprintId": bpA})
	require.Equal(t, http.StatusCreated, res.StatusCode, string(r.Data))
	p := decodeAs[publish.Publication](t, r.Data)
	var actor string
	require.NoError(t, s.env.DB.Pool.QueryRow(context.Background(),
		`SELECT metadata->>'actor' FROM events WHERE stream_id = $1 ORDER BY version LIMIT 1`, "publication-"+p.ID).Scan(&actor))
	require.Equal(t, "apikey-"+pub.ID, actor)

	// Keys never manage keys, passwords, plans or sessions.
	for _, c := range []struct{ method, path string }{
		{"GET", "/api/api-keys"}, {"POST", "/api/api-keys"}, {"DELETE", "/api/api-keys/" + read.ID}, {"POST", "/api/subscription/plan"},
	} {
		res, r = s.withKey(t, pub.Secret, c.method, c.path, map[string]any{"name": "x", "scopes": []string{"read"}, "plan": "pro"})
		require.Equal(t, http.StatusForbidden, res.StatusCode, c)
		require.Equal(t, "session_required", errCode(r), c)
	}

	// Isolation: B sees none of A's keys and cannot revoke them; A's key
	// cannot see B's things.
	res, r = s.jsonCall(t, b, "GET", "/api/api-keys", nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Empty(t, decodeAs[struct{ Items []apikey.Key }](t, r.Data).Items)
	res, r = s.jsonCall(t, b, "DELETE", "/api/api-keys/"+read.ID, nil)
	require.Equal(t, http.StatusNotFound, res.StatusCode)
	require.Equal(t, "not_found", errCode(r))
	res, _ = s.withKey(t, read.Secret, "GET", "/api/products/"+productB, nil)
	require.Equal(t, http.StatusNotFound, res.StatusCode)
	res, _ = s.withKey(t, read.Secret, "GET", "/api/blueprints/"+bpB, nil)
	require.Equal(t, http.StatusNotFound, res.StatusCode)
	res, r = s.withKey(t, read.Secret, "GET", "/api/blueprints", nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.NotContains(t, string(r.Data), bpB)
	require.Contains(t, string(r.Data), bpA)

	// Last used is recorded.
	res, r = s.jsonCall(t, a, "GET", "/api/api-keys", nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	for _, k := range decodeAs[struct{ Items []apikey.Key }](t, r.Data).Items {
		require.NotNil(t, k.LastUsedAt, k.Name)
		require.WithinDuration(t, time.Now(), *k.LastUsedAt, time.Minute)
	}

	// Revocation takes effect on the very next request.
	res, _ = s.withKey(t, read.Secret, "GET", "/api/blueprints", nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	res, _ = s.jsonCall(t, a, "DELETE", "/api/api-keys/"+read.ID, nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	res, r = s.withKey(t, read.Secret, "GET", "/api/blueprints", nil)
	require.Equal(t, http.StatusUnauthorized, res.StatusCode)
	require.Equal(t, "api_key_invalid", errCode(r))
	res, _ = s.jsonCall(t, a, "DELETE", "/api/api-keys/"+read.ID, nil)
	require.Equal(t, http.StatusNotFound, res.StatusCode, "already revoked")
	res, r = s.jsonCall(t, a, "GET", "/api/api-keys", nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	for _, k := range decodeAs[struct{ Items []apikey.Key }](t, r.Data).Items {
		require.Equal(t, k.ID == read.ID, k.RevokedAt != nil, k.Name)
	}

	// Lookalikes and forgeries: never a session, never someone's key.
	for _, bad := range []string{"p3d_", "p3d_short", read.Secret[:len(read.Secret)-1] + "!", pub.Secret[:20] + flip(pub.Secret[20]) + pub.Secret[21:], pub.Secret + "x"} {
		res, r = s.withKey(t, bad, "GET", "/api/blueprints", nil)
		require.Equal(t, http.StatusUnauthorized, res.StatusCode, bad)
		require.Equal(t, "api_key_invalid", errCode(r), bad)
	}

	// Hashed at rest and never in the log: no table holds a key's text,
	// and events hold neither the key nor its hash.
	for _, k := range []apikey.Created{read, write, pub} {
		for _, q := range []string{
			`SELECT count(*) FROM api_keys k WHERE k::text LIKE '%' || $1 || '%'`,
			`SELECT count(*) FROM api_key_secrets s WHERE s::text LIKE '%' || $1 || '%' OR encode(s.hash, 'escape') LIKE '%' || $1 || '%'`,
			`SELECT count(*) FROM events e WHERE e.data::text LIKE '%' || $1 || '%' OR e.metadata::text LIKE '%' || $1 || '%'`,
			`SELECT count(*) FROM idempotency_keys i WHERE i::text LIKE '%' || $1 || '%'`,
		} {
			for _, needle := range []string{k.Secret, k.Secret[12:]} {
				var n int
				require.NoError(t, s.env.DB.Pool.QueryRow(context.Background(), q, needle).Scan(&n))
				require.Zero(t, n, q)
			}
		}
		var n int
		require.NoError(t, s.env.DB.Pool.QueryRow(context.Background(),
			`SELECT count(*) FROM events e WHERE e.data::text LIKE '%' || $1 || '%'`, hex.EncodeToString(apikey.Hash(k.Secret))).Scan(&n))
		require.Zero(t, n, "the hash is not in the log either")
		require.NoError(t, s.env.DB.Pool.QueryRow(context.Background(),
			`SELECT count(*) FROM api_key_secrets WHERE key_id = $1 AND hash = $2`, k.ID, apikey.Hash(k.Secret)).Scan(&n))
		require.Equal(t, 1, n, "what is stored is the SHA-256")
	}
	var logged []string
	rows, err := s.env.DB.Pool.Query(context.Background(), `SELECT type, data::text FROM events WHERE stream_id LIKE 'apikey-%' ORDER BY position`)
	require.NoError(t, err)
	for rows.Next() {
		var typ, data string
		require.NoError(t, rows.Scan(&typ, &data))
		logged = append(logged, typ)
		var fields map[string]any
		require.NoError(t, json.Unmarshal([]byte(data), &fields))
		for f := range fields {
			require.Contains(t, []string{"keyId", "userId", "name", "prefix", "scopes", "at"}, f)
		}
	}
	require.NoError(t, rows.Err())
	require.Equal(t, []string{"apikey.created.v1", "apikey.created.v1", "apikey.created.v1", "apikey.revoked.v1"}, logged)
}

func TestAPIKeyRateLimit(t *testing.T) {
	t.Parallel()
	s := newKeyStack(t, 3, false)
	a := s.env.User(t)
	k := s.newKey(t, a, "script", "read")
	other := s.newKey(t, a, "other", "read")
	for range 3 {
		res, _ := s.withKey(t, k.Secret, "GET", "/api/blueprints", nil)
		require.Equal(t, http.StatusOK, res.StatusCode)
	}
	res, r := s.withKey(t, k.Secret, "GET", "/api/blueprints", nil)
	require.Equal(t, http.StatusTooManyRequests, res.StatusCode)
	require.Equal(t, "rate_limited", errCode(r))
	require.Equal(t, "60", res.Header.Get("Retry-After"))
	res, _ = s.withKey(t, other.Secret, "GET", "/api/blueprints", nil)
	require.Equal(t, http.StatusOK, res.StatusCode, "each key has its own budget")
	res, _ = s.jsonCall(t, a, "GET", "/api/blueprints", nil)
	require.Equal(t, http.StatusOK, res.StatusCode, "the session is not limited by the key")
}

// parallel sends n copies of one request at once and returns the answers.
func (s keyStack) parallel(t *testing.T, n int, key, path string, body any, idemKey string) ([]*http.Response, []reply) {
	t.Helper()
	resps, replies := make([]*http.Response, n), make([]reply, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			resps[i], replies[i] = s.withKey(t, key, "POST", path, body, "Idempotency-Key", idemKey)
		})
	}
	close(start)
	wg.Wait()
	return resps, replies
}

func TestIdempotentJobAndAddonUnderParallelRetries(t *testing.T) {
	t.Parallel()
	s := newKeyStack(t, 0, false)
	a := s.env.User(t)
	k := s.newKey(t, a, "shop", "read", "write")
	image := s.env.UploadPhoto(t, a, jobtest.PNG(t, 96, 96))
	ctx := context.Background()
	before, err := s.env.Subs.Get(ctx, s.env.DB.Pool, a)
	require.NoError(t, err)

	resps, replies := s.parallel(t, 20, k.Secret, "/api/jobs", map[string]any{"imageURL": image}, "job-7f3a")
	var id string
	replayed := 0
	for i, res := range resps {
		require.Equal(t, http.StatusCreated, res.StatusCode, "answer %d: %+v", i, replies[i].Error)
		j := decodeAs[jobReply](t, replies[i].Data)
		if id == "" {
			id = j.ID
		}
		require.Equal(t, id, j.ID, "every retry gets the first answer")
		require.Equal(t, "/api/jobs/"+id, res.Header.Get("Location"))
		if res.Header.Get("Idempotent-Replayed") == "true" {
			replayed++
		}
	}
	require.Equal(t, 19, replayed)
	var jobs, queued int
	require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM jobs WHERE user_id = $1`, a).Scan(&jobs))
	require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM events WHERE type = 'job.queued.v1'`).Scan(&queued))
	require.Equal(t, 1, jobs)
	require.Equal(t, 1, queued)
	after, err := s.env.Subs.Get(ctx, s.env.DB.Pool, a)
	require.NoError(t, err)
	require.Equal(t, before.AICreditsReserved+before.AICreditsUsed+1, after.AICreditsReserved+after.AICreditsUsed, "one credit")

	// The same key for another request is refused; a new key is a new job.
	res, r := s.withKey(t, k.Secret, "POST", "/api/jobs", map[string]any{"imageURL": image + "&x=1"}, "Idempotency-Key", "job-7f3a")
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	require.Equal(t, "idempotency_key_reused", errCode(r))
	res, r = s.withKey(t, k.Secret, "POST", "/api/jobs", map[string]any{"imageURL": image}, "Idempotency-Key", "job-7f3b")
	require.Equal(t, http.StatusCreated, res.StatusCode)
	require.NotEqual(t, id, decodeAs[jobReply](t, r.Data).ID)
	res, r = s.withKey(t, k.Secret, "POST", "/api/jobs", map[string]any{"imageURL": image}, "Idempotency-Key", "clé-1")
	require.Equal(t, http.StatusBadRequest, res.StatusCode)
	require.Equal(t, "invalid_idempotency_key", errCode(r))
	res, _ = s.withKey(t, k.Secret, "POST", "/api/jobs", map[string]any{"imageURL": image}, "Idempotency-Key", strings.Repeat("k", 256))
	require.Equal(t, http.StatusBadRequest, res.StatusCode)

	// An add-on purchase, with a session token this time: charged once.
	before, err = s.env.Subs.Get(ctx, s.env.DB.Pool, a)
	require.NoError(t, err)
	tok, _, err := s.tokens.Issue(a)
	require.NoError(t, err)
	resps, replies = s.parallel(t, 20, tok, "/api/subscription/addons", map[string]any{"kind": "credits"}, "addon-1")
	for i, res := range resps {
		require.Equal(t, resps[0].StatusCode, res.StatusCode, "answer %d", i)
		require.JSONEq(t, string(replies[0].Data), string(replies[i].Data))
	}
	require.Less(t, resps[0].StatusCode, 300, "%+v", replies[0].Error)
	after, err = s.env.Subs.Get(ctx, s.env.DB.Pool, a)
	require.NoError(t, err)
	require.Equal(t, before.AICreditsPurchased+subscription.DefaultCreditsBuy, after.AICreditsPurchased)
	var purchases int
	require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM events WHERE type = 'subscription.addon_purchased.v1'`).Scan(&purchases))
	require.Equal(t, 1, purchases)

	// Another user's identical key is their own.
	b := s.env.User(t)
	kb := s.newKey(t, b, "other shop", "write")
	res, r = s.withKey(t, kb.Secret, "POST", "/api/jobs", map[string]any{"imageURL": s.env.UploadPhoto(t, b, jobtest.PNG(t, 96, 96))},
		"Idempotency-Key", "job-7f3a")
	require.Equal(t, http.StatusCreated, res.StatusCode, "%+v", r.Error)
	require.NotEqual(t, id, decodeAs[jobReply](t, r.Data).ID)
}

// flip changes one base62 character into another.
func flip(c byte) string {
	if c == 'a' {
		return "b"
	}
	return "a"
}

// TestReadmeAPIQuickStart runs the "API quick start" script of docs/api.md
// (curl + jq, exactly as written there; the README links to it) against a live api and worker with a real
// key, so the documented sequence cannot drift from the API: photo → upload
// slot → signed PUT → job with Idempotency-Key → poll → publish → embed code.
func TestReadmeAPIQuickStart(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed; the docs/api.md script needs bash, curl and jq (make test installs them: apt-get install -y curl jq)", tool)
		}
	}
	readme, err := os.ReadFile("../../docs/api.md")
	require.NoError(t, err)
	_, block, ok := strings.Cut(string(readme), "<!-- api-quickstart:begin -->\n```bash\n")
	require.True(t, ok, "docs/api.md has the api-quickstart block")
	script, _, ok := strings.Cut(block, "```\n<!-- api-quickstart:end -->")
	require.True(t, ok)

	s := newKeyStack(t, 0, true)
	a := s.env.User(t)
	giveTrial(t, s.env, a)
	k := s.newKey(t, a, "quick start", "read", "write", "publish")
	photo := t.TempDir() + "/red-vase.png"
	require.NoError(t, os.WriteFile(photo, jobtest.PNG(t, 480, 480), 0o600))

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", script)
	cmd.Env = append(os.Environ(), "P3D="+s.srv.URL, "P3D_KEY="+k.Secret, "PHOTO="+photo)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, stderr.String())
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.GreaterOrEqual(t, len(lines), 2, string(out))
	require.True(t, strings.HasPrefix(lines[0], s.srv.URL+"/v/"), lines[0])
	slug := strings.TrimPrefix(lines[0], s.srv.URL+"/v/")
	embed := strings.Join(lines[1:], "\n")
	require.Contains(t, embed, `<iframe`)
	require.Contains(t, embed, `src="`+s.srv.URL+`/embed/`+slug+`"`)

	// The share link serves the model that was built from the photo.
	res, _, page := s.do(t, "", "GET", "/v/"+slug, "", nil)
	require.Equal(t, http.StatusOK, res.StatusCode, string(page))
	require.Contains(t, string(page), `/v/`+slug+`/model.glb`)
	var jobs int
	require.NoError(t, s.env.DB.Pool.QueryRow(context.Background(), `SELECT count(*) FROM jobs WHERE user_id = $1 AND status = 'completed'`, a).Scan(&jobs))
	require.Equal(t, 1, jobs)
}
