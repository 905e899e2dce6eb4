package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/glbvariants/glbtest"
	"github.com/photo3d/photo3d/internal/job/jobtest"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/privacy"
	"github.com/photo3d/photo3d/internal/publish"
)

// sendBody makes a request with a raw body of the given type.
func (s privacyStack) sendBody(t *testing.T, authz, method, path, contentType string, body []byte) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, bytes.NewReader(body))
	req.RemoteAddr = "203.0.113.9:40000"
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Authorization", authz)
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	return rec
}

// runErasure works the queued account_erase job with a real River worker
// and then lets the async projections catch up.
func (s privacyStack) runErasure(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	workers := river.NewWorkers()
	river.AddWorker(workers, s.eraser)
	rc, err := river.NewClient(riverpgxv5.New(s.env.DB.Pool), &river.Config{Logger: s.env.Logger, Workers: workers,
		Queues: map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 2}}, FetchCooldown: 50 * time.Millisecond, TestOnly: true})
	require.NoError(t, err)
	done, cancel := rc.Subscribe(river.EventKindJobCompleted)
	defer cancel()
	require.NoError(t, rc.Start(ctx))
	defer func() { _ = rc.StopAndCancel(context.Background()) }()
	deadline := time.After(60 * time.Second)
	for erased := false; !erased; {
		select {
		case ev := <-done:
			erased = ev.Job.Kind == privacy.EraseArgs{}.Kind()
		case <-deadline:
			t.Fatal("the erasure job did not complete")
		}
	}
	s.drain(t)
}

func (s privacyStack) drain(t *testing.T) {
	t.Helper()
	for _, p := range s.projs {
		_, err := s.runner.Drain(context.Background(), p)
		require.NoError(t, err)
	}
}

// readModels dumps every base table that is not the log, a checkpoint,
// River's or the migrations' (the rows replay could change).
func readModels(t *testing.T, s privacyStack) map[string]string {
	t.Helper()
	ctx := context.Background()
	rows, err := s.env.DB.Pool.Query(ctx, `SELECT quote_ident(table_name) FROM information_schema.tables
		WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
		  AND table_name NOT IN ('events', 'projection_checkpoints') AND table_name NOT LIKE 'river%' AND table_name NOT LIKE '%migration%'`)
	require.NoError(t, err)
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	out := map[string]string{}
	for _, tbl := range tables {
		rows, err := s.env.DB.Pool.Query(ctx, `SELECT t::text FROM `+tbl+` t ORDER BY 1`)
		require.NoError(t, err)
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		require.NoError(t, err)
		if len(lines) > 0 {
			out[tbl] = strings.Join(lines, "\n")
		}
	}
	return out
}

// Security review 3, L7: what a merchant typed (brand name, product name,
// description, URL and tags, catalog and gallery names, variant names, SKUs
// and part names, hotspot texts, purchase links, embed sites, blueprint
// and file names, API key name, webhook URL) is personal data: a sole
// trader's brand is their name, a description their address. The attacker
// here is anyone reading the database after "Delete account" (an analyst,
// a backup, `pg_dump -a | grep`): after the erasure job, no table (the
// event log, read models, River's jobs included, listed from
// information_schema) holds any of it, and `worker replay` of every read
// model built from the redacted log gives exactly the rows the erasure left.
func TestSecurityMerchantTextLeavesNoTraceAfterErasure(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newPrivacyStack(t)
	const marker = "Erika-Mustermann-7Q" // compared case-insensitively
	const site = "https://erika-mustermann-7q.example"
	user, session := s.signUp(t, "erika@shop.example", "erasable-pass-7")
	bearer := "Bearer " + session
	startTrialFor(t, s.creationStack, user) // galleries, part materials, public pages
	// Another merchant whose brand happens to hold the same words keeps it.
	other, otherSession := s.signUp(t, "other@shop.example", "other-pass-7")
	rec := s.send(t, "Bearer "+otherSession, "PUT", "/api/branding", fmt.Sprintf(`{"brandName":%q,"brandColor":"#000000"}`, marker+" Other Shop"))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())

	ok := func(rec *httptest.ResponseRecorder) map[string]any {
		t.Helper()
		require.Less(t, rec.Code, 300, rec.Body.String())
		var out struct {
			Data map[string]any `json:"data"`
		}
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out), rec.Body.String())
		return out.Data
	}
	call := func(method, path, body string) map[string]any {
		t.Helper()
		return ok(s.send(t, bearer, method, path, body))
	}

	call("PUT", "/api/branding", fmt.Sprintf(`{"brandName":%q,"brandColor":"#112233"}`, marker+" Ceramics"))
	call("PATCH", "/api/users/me", fmt.Sprintf(`{"name":%q}`, marker))
	// A photo uploaded under a file name, built into a blueprint (named
	// after the file), then renamed.
	body, ct := multipartFile(t, "file", marker+"-vase.png", jobtest.PNG(t, 96, 96))
	up := ok(s.sendBody(t, bearer, "POST", "/api/uploads/content", ct, body))
	bp := call("POST", "/api/jobs", fmt.Sprintf(`{"imageURL":%q}`, up["imageURL"]))["id"].(string)
	s.env.Finish(t, bp, "")
	require.NoError(t, s.env.Blobs.Bucket.WriteAll(ctx, "models/"+bp+"/model.glb", glbtest.Model(t), nil))
	call("PATCH", "/api/blueprints/"+bp, fmt.Sprintf(`{"name":%q}`, marker+" blueprint"))
	cat := call("POST", "/api/catalogs", fmt.Sprintf(`{"name":%q,"description":%q}`, marker+" catalog", "By "+marker))["id"].(string)
	product := call("POST", "/api/products", fmt.Sprintf(`{"name":%q,"blueprintId":%q,"catalogId":%q}`, marker+" vase", bp, cat))["id"].(string)
	call("PATCH", "/api/products/"+product, fmt.Sprintf(`{"description":%q,"productUrl":%q,"tags":[%q]}`,
		"Hand-made by "+marker+", Musterstr. 5, Berlin", site+"/vase", strings.ToLower(marker)))
	call("POST", "/api/products/"+product+"/variants", fmt.Sprintf(`{"name":%q,"material":"matte-black","sku":%q,"parts":{%q:"snow-white"}}`,
		marker+" blue", marker+"-SKU", marker+" lid"))
	call("POST", "/api/products/"+product+"/hotspots", fmt.Sprintf(`{"position":[0,0.1,0],"normal":[0,1,0],"x":0.5,"y":0.5,"title":%q,"text":%q}`,
		marker+" glaze", "Glazed by "+marker))
	call("POST", "/api/products/"+product+"/links", fmt.Sprintf(`{"url":%q}`, site+"/buy"))
	// A client may name its own request id, which events keep as metadata.
	req := httptest.NewRequest("PATCH", "/api/products/"+product, strings.NewReader(`{"tags":["vase"]}`))
	req.RemoteAddr, req.Header["X-Request-Id"] = "203.0.113.9:40000", []string{marker}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", bearer)
	reqRec := httptest.NewRecorder()
	s.h.ServeHTTP(reqRec, req)
	ok(reqRec)
	gallery := call("POST", "/api/galleries", fmt.Sprintf(`{"name":%q,"description":%q,"productIds":[%q]}`, marker+" gallery", "By "+marker, product))["id"].(string)
	call("POST", "/api/api-keys", fmt.Sprintf(`{"name":%q,"scopes":["read"]}`, marker+" shop key"))
	call("POST", "/api/webhooks", fmt.Sprintf(`{"url":%q,"events":["lead.captured","product.published"]}`, "https://hooks.erika-mustermann-7q.example/hook"))
	// The merchant's own model, under its file name (prepared later by the worker).
	body, ct = multipartFile(t, "file", marker+".glb", glbtest.Model(t))
	rec = s.sendBody(t, bearer, "POST", "/api/products/"+product+"/model", ct, body)
	require.Equal(t, http.StatusAccepted, rec.Code, rec.Body.String())
	// Public pages: the product's (a version snapshot of its configuration),
	// with embed sites, and the gallery's.
	pub := call("POST", "/api/products/"+product+"/publish", `{"requireEmail":true}`)
	call("PUT", "/api/publications/"+pub["publicationId"].(string)+"/embed-origins", fmt.Sprintf(`{"origins":[%q]}`, site))
	call("POST", "/api/galleries/"+gallery+"/publish", "")
	require.Equal(t, http.StatusOK, s.send(t, "", "GET", "/v/"+pub["slug"].(string), "").Code)
	// A shopper leaves an address: the lead's notification names the product.
	rec = s.send(t, "", "POST", "/v/"+pub["slug"].(string)+"/lead?vid=viewer-merchant-text-01", `{"email":"sam@buyer.example","consent":true}`)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	s.drain(t)

	before := tablesHolding(t, s, marker)
	for _, tbl := range []string{"events", "branding", "uploads", "jobs", "catalogs", "products", "galleries", "publication_versions",
		"publications", "api_keys", "webhook_endpoints", "product_models", "notifications", "notify_jobs", "workspace_items"} {
		require.Contains(t, before, tbl, "the test types the marker into %s", tbl)
	}
	var otherEvents int
	require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM events WHERE stream_id = $1 AND data::text ILIKE '%' || $2 || '%'`,
		"user-"+other, marker).Scan(&otherEvents))
	require.Equal(t, 1, otherEvents)

	rec = s.send(t, bearer, "DELETE", "/api/users/me", `{"password":"erasable-pass-7"}`)
	require.Equal(t, http.StatusAccepted, rec.Code, rec.Body.String())
	s.runErasure(t)

	require.Equal(t, map[string]int{"events": 1, "branding": 1}, tablesHolding(t, s, marker),
		"after erasure the merchant's text is in no table; only the other merchant's brand is kept")
	require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM events WHERE stream_id = $1 AND data::text ILIKE '%' || $2 || '%'`,
		"user-"+other, marker).Scan(&otherEvents))
	require.Equal(t, 1, otherEvents, "another merchant's events are untouched")
	// The tombstones keep their ids and structure.
	var rows int
	require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM products WHERE id = $1 AND name = '' AND config->'variants'->1->>'id' = 'v2')
		+ (SELECT count(*) FROM publication_versions v JOIN publications p ON p.id = v.publication_id WHERE p.user_id = $2 AND v.snapshot->>'name' = '')`,
		product, user).Scan(&rows))
	require.Equal(t, 3, rows)

	// Replays of the redacted log rebuild exactly what the erasure left.
	erased := readModels(t, s)
	require.NoError(t, pgdb.WithTx(ctx, s.env.DB.Pool, func(tx pgx.Tx) error {
		if err := catalog.Rebuild(ctx, tx); err != nil {
			return err
		}
		if err := publish.Rebuild(ctx, tx, s.env.Store); err != nil {
			return err
		}
		return account.Rebuild(ctx, tx, s.env.Store)
	}))
	for _, p := range s.projs {
		_, err := s.runner.Replay(ctx, p.Name())
		require.NoError(t, err, p.Name())
	}
	replayed := readModels(t, s)
	for tbl := range erased {
		require.Equal(t, erased[tbl], replayed[tbl], "worker replay changed %s after the erasure", tbl)
	}
	require.Equal(t, len(erased), len(replayed))
}
