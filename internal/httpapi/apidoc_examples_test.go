package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/analytics"
	"github.com/photo3d/photo3d/internal/apidoc"
	"github.com/photo3d/photo3d/internal/apidoc/apidoctest"
	"github.com/photo3d/photo3d/internal/apikey"
	"github.com/photo3d/photo3d/internal/auth"
	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/channels/googlefeed"
	"github.com/photo3d/photo3d/internal/channels/shopify"
	"github.com/photo3d/photo3d/internal/dashboard"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/glbvariants/glbtest"
	"github.com/photo3d/photo3d/internal/job"
	"github.com/photo3d/photo3d/internal/job/jobtest"
	"github.com/photo3d/photo3d/internal/mail"
	"github.com/photo3d/photo3d/internal/notify"
	"github.com/photo3d/photo3d/internal/projection"
	"github.com/photo3d/photo3d/internal/publish"
	"github.com/photo3d/photo3d/internal/team"
	"github.com/photo3d/photo3d/internal/upload"
	"github.com/photo3d/photo3d/internal/webhook"
	"github.com/photo3d/photo3d/internal/workspace"
)

// exampleStack is the whole api wired as cmd/api wires it (every service,
// one event store with the inline projections, the worker's notification
// and workspace projections drained on demand) over a throwaway database.
type exampleStack struct {
	env    *jobtest.Env
	h      http.Handler
	runner *projection.Runner
	outbox *mail.Outbox
}

func newExampleStack(t *testing.T) exampleStack {
	t.Helper()
	env := jobtest.New(t, creationBase)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	store := eventstore.New(events.Domain(), eventstore.WithInline(upload.Projection{}, job.Projection{}, catalog.Projection{},
		publish.Projection{}, apikey.Projection{}, team.Projection{}))
	cat := catalog.NewService(env.DB.Pool, store, env.Jobs, catalog.SubscriptionPlans{Subscriptions: env.Subs}).WithModels(env.Blobs, 0).WithRiver(env.River)
	startModelWorker(t, env, store) // the model example is prepared within the api's wait
	pubs := publish.NewService(env.DB.Pool, store, publish.SubscriptionPlans{Subscriptions: env.Subs, DB: env.DB.Pool}, creationBase)
	meter := publish.NewMeter(env.DB.Pool, env.Subs, store, log, publish.MeterConfig{})
	t.Cleanup(func() { _ = meter.Close(context.Background()) })
	outbox := mail.NewOutbox(10)
	accounts, err := account.NewService(env.DB.Pool, store, env.Subs, account.Options{SignupMode: "open", PublicBaseURL: creationBase,
		Mailer: mail.Immediate{Sender: mail.Log{Logger: log, Outbox: outbox}}, Bucket: env.Blobs.Bucket, Logger: log,
		HashParams: account.HashParams{MemoryKiB: 1024, Time: 1, Threads: 1, KeyLen: 32, SaltLen: 16}})
	require.NoError(t, err)
	pages := publish.NewPages(publish.PagesConfig{DB: env.DB.Pool, Store: store, Bucket: env.Blobs.Bucket, Meter: meter,
		BaseURL: creationBase, CacheTTL: time.Nanosecond, Log: log,
		Assets: publish.Assets{Script: "/assets/viewer-test.js"}, ProductAssets: publish.Assets{Script: "/assets/product-test.js"},
		Brands: publish.AccountBrands{Accounts: accounts, DB: env.DB.Pool}})
	items := workspace.NewReader(env.DB.Pool)
	reader := &analytics.Reader{DB: env.DB.Pool}
	teams := team.NewService(env.DB.Pool, store, team.Options{Accounts: accounts, Subscriptions: env.Subs, Publications: pubs,
		Mailer: mail.Immediate{Sender: mail.Log{Logger: log, Outbox: outbox}}, PublicBaseURL: creationBase})
	env.Uploads.WithRiver(env.River) // cutouts are queued (no worker runs: they stay pending)
	h := NewRouter(Deps{Logger: log, DB: env.DB.Pool, Tokens: auth.NewTokens([]byte("example-test-secret-0123456789abcdef"), creationBase),
		MaxBodyBytes: 1 << 20, Notifications: notify.NewService(env.DB.Pool), Workspace: items,
		Dashboard: dashboard.NewService(items, time.Now), Uploads: env.Uploads, Jobs: env.Jobs, Blobs: env.Blobs, DevMode: true,
		Catalog: cat, Publications: pubs, PublicPages: pages, Accounts: accounts, Subscriptions: env.Subs, Media: env.Blobs.Bucket,
		Outbox: outbox, MailDelivery: "dev-outbox", AuthRateLimit: AuthRateLimit{PerIP: 1000, PerEmail: 1000}, Analytics: reader,
		Shoppers: &analytics.Collector{Pubs: PublicationsOf(pages)}, APIKeys: apikey.NewService(env.DB.Pool, store),
		Webhooks: webhook.NewService(env.DB.Pool, store, env.River, true), Feeds: &googlefeed.Service{DB: env.DB.Pool, BaseURL: env.BaseURL},
		Shopify: &shopify.Service{DB: env.DB.Pool, Key: shopify.TokenKey([]byte("apidoc-example-secret-0123456789abcdef"))},
		Teams:   teams})
	runner := projection.NewRunner(env.DB.Pool, env.Store, projection.Config{Logger: log}, notify.NewProjection(), workspace.NewProjection())
	return exampleStack{env: env, h: h, runner: runner, outbox: outbox}
}

// drain runs the worker's projections so notifications and the workspace
// index see what happened.
func (s exampleStack) drain(t *testing.T) {
	t.Helper()
	for _, p := range []projection.Projection{notify.NewProjection(), workspace.NewProjection()} {
		_, err := s.runner.Drain(context.Background(), p)
		require.NoError(t, err)
	}
}

// exampleFixtures makes the things the examples' {{placeholders}} name: a
// signed-up user (through the API, as an integrator would) with ready
// builds, an upload and a notification. Operations create the rest through
// their own examples ("x-example-captures").
func (s exampleStack) exampleFixtures(t *testing.T) map[string]string {
	t.Helper()
	fx := map[string]string{"email": "ada@example.com", "password": "correct horse battery"}
	send := func(method, path, body, token string) json.RawMessage {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		rec := httptest.NewRecorder()
		s.h.ServeHTTP(rec, req)
		require.Less(t, rec.Code, 300, "%s %s: %s", method, path, rec.Body.String())
		var r reply
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &r))
		return r.Data
	}
	send("POST", "/api/auth/signup", `{"email":"`+fx["email"]+`","password":"`+fx["password"]+`","name":"Ada Lovelace"}`, "")
	// She opens the link mailed at sign-up (API keys and webhooks need a
	// verified address).
	var verifyToken string
	for _, m := range s.outbox.List() {
		if found := verifyLink.FindStringSubmatch(m.Body); m.To == fx["email"] && found != nil {
			verifyToken = found[1]
			break
		}
	}
	require.NotEmpty(t, verifyToken, "the sign-up mail carries a verification link")
	send("POST", "/api/auth/verify-email", `{"token":"`+verifyToken+`"}`, "")
	login := decodeAs[struct {
		Token string `json:"token"`
		User  struct {
			ID string `json:"id"`
		} `json:"user"`
	}](t, send("POST", "/api/auth/login", `{"email":"`+fx["email"]+`","password":"`+fx["password"]+`"}`, ""))
	fx["token"], fx["userId"] = login.Token, login.User.ID

	// Ready builds: one the examples keep (products, publications), one
	// they delete; a finished job's asset; an upload of its own.
	for _, name := range []string{"blueprintId", "spareBlueprintId", "productBlueprintId"} {
		fx[name] = s.env.Blueprint(t, login.User.ID, "ready")
		require.NoError(t, s.env.Blobs.Bucket.WriteAll(context.Background(), "models/"+fx[name]+"/model.glb", glbtest.Model(t), nil))
	}
	fx["jobId"] = fx["blueprintId"]
	j, err := s.env.Jobs.Get(context.Background(), login.User.ID, fx["jobId"])
	require.NoError(t, err)
	fx["assetId"] = j.AssetID
	fx["uploadImageURL"] = s.env.UploadPhoto(t, login.User.ID, jobtest.PNG(t, 96, 96))
	fx["uploadId"], err = s.env.Uploads.ParseImageURL(fx["uploadImageURL"])
	require.NoError(t, err)
	fx["failedJobId"] = s.env.Blueprint(t, login.User.ID, "error")
	require.NoError(t, s.env.Blobs.Bucket.WriteAll(context.Background(), j.ThumbnailKey, jobtest.PNG(t, 32, 32), nil))
	spare := decodeAs[struct {
		ID string `json:"id"`
	}](t, send("POST", "/api/products", `{"name":"Spare","blueprintId":"`+fx["productBlueprintId"]+`"}`, fx["token"]))
	fx["spareProductId"] = spare.ID
	s.drain(t)
	list, err := notify.NewService(s.env.DB.Pool).List(context.Background(), notify.Alone(login.User.ID), 10)
	require.NoError(t, err)
	require.NotEmpty(t, list.Items, "a finished build notifies its owner")
	fx["notificationId"] = list.Items[0].ID
	return fx
}

// exampleOp is one documented operation the examples test sends.
type exampleOp struct {
	method, path, id string
	op               map[string]any
	status           string // the response code holding the ok example
	order            float64
}

var placeholder = regexp.MustCompile(`\{\{([A-Za-z0-9_]+)\}\}`)

// TestOpenAPIExamples sends every operation's documented example to the
// real router on a real database and checks the answer against the
// document: the status is the documented one and the JSON body validates
// against the documented schema (objects refuse undocumented fields), so
// neither the examples nor the schemas can drift from what the API does.
// The convention is internal/apidoc/FORMAT.md ("Examples").
func TestOpenAPIExamples(t *testing.T) {
	t.Parallel()
	built, err := apidoc.Document()
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(built.JSON, &doc))
	compiler, err := apidoctest.NewSchemaCompiler(built.JSON)
	require.NoError(t, err)

	var ops []exampleOp
	var skipped []string
	for p, item := range doc["paths"].(map[string]any) {
		for m, raw := range item.(map[string]any) {
			o := raw.(map[string]any)
			e := exampleOp{method: strings.ToUpper(m), path: p, id: o["operationId"].(string), op: o, order: 50}
			if e.method == "DELETE" {
				e.order = 90
			}
			if v, ok := o["x-example-order"].(float64); ok {
				e.order = v
			}
			if why, ok := o["x-example-skip"].(string); ok {
				skipped = append(skipped, e.id+": "+why)
				continue
			}
			if st, ok := o["x-example-status"].(float64); ok {
				e.status = fmt.Sprint(int(st))
			}
			for code, resp := range o["responses"].(map[string]any) {
				for _, media := range asMap(asMap(resp)["content"]) {
					if _, ok := asMap(asMap(media)["examples"])["ok"]; ok {
						e.status = code
					}
				}
			}
			if e.status == "" {
				skipped = append(skipped, e.id+": no ok example")
				continue
			}
			ops = append(ops, e)
		}
	}
	// By x-example-order (default 50, DELETE 90), deletes deepest first,
	// then by path (a collection's POST before its items) and method.
	sort.Slice(ops, func(i, j int) bool {
		a, b := ops[i], ops[j]
		if a.order != b.order {
			return a.order < b.order
		}
		if da, db := strings.Count(a.path, "/"), strings.Count(b.path, "/"); a.method == "DELETE" && b.method == "DELETE" && da != db {
			return da > db
		}
		if a.path != b.path {
			return a.path < b.path
		}
		return a.method < b.method
	})
	sort.Strings(skipped)
	t.Logf("%d operations exercised; not exercised:\n  %s", len(ops), strings.Join(skipped, "\n  "))

	s := newExampleStack(t)
	fx := s.exampleFixtures(t)
	dump := map[string]any{}
	for _, e := range ops {
		t.Run(e.id, func(t *testing.T) {
			req := exampleRequest(t, e, fx)
			rec := httptest.NewRecorder()
			s.h.ServeHTTP(rec, req)
			s.drain(t)
			dump[e.id] = map[string]any{"status": rec.Code, "contentType": rec.Header().Get("Content-Type"), "body": rec.Body.String()}
			require.Equal(t, e.status, fmt.Sprint(rec.Code), "%s %s: %s", e.method, req.URL, rec.Body.String())
			media, schemaPtr := responseMedia(e, rec.Header().Get("Content-Type"))
			require.NotEmpty(t, media, "%s answered Content-Type %q, which the document does not list for %s",
				e.id, rec.Header().Get("Content-Type"), e.status)
			if !strings.HasPrefix(media, "application/json") {
				return
			}
			sch, err := compiler.Compile(apidoctest.DocURL + schemaPtr)
			require.NoError(t, err)
			got, err := jsonschema.UnmarshalJSON(bytes.NewReader(rec.Body.Bytes()))
			require.NoError(t, err)
			require.NoError(t, sch.Validate(got), "the real answer of %s does not match its schema:\n%s", e.id, rec.Body.String())
			var answer struct {
				Data map[string]any `json:"data"`
			}
			_ = json.Unmarshal(rec.Body.Bytes(), &answer)
			for name, field := range asMap(e.op["x-example-captures"]) {
				v, ok := answer.Data[field.(string)].(string)
				require.True(t, ok, "%s: no string data.%s to capture as %s", e.id, field, name)
				fx[name] = v
			}
			if ex, ok := asMap(asMap(asMap(asMap(asMap(e.op["responses"])[e.status])["content"])[media])["examples"])["ok"]; ok {
				b, _ := json.Marshal(asMap(ex)["value"])
				v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
				require.NoError(t, err)
				require.NoError(t, sch.Validate(v), "the documented ok example of %s does not match its own schema", e.id)
			}
		})
	}
	if dir := os.Getenv("APIDOC_DUMP"); dir != "" {
		b, _ := json.MarshalIndent(dump, "", "  ")
		require.NoError(t, os.WriteFile(filepath.Join(dir, "answers.json"), b, 0o644))
	}
}

// exampleRequest builds the request of an operation's ok example.
func exampleRequest(t *testing.T, e exampleOp, fx map[string]string) *http.Request {
	t.Helper()
	fill := func(s string) string {
		return placeholder.ReplaceAllStringFunc(s, func(m string) string {
			name := placeholder.FindStringSubmatch(m)[1]
			v, ok := fx[name]
			require.True(t, ok, "%s: unknown placeholder %s (add a fixture in exampleFixtures or capture it with x-example-captures)", e.id, m)
			return v
		})
	}
	target := e.path
	query := url.Values{}
	header := http.Header{}
	for _, p := range asList(e.op["parameters"]) {
		pm := asMap(p)
		ex, ok := pm["example"]
		if !ok {
			continue
		}
		v := fill(fmt.Sprint(ex))
		switch pm["in"] {
		case "path":
			target = strings.Replace(target, "{"+pm["name"].(string)+"}", url.PathEscape(v), 1)
		case "query":
			query.Set(pm["name"].(string), v)
		case "header":
			header.Set(pm["name"].(string), v)
		}
	}
	require.NotContains(t, target, "{", "%s: a path parameter has no example", e.id)
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	var body io.Reader
	contentType := ""
	content := asMap(asMap(e.op["requestBody"])["content"])
	if media := asMap(content["application/json"]); media != nil {
		b, err := json.Marshal(asMap(asMap(media["examples"])["ok"])["value"])
		require.NoError(t, err)
		body, contentType = strings.NewReader(fill(string(b))), "application/json"
	} else if media := asMap(content["multipart/form-data"]); media != nil {
		// The file of a multipart example is made here: a real photo, or a
		// real GLB when the example names one.
		file := jobtest.PNG(t, 96, 96)
		name := "photo.png"
		if strings.HasSuffix(fmt.Sprint(asMap(asMap(media["examples"])["ok"])["value"]), ".glb") {
			file, name = glbtest.Model(t), "model.glb"
		}
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		fw, err := mw.CreateFormFile("file", name)
		require.NoError(t, err)
		_, _ = fw.Write(file)
		require.NoError(t, mw.Close())
		body, contentType = &buf, mw.FormDataContentType()
	}
	req := httptest.NewRequest(e.method, target, body)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if sec, ok := e.op["security"].([]any); !ok || len(sec) > 0 {
		req.Header.Set("Authorization", "Bearer "+fx["token"])
	}
	req.RemoteAddr = "203.0.113.9:4000"
	return req
}

// responseMedia finds the documented media type of the answer (exact, then
// by type prefix, then */*) and the JSON pointer of its schema.
func responseMedia(e exampleOp, contentType string) (string, string) {
	resp := asMap(asMap(e.op["responses"])[e.status])
	content := asMap(resp["content"])
	if len(content) == 0 {
		if contentType == "" || e.status == "204" {
			return "none", ""
		}
		return "", ""
	}
	base := strings.TrimSpace(strings.Split(contentType, ";")[0])
	for _, candidate := range []string{base, strings.Split(base, "/")[0] + "/*", "*/*"} {
		if _, ok := content[candidate]; ok {
			ptr := "#/paths/" + strings.ReplaceAll(strings.ReplaceAll(e.path, "~", "~0"), "/", "~1") + "/" + strings.ToLower(e.method) +
				"/responses/" + e.status + "/content/" + strings.ReplaceAll(candidate, "/", "~1") + "/schema"
			return candidate, ptr
		}
	}
	return "", ""
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}
