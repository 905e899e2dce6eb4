package httpapi

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/analytics"
	"github.com/photo3d/photo3d/internal/apikey"
	"github.com/photo3d/photo3d/internal/auth"
	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/channels"
	"github.com/photo3d/photo3d/internal/channels/googlefeed"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/eventstore/committest"
	"github.com/photo3d/photo3d/internal/experiment"
	"github.com/photo3d/photo3d/internal/glbvariants/glbtest"
	"github.com/photo3d/photo3d/internal/gltfvalidate"
	"github.com/photo3d/photo3d/internal/job"
	"github.com/photo3d/photo3d/internal/job/jobtest"
	"github.com/photo3d/photo3d/internal/publish"
	"github.com/photo3d/photo3d/internal/team"
	"github.com/photo3d/photo3d/internal/upload"
	"github.com/photo3d/photo3d/internal/webhook"
)

// productPubStack is the catalogue stack plus publishing and the public
// pages, wired as cmd/api wires them (one event store with every inline
// projection, the real bucket, the real meter).
type productPubStack struct {
	creationStack
	meter *publish.Meter
	store *eventstore.Store
	pubs  *publish.Service
}

func newProductPubStack(t *testing.T, shoppers ...*analytics.Collector) productPubStack {
	t.Helper()
	return buildProductPubStack(t, func(*Deps) {}, shoppers...)
}

// buildProductPubStack is newProductPubStack with tweak applied to the router's Deps.
func buildProductPubStack(t *testing.T, tweak func(*Deps), shoppers ...*analytics.Collector) productPubStack {
	t.Helper()
	return buildProductPubStackWith(t, func(d *Deps, _ *eventstore.Store, _ *jobtest.Env) { tweak(d) }, shoppers...)
}

// buildProductPubStackWith is buildProductPubStack whose tweak also gets the
// stack's event store and environment (to build more services over them).
func buildProductPubStackWith(t *testing.T, tweak func(*Deps, *eventstore.Store, *jobtest.Env), shoppers ...*analytics.Collector) productPubStack {
	t.Helper()
	env := jobtest.New(t, creationBase)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	store := eventstore.New(events.Domain(), eventstore.WithInline(upload.Projection{}, job.Projection{}, catalog.Projection{},
		publish.Projection{}, publish.ChannelFilesOnChange{River: env.River}, team.Projection{}, apikey.Projection{}, committest.Projection))
	files := channels.NewQueue(env.River)
	svc := catalog.NewService(env.DB.Pool, store, env.Jobs, catalog.SubscriptionPlans{Subscriptions: env.Subs})
	pubs := publish.NewService(env.DB.Pool, store, publish.SubscriptionPlans{Subscriptions: env.Subs, DB: env.DB.Pool}, creationBase)
	meter := publish.NewMeter(env.DB.Pool, env.Subs, store, log, publish.MeterConfig{})
	t.Cleanup(func() { _ = meter.Close(context.Background()) })
	pc := publish.PagesConfig{DB: env.DB.Pool, Store: store, Bucket: env.Blobs.Bucket, Meter: meter,
		BaseURL: creationBase, CacheTTL: time.Nanosecond, Log: log, Channels: files,
		Assets:        publish.Assets{Script: "/assets/viewer-test.js"},
		ProductAssets: publish.Assets{Script: "/assets/product-test.js"}}
	pages := publish.NewPages(pc)
	if len(shoppers) > 0 { // shopper analytics bound as cmd/api binds it
		pages = ShopperPages(pc, shoppers[0])
	}
	tokens := auth.NewTokens([]byte("creation-test-secret-0123456789abcdef"), env.BaseURL)
	d := Deps{Logger: log, DB: env.DB.Pool, Tokens: tokens, MaxBodyBytes: 1 << 20, Uploads: env.Uploads, Jobs: env.Jobs,
		Blobs: env.Blobs, Subscriptions: env.Subs, Catalog: svc, Publications: pubs, PublicPages: pages,
		Webhooks:     webhook.NewService(env.DB.Pool, store, env.River, true),
		Experiments:  experiment.NewService(env.DB.Pool, store, env.Subs, publish.NotifyChannel),
		Feeds:        &googlefeed.Service{DB: env.DB.Pool, BaseURL: creationBase, Live: meter.Available},
		ChannelFiles: files}
	tweak(&d, store, env)
	h := NewRouter(d)
	return productPubStack{creationStack{env: env, h: h, tokens: tokens}, meter, store, pubs}
}

// shopper requests a public URL without signing in.
func (s productPubStack) shopper(t *testing.T, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.RemoteAddr = "203.0.113.7:40000"
	req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	return rec
}

type publishReply struct {
	PublicationID  string `json:"publicationId"`
	Slug           string `json:"slug"`
	ShareURL       string `json:"shareURL"`
	EmbedCode      string `json:"embedCode"`
	QRURL          string `json:"qrURL"`
	Version        int    `json:"version"`
	RequireEmail   bool   `json:"requireEmail"`
	AllowDeepLinks bool   `json:"allowDeepLinks"`
	Locked         bool   `json:"locked"`
}

// readyProduct makes a trial merchant's product whose model is a real GLB.
func (s productPubStack) readyProduct(t *testing.T, name string) (user, id string) {
	t.Helper()
	user = s.env.User(t)
	bp := s.env.Blueprint(t, user, "ready")
	require.NoError(t, s.env.Blobs.Bucket.WriteAll(context.Background(), "models/"+bp+"/model.glb", glbtest.Model(t), nil))
	rec, r := s.json(t, user, "POST", "/api/products", map[string]any{"name": name, "blueprintId": bp})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	return user, decodeAs[productReply](t, r.Data).ID
}

func (s productPubStack) ok(t *testing.T, user, method, path string, body any) json.RawMessage {
	t.Helper()
	rec, r := s.json(t, user, method, path, body)
	require.Less(t, rec.Code, 300, "%s %s: %s", method, path, rec.Body.String())
	return r.Data
}

var viewerTag = regexp.MustCompile(`(?s)<model-viewer[^>]*>`)

func TestProductPublishingAndPublicPage(t *testing.T) {
	t.Parallel()
	s := newProductPubStack(t)
	const hostile = `<img src=x onerror=alert(1)>Chair`
	user, id := s.readyProduct(t, hostile)

	// Free plan: sharing is a Pro feature, as for blueprints.
	rec, r := s.json(t, user, "POST", "/api/products/"+id+"/publish", map[string]any{"requireEmail": true})
	require.Equal(t, http.StatusForbidden, rec.Code, rec.Body.String())
	require.Equal(t, "upgrade_required", r.Error.Code)
	startTrialFor(t, s.creationStack, user)

	// Configure: a second variant with SKU and price, a hostile hotspot, links.
	s.ok(t, user, "POST", "/api/products/"+id+"/variants", map[string]any{"name": "Black <b>", "material": "matte-black",
		"sku": `"><script>alert(2)</script>`, "price": 129, "currency": "USD"})
	s.ok(t, user, "POST", "/api/products/"+id+"/hotspots", map[string]any{"position": []float64{0.1, 0.2, 0.3},
		"normal": []float64{0, 0, 1}, "title": `</script><script>alert(3)</script>`, "text": `"quoted" & <i>`})
	s.ok(t, user, "POST", "/api/products/"+id+"/links", map[string]any{"url": "https://www.amazon.com/dp/B0TEST"})
	s.ok(t, user, "POST", "/api/products/"+id+"/links", map[string]any{"url": "https://www.etsy.com/listing/42", "variantId": "v2"})

	// The product's model carries the variants; its URL follows the configuration.
	detail := decodeAs[productReply](t, s.ok(t, user, "GET", "/api/products/"+id, nil))
	rec, _ = s.call(t, "", "GET", detail.ModelURL, "", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.Contains(t, rec.Body.String(), `"KHR_materials_variants":{"variants":[{"name":"v1"},{"name":"v2"}]}`)
	gltfvalidate.Validate(t, rec.Body.Bytes())
	s.ok(t, user, "PATCH", "/api/products/"+id+"/variants/v2", map[string]any{"material": "snow-white"})
	again := decodeAs[productReply](t, s.ok(t, user, "GET", "/api/products/"+id, nil))
	require.NotEqual(t, detail.ModelURL, again.ModelURL, "a new configuration, a new URL")
	rec, _ = s.call(t, "", "GET", again.ModelURL, "", nil)
	require.Contains(t, rec.Body.String(), `"name":"snow-white"`)

	// Publish, then publish again: same link, new settings.
	rec, r = s.json(t, user, "POST", "/api/products/"+id+"/publish", map[string]any{"requireEmail": true, "allowDeepLinks": false})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	pub := decodeAs[publishReply](t, r.Data)
	require.Equal(t, creationBase+"/v/"+pub.Slug, pub.ShareURL)
	require.Equal(t, creationBase+"/v/"+pub.Slug+"/qr.png", pub.QRURL)
	require.Contains(t, pub.EmbedCode, `src="`+creationBase+`/embed/`+pub.Slug+`"`)
	require.Equal(t, 1, pub.Version)
	require.True(t, pub.RequireEmail)
	require.False(t, pub.AllowDeepLinks)
	require.False(t, pub.Locked)

	page := s.shopper(t, "GET", "/v/"+pub.Slug+"?variant=v2", "")
	require.Equal(t, http.StatusOK, page.Code)
	require.Equal(t, publish.CSPShare, page.Header().Get("Content-Security-Policy"))
	body := page.Body.String()
	mv := viewerTag.FindString(body)
	require.Contains(t, mv, `variant-name="v1"`, "deep links not allowed: ?variant= is ignored")
	require.NotContains(t, mv, ` src="`, "email gate: the model waits for the email")
	require.Contains(t, body, `id="gate"`)
	require.Contains(t, body, publish.ConsentText("Photo3D"))
	// Hostile names, hotspot text and SKU arrive as text, never as markup.
	for _, bad := range []string{"<script>alert", "<img src=x", "<b>", "<i>"} {
		require.NotContains(t, body, bad)
	}
	require.Contains(t, body, `&lt;/script&gt;&lt;script&gt;alert(3)&lt;/script&gt;`)
	require.Contains(t, body, `&#34;quoted&#34; &amp; &lt;i&gt;`)
	require.Contains(t, body, `slot="hotspot-h1"`)
	require.Contains(t, body, `data-position="0.1m 0.2m 0.3m"`)
	require.Contains(t, body, `<a class="p3d-buy" href="/v/`+pub.Slug+`/go/l1"`)
	// No inline script: only the bundled module and data blocks.
	for _, tag := range regexp.MustCompile(`<script[^>]*>`).FindAllString(body, -1) {
		require.Regexp(t, `src="/assets/product-test.js"|type="application/json"|type="application/ld\+json"`, tag)
	}

	rec, r = s.json(t, user, "POST", "/api/products/"+id+"/publish", map[string]any{"requireEmail": true, "allowDeepLinks": true})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Equal(t, pub.Slug, decodeAs[publishReply](t, r.Data).Slug)
	mv = viewerTag.FindString(s.shopper(t, "GET", "/v/"+pub.Slug+"?variant=v2", "").Body.String())
	require.Contains(t, mv, `variant-name="v2"`, "deep link allowed")
	require.Contains(t, mv, `data-src="/v/`+pub.Slug+`/ar/v2.glb"`,
		"the model shown (and opened by Scene Viewer) is the variant's own GLB")
	deep := s.shopper(t, "GET", "/embed/"+pub.Slug+"?variant=v2", "").Body.String()
	require.Contains(t, deep, `id="price">$129</p>`)
	require.Contains(t, deep, `href="/v/`+pub.Slug+`/go/l2"`, "the variant's own links")
	require.NotContains(t, deep, `class="p3d-buy" href="/v/`+pub.Slug+`/go/l1"`, "not the product's")
	require.Contains(t, viewerTag.FindString(s.shopper(t, "GET", "/v/"+pub.Slug+"?variant=v9", "").Body.String()), `variant-name="v1"`)

	// The product detail shows the publication and the timeline says so.
	var withPub struct {
		Publication *publishReply `json:"publication"`
		Timeline    []struct {
			Kind, Detail string
		} `json:"timeline"`
	}
	require.NoError(t, json.Unmarshal(s.ok(t, user, "GET", "/api/products/"+id, nil), &withPub))
	require.Equal(t, pub.Slug, withPub.Publication.Slug)
	require.Equal(t, "published", withPub.Timeline[len(withPub.Timeline)-1].Kind)
	require.Equal(t, "/v/"+pub.Slug, withPub.Timeline[len(withPub.Timeline)-1].Detail)

	// AR files: one per variant, each with that variant's materials, valid
	// (behind the email gate: with the token it issues), made by the worker.
	gt := s.gateToken(t, pub.Slug, "ar-files@example.com")
	startModelWorker(t, s.env, s.env.Store)
	ar1 := s.readyFile(t, "/v/"+pub.Slug+"/ar/v1.glb?gt="+gt)
	ar2 := s.readyFile(t, "/v/"+pub.Slug+"/ar/v2.glb?gt="+gt)
	require.Equal(t, http.StatusOK, ar1.Code)
	require.Equal(t, http.StatusOK, ar2.Code)
	require.Equal(t, "model/gltf-binary", ar2.Header().Get("Content-Type"))
	require.NotEqual(t, ar1.Body.Bytes(), ar2.Body.Bytes())
	require.Contains(t, ar2.Body.String(), `"name":"snow-white"`)
	require.NotContains(t, ar2.Body.String(), "KHR_materials_variants")
	gltfvalidate.Validate(t, ar1.Body.Bytes())
	gltfvalidate.Validate(t, ar2.Body.Bytes())
	require.Equal(t, http.StatusNotFound, s.shopper(t, "GET", "/v/"+pub.Slug+"/ar/v9.glb", "").Code)

	// Buy buttons redirect to the stored URL only.
	goRec := s.shopper(t, "GET", "/v/"+pub.Slug+"/go/l1?url=https://evil.example/&to=https://evil.example/", "")
	require.Equal(t, http.StatusFound, goRec.Code)
	require.Equal(t, "https://www.amazon.com/dp/B0TEST", goRec.Header().Get("Location"))
	require.Equal(t, http.StatusNotFound, s.shopper(t, "GET", "/v/"+pub.Slug+"/go/l99", "").Code)
	require.Equal(t, http.StatusNotFound, s.shopper(t, "GET", "/v/"+pub.Slug+"/go/https:%2F%2Fevil.example", "").Code)

	// Snapshots: a locked version keeps showing what was published.
	s.ok(t, user, "POST", "/api/publications/"+pub.PublicationID+"/lock", map[string]any{"version": 1})
	s.ok(t, user, "PATCH", "/api/products/"+id+"/variants/v2", map[string]any{"price": 99})
	require.Contains(t, s.shopper(t, "GET", "/embed/"+pub.Slug+"?variant=v2", "").Body.String(), `id="price">$129</p>`, "locked")
	s.ok(t, user, "POST", "/api/publications/"+pub.PublicationID+"/lock", map[string]any{"version": 0})
	require.Contains(t, s.shopper(t, "GET", "/embed/"+pub.Slug+"?variant=v2", "").Body.String(), `id="price">$99</p>`, "live again")
	v2 := decodeAs[publishReply](t, s.ok(t, user, "POST", "/api/publications/"+pub.PublicationID+"/versions", nil))
	require.Equal(t, 2, v2.Version)

	// Unpublished: the page, AR files and redirects stop.
	s.ok(t, user, "DELETE", "/api/publications/"+pub.PublicationID, nil)
	for _, path := range []string{"/v/" + pub.Slug, "/v/" + pub.Slug + "/ar/v1.glb", "/v/" + pub.Slug + "/go/l1"} {
		require.Equal(t, http.StatusNotFound, s.shopper(t, "GET", path, "").Code, path)
	}
}

// Issue 29 item 20: one shopper is one lead per product, whether they left
// the address on the share page, in an embed or on the page published again
// under a new link; the lead keeps the latest surface and variant. The CSV is
// named after the product and the day and reads names, not ids.
func TestLeadsOnePerShopperAcrossSurfacesAndNamedExport(t *testing.T) {
	t.Parallel()
	s := newProductPubStack(t)
	user, id := s.readyProduct(t, "Brass Lamp: Ø 20 cm")
	startTrialFor(t, s.creationStack, user)
	s.ok(t, user, "POST", "/api/products/"+id+"/variants", map[string]any{"name": "Matte black", "material": "matte-black"})
	pub := decodeAs[publishReply](t, s.ok(t, user, "POST", "/api/products/"+id+"/publish", map[string]any{"requireEmail": true}))

	require.Equal(t, http.StatusOK, s.shopper(t, "POST", "/v/"+pub.Slug+"/lead", `{"email":"Asha@example.com","consent":true,"variantId":"v1"}`).Code)
	require.Equal(t, http.StatusOK, s.shopper(t, "POST", "/v/"+pub.Slug+"/lead", `{"email":"asha@example.com","consent":true,"variantId":"v2","surface":"embed"}`).Code)
	// Published again: a new publication, the same shopper.
	s.ok(t, user, "DELETE", "/api/publications/"+pub.PublicationID, nil)
	again := decodeAs[publishReply](t, s.ok(t, user, "POST", "/api/products/"+id+"/publish", map[string]any{"requireEmail": true}))
	require.NotEqual(t, pub.PublicationID, again.PublicationID)
	require.Equal(t, http.StatusOK, s.shopper(t, "POST", "/v/"+again.Slug+"/lead", `{"email":"ASHA@example.com","consent":true,"variantId":"v2","surface":"embed"}`).Code)
	require.Equal(t, http.StatusOK, s.shopper(t, "POST", "/v/"+again.Slug+"/lead", `{"email":"ravi@example.com","consent":true,"surface":"<script>"}`).Code)

	type leadList struct {
		Items []struct{ Email, VariantID, Surface string } `json:"items"`
	}
	leads := decodeAs[leadList](t, s.ok(t, user, "GET", "/api/products/"+id+"/leads", nil))
	require.Len(t, leads.Items, 2, "the same shopper through page, embed and a new link is one lead")
	byEmail := map[string]string{}
	for _, l := range leads.Items {
		byEmail[strings.ToLower(l.Email)] = l.VariantID + "/" + l.Surface
	}
	require.Equal(t, map[string]string{"asha@example.com": "v2/embed", "ravi@example.com": "/page"}, byEmail)
	var captured int
	require.NoError(t, s.env.DB.Pool.QueryRow(context.Background(),
		`SELECT count(*) FROM events WHERE type = 'product.lead_captured.v1'`).Scan(&captured))
	require.Equal(t, 2, captured, "no second lead.captured (and webhook) for a returning shopper")

	rec, _ := s.call(t, user, "GET", "/api/products/"+id+"/leads.csv", "", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, `attachment; filename="leads-brass-lamp-20-cm-`+time.Now().UTC().Format(time.DateOnly)+`.csv"`, rec.Header().Get("Content-Disposition"))
	recs, err := csv.NewReader(bytes.NewReader(rec.Body.Bytes())).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, 3)
	rows := map[string][]string{}
	for _, r := range recs[1:] {
		rows[strings.ToLower(r[0])] = r[1:4]
	}
	require.Equal(t, []string{"Brass Lamp: Ø 20 cm", "Matte black", "embed"}, rows["asha@example.com"])
	require.Equal(t, []string{"Brass Lamp: Ø 20 cm", "", "page"}, rows["ravi@example.com"])
}

func TestLeadsAreCapturedListedExportedAndOwnerScoped(t *testing.T) {
	t.Parallel()
	s := newProductPubStack(t)
	user, id := s.readyProduct(t, "Lamp")
	startTrialFor(t, s.creationStack, user)
	pub := decodeAs[publishReply](t, s.ok(t, user, "POST", "/api/products/"+id+"/publish", map[string]any{"requireEmail": true}))
	lead := "/v/" + pub.Slug + "/lead"

	for _, c := range []struct{ body, code string }{
		{`{"email":"not-an-email","consent":true}`, "invalid_email"},
		{`{"email":"Shopper <a@example.com>","consent":true}`, "invalid_email"},
		{`{"email":"a@localhost","consent":true}`, "invalid_email"},
		{`{"email":"` + strings.Repeat("a", 250) + `@example.com","consent":true}`, "invalid_email"},
		{`{"email":"a@example.com","consent":false}`, "consent_required"},
		{`{"email":"a@example.com","consent":true} {"email":"b@example.com"}`, "invalid_body"},
	} {
		rec := s.shopper(t, "POST", lead, c.body)
		require.Equal(t, http.StatusBadRequest, rec.Code, c.body)
		require.Contains(t, rec.Body.String(), `"code":"`+c.code+`"`, c.body)
	}
	require.Equal(t, http.StatusOK, s.shopper(t, "POST", lead, `{"email":"=cmd@example.com","consent":true,"variantId":"v1"}`).Code)
	require.Equal(t, http.StatusOK, s.shopper(t, "POST", lead, `{"email":"shopper@example.com","consent":true}`).Code)
	require.Equal(t, http.StatusNotFound, s.shopper(t, "POST", "/v/AAAAAAAAAAAAAAAAAAAA/lead", `{"email":"a@example.com","consent":true}`).Code)

	// The log knows a lead was captured, never who.
	var logged []string
	rows, err := s.env.DB.Pool.Query(context.Background(), `SELECT data::text FROM events WHERE type = 'product.lead_captured.v1'`)
	require.NoError(t, err)
	for rows.Next() {
		var d string
		require.NoError(t, rows.Scan(&d))
		logged = append(logged, d)
	}
	require.NoError(t, rows.Err())
	require.Len(t, logged, 2)
	for _, d := range logged {
		require.NotContains(t, d, "@example.com")
		require.Contains(t, d, id)
	}

	type leadList struct {
		Items []struct{ ID, Email, VariantID string } `json:"items"`
	}
	leads := decodeAs[leadList](t, s.ok(t, user, "GET", "/api/products/"+id+"/leads", nil))
	require.Len(t, leads.Items, 2)
	require.ElementsMatch(t, []string{"=cmd@example.com", "shopper@example.com"}, []string{leads.Items[0].Email, leads.Items[1].Email})

	rec, _ := s.call(t, user, "GET", "/api/products/"+id+"/leads.csv", "", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, "text/csv; charset=utf-8", rec.Header().Get("Content-Type"))
	recs, err := csv.NewReader(bytes.NewReader(rec.Body.Bytes())).ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"email", "product", "variant", "surface", "createdAt"}, recs[0])
	require.Len(t, recs, 3)
	require.Contains(t, rec.Body.String(), "'=cmd@example.com", "a formula-looking cell is defused")

	// Another merchant sees none of it and can delete nothing.
	stranger := s.env.User(t)
	for _, c := range []struct{ method, path string }{
		{"GET", "/api/products/" + id + "/leads"}, {"GET", "/api/products/" + id + "/leads.csv"},
		{"DELETE", "/api/products/" + id + "/leads/" + leads.Items[0].ID}, {"POST", "/api/products/" + id + "/publish"},
	} {
		rec, _ := s.json(t, stranger, c.method, c.path, map[string]any{})
		require.Equal(t, http.StatusNotFound, rec.Code, c.method+" "+c.path)
	}
	require.Len(t, decodeAs[leadList](t, s.ok(t, user, "GET", "/api/products/"+id+"/leads", nil)).Items, 2)

	s.ok(t, user, "DELETE", "/api/products/"+id+"/leads/"+leads.Items[0].ID, nil)
	rec, _ = s.json(t, user, "DELETE", "/api/products/"+id+"/leads/"+leads.Items[0].ID, nil)
	require.Equal(t, http.StatusNotFound, rec.Code)
	require.Len(t, decodeAs[leadList](t, s.ok(t, user, "GET", "/api/products/"+id+"/leads", nil)).Items, 1)
}
