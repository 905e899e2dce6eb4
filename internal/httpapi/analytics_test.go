package httpapi_test

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/analytics"
	"github.com/photo3d/photo3d/internal/auth"
	"github.com/photo3d/photo3d/internal/httpapi"
	"github.com/photo3d/photo3d/internal/publish/publishtest"
)

// anaBundle is the publishing stack with shopper analytics stored for real.
type anaBundle struct {
	pubBundle
	w *analytics.Writer
	c *analytics.Collector
}

func anaSetup(t *testing.T) anaBundle {
	t.Helper()
	env := publishtest.New(t)
	tokens := auth.NewTokens([]byte("0123456789abcdef0123456789abcdef"), publishtest.BaseURL)
	w := analytics.NewWriter(env.DB.Pool, nil, analytics.WriterConfig{})
	c := &analytics.Collector{Writer: w, Pubs: httpapi.PublicationsOf(env.Pages), OwnHost: "photo3d.test"}
	h := httpapi.NewRouter(httpapi.Deps{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), DB: env.DB.Pool,
		Tokens: tokens, Publications: env.Service, PublicPages: env.Pages, Subscriptions: env.Subs,
		Shoppers:  c,
		Analytics: &analytics.Reader{DB: env.DB.Pool}})
	return anaBundle{pubBundle: pubBundle{Env: env, h: h, tokens: tokens}, w: w, c: c}
}

// post sends one beacon body from ip with headers and returns the status.
func (b anaBundle) post(t *testing.T, body, ip, ua string, hdr ...string) int {
	t.Helper()
	return b.postBeacon(body, ip, ua, hdr...).Code
}

func batch(slug, viewer, extra string, events ...string) string {
	return fmt.Sprintf(`{"v":1,"slug":%q,"viewer":%q%s,"events":[%s]}`, slug, viewer, extra, strings.Join(events, ","))
}

func evt(t string, fields ...string) string {
	return fmt.Sprintf(`{"t":%q,"at":%d%s}`, t, time.Now().UnixMilli(), strings.Join(fields, ""))
}

// stored flushes the buffer, rolls today up and counts raw rows.
func (b anaBundle) stored(t *testing.T) int {
	t.Helper()
	require.NoError(t, b.w.Flush(b.Ctx))
	_, err := analytics.Rollup(b.Ctx, b.DB.Pool, time.Now())
	require.NoError(t, err)
	var n int
	require.NoError(t, b.DB.Pool.QueryRow(b.Ctx, `SELECT count(*) FROM shopper_events`).Scan(&n))
	return n
}

func TestBeaconEndpoint(t *testing.T) {
	t.Parallel()
	b := anaSetup(t)
	owner := b.Owner(t, "pro")
	p := b.Publish(t, owner, b.Blueprint(t, owner, "Sofa"))
	v := "viewer-beacon-test-0001"

	require.Equal(t, http.StatusNoContent, b.post(t, batch(p.Slug, v, `,"tz":"Asia/Kolkata"`, evt("view"), evt("interact")), "192.0.2.1", browserUA))
	require.Equal(t, 2, b.stored(t))

	// Refused whole: malformed, unknown slug, other body types, too big.
	bad := []string{
		batch(p.Slug, v, "", evt("view"), `{"t":"visible","at":1,"ms":5}`),
		batch(p.Slug, v, "", evt("view")) + "garbage",
		`{"v":1}`,
	}
	for _, body := range bad {
		require.Equal(t, http.StatusBadRequest, b.post(t, body, "192.0.2.1", browserUA), body)
	}
	require.Equal(t, http.StatusNotFound, b.post(t, batch("AAAAAAAAAAAAAAAAAAAAAA", v, "", evt("view")), "192.0.2.1", browserUA))
	req := httptest.NewRequest("POST", "/t", strings.NewReader(batch(p.Slug, v, "", evt("view"))))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	b.h.ServeHTTP(rec, req)
	require.Equal(t, http.StatusUnsupportedMediaType, rec.Code)
	require.Equal(t, http.StatusRequestEntityTooLarge,
		b.post(t, batch(p.Slug, v, `,"ref":"`+strings.Repeat("x", analytics.MaxBatchBytes)+`"`, evt("view")), "192.0.2.1", browserUA))
	require.Equal(t, 2, b.stored(t), "nothing of a refused batch is stored")

	// Bots and unfurlers: accepted and dropped.
	require.Equal(t, http.StatusNoContent, b.post(t, batch(p.Slug, "viewer-bot-00000000001", "", evt("view")), "192.0.2.2", "facebookexternalhit/1.1"))
	require.Equal(t, 2, b.stored(t))

	// Do-Not-Track / Global Privacy Control: only the view is kept.
	for _, h := range []string{"DNT", "Sec-GPC"} {
		require.Equal(t, http.StatusNoContent, b.post(t, batch(p.Slug, "viewer-private-"+strings.ToLower(h)+"-0001", "",
			evt("view"), evt("interact"), evt("hotspot", `,"hotspot":"h1"`)), "192.0.2.3", browserUA, h, "1"))
	}
	require.Equal(t, 4, b.stored(t))

	// Per-viewer rate limit (240 events a minute; 50 a batch at most).
	var events []string
	for range analytics.MaxBatchEvents {
		events = append(events, evt("interact"))
	}
	flood := batch(p.Slug, "viewer-flooding-000001", "", events...)
	codes := map[int]int{}
	for range 6 {
		codes[b.post(t, flood, "192.0.2.4", browserUA)]++
	}
	require.Equal(t, map[int]int{http.StatusNoContent: 4, http.StatusTooManyRequests: 2}, codes)

	// The stored row carries dimensions, never the address.
	var device, region, source string
	require.NoError(t, b.DB.Pool.QueryRow(b.Ctx, `SELECT device, region, source FROM shopper_events WHERE viewer = $1 LIMIT 1`, v).Scan(&device, &region, &source))
	require.Equal(t, []string{"desktop", "IN", "direct"}, []string{device, region, source})
	var leaks int
	require.NoError(t, b.DB.Pool.QueryRow(b.Ctx, `SELECT count(*) FROM shopper_events WHERE row_to_json(shopper_events.*)::text LIKE '%192.0.2.%'`).Scan(&leaks))
	require.Zero(t, leaks, "IP addresses are never stored")
}

func TestAnalyticsAPIAndPlanGating(t *testing.T) {
	t.Parallel()
	b := anaSetup(t)
	owner := b.Owner(t, "trial")
	p := b.Publish(t, owner, b.Blueprint(t, owner, "Lamp"))
	// Three shoppers: one engaged buyer via AR, one looker, one repeat.
	require.Equal(t, 204, b.post(t, batch(p.Slug, "viewer-buyer-000000001", `,"utm":"insta"`, evt("view"), evt("interact"),
		evt("ar", `,"mode":"webxr"`), evt("visible", `,"ms":11000`)), "192.0.2.10", browserUA))
	require.Equal(t, 204, b.post(t, batch(p.Slug, "viewer-looker-00000001", "", evt("view")), "192.0.2.11",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148"))
	require.Equal(t, 204, b.post(t, batch(p.Slug, "viewer-looker-00000001", "", evt("view")), "192.0.2.11", browserUA))
	b.stored(t)

	get := func(user, path string) (*httptest.ResponseRecorder, apiReply) {
		return b.call(t, user, "GET", path, "")
	}
	rec, rep := get(owner, "/api/analytics?range=30d")
	require.Equal(t, 200, rec.Code, rec.Body.String())
	var pl analytics.Payload
	require.NoError(t, json.Unmarshal(rep.Data, &pl))
	require.Equal(t, analytics.TierPremium, pl.Plan, "a trial is premium")
	require.EqualValues(t, 2, pl.KPIs.Shoppers)
	require.EqualValues(t, 1, pl.KPIs.Engaged)
	require.EqualValues(t, 1, pl.KPIs.Opportunities)
	require.Nil(t, pl.KPIs.EngagementUplift, "under 100 shoppers: a dash")
	require.Equal(t, int64(1), pl.Charts.ProgressLadder.Steps[3].Value)
	require.Contains(t, rec.Body.String(), `"topRegions":[`)
	require.Contains(t, rec.Body.String(), `"regionSource":"time-zone"`, "no country header configured")
	b.c.CountryHeader = "CF-IPCountry"
	rec, _ = get(owner, "/api/analytics?range=30d")
	require.Contains(t, rec.Body.String(), `"regionSource":"proxy-header"`)
	b.c.CountryHeader = ""

	rec, rep = get(owner, "/api/analytics?device=mobile")
	require.Equal(t, 200, rec.Code)
	require.NoError(t, json.Unmarshal(rep.Data, &pl))
	require.EqualValues(t, 1, pl.KPIs.Shoppers)
	rec, _ = get(owner, "/api/analytics/export.csv")
	require.Equal(t, 200, rec.Code)
	require.True(t, strings.HasPrefix(rec.Body.String(), "Product,Product ID,From,To,Shoppers,Interacted,Engaged,High-Intent,ATC (Adds from 3D)"))
	rec, _ = get(owner, "/api/analytics/breakdowns")
	require.Equal(t, 200, rec.Code)
	require.Contains(t, rec.Body.String(), `"dimension":"source","value":"insta"`)

	for _, q := range []string{"range=1y", "from=2026-01-02&to=2026-01-01", "from=2020-01-01&to=2026-01-01", "device=fridge"} {
		rec, _ = get(owner, "/api/analytics?"+q)
		require.Equal(t, 400, rec.Code, q)
	}

	// Free: basic analytics, decided on the server.
	b.Downgrade(t, owner)
	rec, rep = get(owner, "/api/analytics")
	require.Equal(t, 200, rec.Code)
	require.NoError(t, json.Unmarshal(rep.Data, &pl))
	require.Equal(t, analytics.TierBasic, pl.Plan)
	require.EqualValues(t, 2, pl.KPIs.Shoppers)
	var kpis struct {
		KPIs map[string]any `json:"kpis"`
	}
	require.NoError(t, json.Unmarshal(rep.Data, &kpis))
	for _, field := range []string{"engagement_uplift", "adds_per_engaged", "best_variant_uplift", "geo_opportunity_index"} {
		require.NotContains(t, kpis.KPIs, field, "premium fields are left out")
	}
	require.Contains(t, rec.Body.String(), `"topRegions":[]`)
	for _, path := range []string{"/api/analytics?device=mobile", "/api/analytics?source=insta", "/api/analytics?region=IN",
		"/api/analytics/export.csv", "/api/analytics/breakdowns"} {
		rec, rep = get(owner, path)
		require.Equal(t, 403, rec.Code, path)
	}
	require.Equal(t, analytics.DrilldownMessage, rep.Error.Message)

	// Another merchant sees none of it.
	other := b.Owner(t, "pro")
	rec, rep = get(other, "/api/analytics")
	require.Equal(t, 200, rec.Code)
	require.NoError(t, json.Unmarshal(rep.Data, &pl))
	require.Zero(t, pl.KPIs.Shoppers)
	rec, _ = get("", "/api/analytics")
	require.Equal(t, 401, rec.Code)
}

// Buy-link clicks are recorded at the redirect (the hook the redirect handler
// calls) with the store platform; bots and unknown links are not.
func TestBuyClickHookRecordsClicks(t *testing.T) {
	t.Parallel()
	b := anaSetup(t)
	owner := b.Owner(t, "pro")
	p := b.Publish(t, owner, b.Blueprint(t, owner, "Stool"))
	hook := b.c.BuyClickHook()
	req := httptest.NewRequest("GET", "/v/"+p.Slug+"/go/l1?vid=viewer-clicker-0000001", nil)
	req.Header.Set("User-Agent", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148")
	hook(req, p.Slug, "https://www.etsy.com/listing/1", "v2")
	b.c.Lead(req, p.Slug, "not a valid id!")
	bot := httptest.NewRequest("GET", "/v/"+p.Slug+"/go/l1", nil)
	bot.Header.Set("User-Agent", "facebookexternalhit/1.1")
	hook(bot, p.Slug, "https://www.etsy.com/listing/1", "")
	hook(req, "AAAAAAAAAAAAAAAAAAAAAA", "https://www.etsy.com/listing/1", "")
	require.Equal(t, 2, b.stored(t))
	var kind, viewer, platform, variant, device string
	require.NoError(t, b.DB.Pool.QueryRow(b.Ctx, `SELECT kind, viewer, platform, variant, device FROM shopper_events WHERE kind = 'click'`).
		Scan(&kind, &viewer, &platform, &variant, &device))
	require.Equal(t, []string{"click", "viewer-clicker-0000001", "Etsy", "v2", "mobile"}, []string{kind, viewer, platform, variant, device})
	require.NoError(t, b.DB.Pool.QueryRow(b.Ctx, `SELECT viewer FROM shopper_events WHERE kind = 'lead'`).Scan(&viewer))
	require.Equal(t, "anonymous", viewer, "an invalid id is not stored as given")
}

// A browser whose clock runs ahead cannot date its events after the moment
// the server received them: an AR launch stored "after" the buy click the
// server timed itself would not count as a feature preceding the click.
func TestBeaconTimesAreCappedAtReceipt(t *testing.T) {
	t.Parallel()
	b := anaSetup(t)
	owner := b.Owner(t, "pro")
	p := b.Publish(t, owner, b.Blueprint(t, owner, "Clock"))
	ahead := time.Now().Add(3 * time.Minute).UnixMilli() // within the allowed skew
	before := time.Now()
	require.Equal(t, http.StatusNoContent, b.post(t, batch(p.Slug, "viewer-fast-clock-0001", "", evt("view"),
		fmt.Sprintf(`{"t":"ar","at":%d,"mode":"webxr"}`, ahead)), "192.0.2.40", browserUA))
	after := time.Now()
	require.Equal(t, 2, b.stored(t))
	var at time.Time
	require.NoError(t, b.DB.Pool.QueryRow(b.Ctx, `SELECT at FROM shopper_events WHERE kind = 'ar'`).Scan(&at))
	require.False(t, at.Before(before.Truncate(time.Millisecond)), "stored at %s", at)
	require.False(t, at.After(after), "stored at %s, after the server received it (%s)", at, after)
}

// Issue 50 item 7: the Business Overview's numbers agree with each other and
// with the CSV, which names what the shoppers looked at. Shoppers go through
// the real beacon endpoint and buy-link hook with the behaviours that made
// the screen contradict itself: a hotspot without turning the model, a click
// without any interaction, several features before one click.
func TestAnalyticsScreenAgreesWithCSV(t *testing.T) {
	t.Parallel()
	b := anaSetup(t)
	owner := b.Owner(t, "pro")
	lamp := b.Publish(t, owner, b.Blueprint(t, owner, "Desk lamp"))
	sofa := b.Publish(t, owner, b.Blueprint(t, owner, "Velvet sofa"))
	hook := b.c.BuyClickHook()
	click := func(slug, viewer string) {
		req := httptest.NewRequest("GET", "/v/"+slug+"/go/l1?vid="+viewer, nil)
		req.Header.Set("User-Agent", browserUA)
		hook(req, slug, "https://www.etsy.com/listing/1", "")
	}
	shoppers := []struct {
		slug, viewer string
		events       []string
		clicks       int
	}{
		{lamp.Slug, "viewer-hotspot-buyer-01", []string{evt("view"), evt("hotspot", `,"hotspot":"h1"`)}, 1},
		{lamp.Slug, "viewer-blind-buyer-0001", []string{evt("view")}, 1},
		{lamp.Slug, "viewer-long-looker-0001", []string{evt("view"), evt("interact"), evt("visible", `,"ms":11000`)}, 0},
		{lamp.Slug, "viewer-ar-looker-000001", []string{evt("view"), evt("interact"), evt("ar", `,"mode":"webxr"`)}, 0},
		{sofa.Slug, "viewer-everything-00001", []string{evt("view"), evt("interact"), evt("variant", `,"variant":"v2"`),
			evt("hotspot", `,"hotspot":"h2"`), evt("ar", `,"mode":"webxr"`)}, 2},
		{sofa.Slug, "viewer-glance-000000001", []string{evt("view"), evt("interact")}, 0},
	}
	for i, s := range shoppers {
		require.Equal(t, http.StatusNoContent, b.post(t, batch(s.slug, s.viewer, `,"tz":"Europe/Berlin"`, s.events...),
			fmt.Sprintf("192.0.2.%d", 60+i), browserUA))
	}
	b.stored(t) // the hook's clicks must come after the actions they follow
	time.Sleep(5 * time.Millisecond)
	for _, s := range shoppers {
		for range s.clicks {
			click(s.slug, s.viewer)
		}
	}
	b.stored(t)

	payload := func(q string) analytics.Payload {
		t.Helper()
		rec, rep := b.call(t, owner, "GET", "/api/analytics?range=7d"+q, "")
		require.Equal(t, 200, rec.Code, rec.Body.String())
		var p analytics.Payload
		require.NoError(t, json.Unmarshal(rep.Data, &p))
		return p
	}
	p := payload("")
	steps := map[string]int64{}
	for _, s := range p.Charts.ProgressLadder.Steps {
		steps[s.Key] = s.Value
	}
	require.Equal(t, map[string]int64{"Viewed": 6, "Interacted": 5, "Engaged": 4, "High-Intent": 3, "ATC": 2}, steps,
		"a funnel: the hotspot opener interacted; the blind buyer is no add; the glance is not engaged")
	require.EqualValues(t, 2, p.KPIs.AddsFrom3D, "the same adds as ATC")
	require.EqualValues(t, 2, p.KPIs.Opportunities, "engaged, not added")
	// hotspot buyer: hotspot h1; everything: variant, hotspot h2, AR, turned: 5 uses.
	var sum float64
	for _, f := range p.Charts.Snapshot.TopFeaturesAdding {
		sum += f.Share
	}
	require.InDelta(t, 100.0, sum, 1e-9, "%+v", p.Charts.Snapshot.TopFeaturesAdding)
	require.Len(t, p.Charts.Snapshot.TopFeaturesAdding, 5)
	for _, key := range []string{"shoppers", "engaged", "opportunities", "adds_from_3d", "Viewed", "Interacted", "Engaged", "High-Intent", "ATC",
		"topRegions", "topFeaturesAdding", "engagement_uplift", "adds_per_engaged", "best_variant_uplift", "geo_opportunity_index"} {
		d := p.Definitions[key]
		require.NotEmpty(t, d.Definition, key)
		require.NotEmpty(t, d.Unit, key)
	}
	require.Equal(t, "engaged per 1,000 shoppers", p.Definitions["topRegions"].Unit, "Top Regions' values have their unit")
	require.Equal(t, p.Definitions["adds_from_3d"].Unit, p.Definitions["ATC"].Unit)

	// The CSV: the screen's numbers, named.
	rec, _ := b.call(t, owner, "GET", "/api/analytics/export.csv?range=7d", "")
	require.Equal(t, 200, rec.Code)
	rows, err := csv.NewReader(strings.NewReader(rec.Body.String())).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 4, rec.Body.String())
	names := map[string]string{}
	for _, row := range rows[1:] {
		names[row[1]] = row[0]
		q := ""
		if row[1] != "" {
			q = "&sku=" + row[1]
		}
		want := payload(q)
		s := want.Charts.ProgressLadder.Steps
		require.Equal(t, []string{strconv.FormatInt(want.KPIs.Shoppers, 10), strconv.FormatInt(s[1].Value, 10), strconv.FormatInt(want.KPIs.Engaged, 10),
			strconv.FormatInt(s[3].Value, 10), strconv.FormatInt(want.KPIs.AddsFrom3D, 10), strconv.FormatInt(want.KPIs.Opportunities, 10)}, row[4:10],
			"CSV row %q is the screen%s", row[0], q)
	}
	require.Equal(t, map[string]string{"": "All products", lamp.BlueprintID: "Build: Desk lamp", sofa.BlueprintID: "Build: Velvet sofa"}, names)
	require.Equal(t, "4", rows[1][10], "buy-link clicks: 1 + 1 + 2")
}
