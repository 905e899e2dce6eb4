// Command shoppers drives synthetic shoppers through a published product's
// real public page, beacon endpoint and buy-link redirect on loopback, and
// prints the KPI values they caused (the same definitions the dashboard
// uses, internal/analytics). It also generates bulk events for the
// dashboard benchmark.
//
//	go run ./ops/shoppers simulate -url http://127.0.0.1:8080/v/SLUG -n 150 -seed 1 -json
//	go run ./ops/shoppers generate -db $DATABASE_URL -owner USER_ID -events 10000000
//	go run ./ops/shoppers dashboard -db $DATABASE_URL -owner USER_ID -runs 40
//	go run ./ops/shoppers rollup -db $DATABASE_URL   (days not rolled up yet, newest first)
//
// simulate gives every shopper its own viewer id and its own client address
// in X-Forwarded-For, so the api must run with TRUSTED_PROXIES=127.0.0.1/32
// (otherwise one loopback address hits the per-address ceiling of counted
// views, as an attacker would). The mix is chosen with flags; the expected
// numbers appear in the dashboard after the worker's next rollup (≤ 1 min).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/photo3d/photo3d/internal/analytics"
	"github.com/photo3d/photo3d/internal/catalog"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: shoppers simulate|generate|dashboard|rollup|calibrate [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "simulate":
		err = simulate(os.Args[2:], os.Stdout)
	case "generate":
		err = generate(os.Args[2:], os.Stdout)
	case "calibrate":
		err = calibrate(os.Args[2:])
	case "dashboard":
		err = dashboard(os.Args[2:], os.Stdout)
	case "rollup":
		err = rollupMissing(os.Args[2:], os.Stdout)
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "shoppers:", err)
		os.Exit(1)
	}
}

// Mix is the share of shoppers doing each thing (0..1).
type Mix struct {
	Mobile, Interact, LongVisit, Hotspot, Variant, AR, Click float64
	Zones, Sources                                           []string
}

var (
	buyLink    = regexp.MustCompile(`href="(/v/[A-Za-z0-9_-]+/go/[A-Za-z0-9_-]+)"`)
	hotspotID  = regexp.MustCompile(`slot="hotspot-([A-Za-z0-9_-]+)"`)
	variantIDs = regexp.MustCompile(`data-variant="([A-Za-z0-9_.:-]+)"`)
	// viewToken is the page's signed view token: /t refuses batches without it.
	viewToken = regexp.MustCompile(`<meta name="p3d-view-token" content="([^"]+)">`)
)

const (
	desktopUA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36 shoppers-sim"
	mobileUA  = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Mobile Safari/537.36 shoppers-sim"
)

func simulate(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	pageURL := fs.String("url", "", "share page URL on loopback, e.g. http://127.0.0.1:8080/v/SLUG")
	n := fs.Int("n", 150, "shoppers")
	seed := fs.Uint64("seed", 1, "random seed (same seed, same shoppers)")
	var m Mix
	fs.Float64Var(&m.Mobile, "mobile", 0.5, "share on phones")
	fs.Float64Var(&m.Interact, "interact", 0.7, "share who orbit/zoom")
	fs.Float64Var(&m.LongVisit, "long", 0.5, "share of interacting shoppers visible ≥ 10 s")
	fs.Float64Var(&m.Hotspot, "hotspot", 0.3, "share who open a hotspot (when the page has one)")
	fs.Float64Var(&m.Variant, "variant", 0.3, "share who change variant (when the page has two)")
	fs.Float64Var(&m.AR, "ar", 0.2, "share who launch AR")
	fs.Float64Var(&m.Click, "click", 0.3, "share who click a buy link (when the page has one)")
	zones := fs.String("zones", "Asia/Kolkata,America/New_York,Europe/Berlin", "browser time zones, round robin")
	sources := fs.String("sources", "instagram,newsletter,", "utm_source values, round robin (empty: direct)")
	asJSON := fs.Bool("json", false, "print the expected KPIs as JSON")
	expect := fs.Bool("expect", false, "print JSON {payload, product, stores}: the dashboard payload, the product page tiles and clicks per store (for tests)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	m.Zones, m.Sources = strings.Split(*zones, ","), strings.Split(*sources, ",")
	u, err := url.Parse(*pageURL)
	if err != nil || u.Host == "" {
		return errors.New("-url must be the share page URL")
	}
	if h := u.Hostname(); h != "127.0.0.1" && h != "localhost" && h != "::1" {
		return errors.New("simulate only talks to loopback addresses")
	}
	slug := strings.TrimPrefix(u.Path, "/v/")
	base := u.Scheme + "://" + u.Host
	client := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	rng := rand.New(rand.NewPCG(*seed, 14))
	var records []analytics.Shopper
	for i := range *n {
		s, err := oneShopper(client, base, slug, i, rng, m)
		if err != nil {
			return fmt.Errorf("shopper %d: %w", i, err)
		}
		records = append(records, s)
	}
	res := analytics.BuildPayload(analytics.Compute(records), analytics.TierPremium)
	if *expect {
		return json.NewEncoder(out).Encode(Expected{Payload: res, Product: productTiles(records), Stores: storeClicks(records)})
	}
	if *asJSON {
		return json.NewEncoder(out).Encode(res)
	}
	fmt.Fprintf(out, "shoppers %d, engaged %d, opportunities %d, adds_from_3d %d\n", res.KPIs.Shoppers, res.KPIs.Engaged, res.KPIs.Opportunities, res.KPIs.AddsFrom3D)
	for _, s := range res.Charts.ProgressLadder.Steps {
		fmt.Fprintf(out, "  %-12s %d\n", s.Key, s.Value)
	}
	return nil
}

// Expected is what -expect prints: what the dashboard, the product page's
// tiles and the store-attributed funnel should show for these shoppers.
type Expected struct {
	Payload analytics.Payload        `json:"payload"`
	Product analytics.ProductSummary `json:"product"`
	Stores  map[string]int64         `json:"stores"` // store platform → shoppers who clicked it
}

// productTiles is the product page's summary for shoppers of one product
// (the same rounding as analytics.Reader.Product).
func productTiles(records []analytics.Shopper) analytics.ProductSummary {
	var s analytics.ProductSummary
	var engaged, hot int64
	for _, r := range records {
		if !r.Counted {
			continue
		}
		s.Shoppers++
		s.Views++
		if r.Engaged() {
			engaged++
		}
		if len(r.Hotspots) > 0 {
			hot++
		}
		s.Clicks += int64(r.Clicks)
	}
	if s.Shoppers > 0 {
		s.Engagement = math.Round(float64(engaged)/float64(s.Shoppers)*100*10) / 10
		s.HotspotCTR = math.Round(float64(hot)/float64(s.Shoppers)*100*10) / 10
	}
	return s
}

func storeClicks(records []analytics.Shopper) map[string]int64 {
	m := map[string]int64{}
	for _, r := range records {
		for _, p := range r.Platforms {
			m[p]++
		}
	}
	return m
}

// oneShopper plays one shopper and returns what the dashboard should record.
func oneShopper(c *http.Client, base, slug string, i int, rng *rand.Rand, m Mix) (analytics.Shopper, error) {
	s := analytics.Shopper{Viewer: fmt.Sprintf("sim-shopper-%08d-%04x", i, rng.IntN(1<<16)), Counted: true}
	// 100 shoppers per /24: each counts, under the per-network ceiling of
	// counted views (publish.DefaultViewsPerNetwork, 200 per /24).
	addr := fmt.Sprintf("10.77.%d.%d", i/100, i%100+1)
	ua := desktopUA
	s.Device = analytics.DeviceDesktop
	if rng.Float64() < m.Mobile {
		ua, s.Device = mobileUA, analytics.DeviceMobile
	}
	zone := m.Zones[i%len(m.Zones)]
	s.Region = analytics.CountryOfZone(zone)
	src := m.Sources[i%len(m.Sources)]
	s.Source = analytics.SourceDirect
	if src != "" {
		s.Source = src
	}
	page := base + "/v/" + slug
	if src != "" {
		page += "?utm_source=" + url.QueryEscape(src)
	}
	body, err := get(c, page, addr, ua)
	if err != nil {
		return s, err
	}
	token := viewToken.FindStringSubmatch(body)
	if token == nil {
		return s, fmt.Errorf("GET %s: the page carries no view token", page)
	}
	links := buyLink.FindAllStringSubmatch(body, -1)
	hotspots := hotspotID.FindAllStringSubmatch(body, -1)
	var variants []string // distinct, the shown one first
	for _, m := range variantIDs.FindAllStringSubmatch(body, -1) {
		if !slices.Contains(variants, m[1]) {
			variants = append(variants, m[1])
		}
	}

	// The shopper's beacon events carry client times (ms) and the click is
	// timed by the server when it happens: date the events a little in the
	// past so that everything this shopper did precedes their click, as in a
	// browser, however fast loopback answers.
	now := time.Now().Add(-2 * time.Second).UnixMilli()
	evs := []map[string]any{{"t": "view", "at": now}}
	if rng.Float64() < m.Interact {
		s.Turned = true
		evs = append(evs, map[string]any{"t": "interact", "at": now + 1})
		ms := int64(4000)
		if rng.Float64() < m.LongVisit {
			ms = 12000
		}
		s.VisibleMs = ms
		evs = append(evs, map[string]any{"t": "visible", "at": now + 2, "ms": ms})
		s.ZoomBeforeClick = true
	}
	if len(hotspots) > 0 && rng.Float64() < m.Hotspot {
		h := hotspots[rng.IntN(len(hotspots))][1]
		s.Hotspots, s.HotspotsBeforeClick = []string{h}, []string{h}
		evs = append(evs, map[string]any{"t": "hotspot", "at": now + 3, "hotspot": h})
	}
	if len(variants) > 1 && rng.Float64() < m.Variant {
		v := variants[1+rng.IntN(len(variants)-1)]
		s.VariantChanged, s.VariantBeforeClick, s.Variants = true, true, []string{v}
		evs = append(evs, map[string]any{"t": "variant", "at": now + 4, "variant": v})
	}
	if rng.Float64() < m.AR {
		s.AR, s.ARBeforeClick = true, true
		evs = append(evs, map[string]any{"t": "ar", "at": now + 5, "mode": "webxr"})
	}
	batch, _ := json.Marshal(map[string]any{"v": 1, "slug": slug, "viewer": s.Viewer, "token": token[1], "tz": zone, "utm": src, "events": evs})
	if err := post(c, base+"/t", addr, ua, string(batch)); err != nil {
		return s, err
	}
	if len(links) > 0 && rng.Float64() < m.Click {
		link := links[rng.IntN(len(links))][1]
		code, store, err := redirect(c, base+link+"?vid="+s.Viewer, addr, ua)
		if err != nil {
			return s, err
		}
		if code != http.StatusFound {
			return s, fmt.Errorf("buy link %s: status %d", link, code)
		}
		s.Clicks = 1
		if p := catalog.DetectPlatform(store); p != nil {
			s.Platforms = []string{p.Label}
		}
	}
	if !s.Clicked() {
		s.ARBeforeClick, s.VariantBeforeClick, s.ZoomBeforeClick, s.HotspotsBeforeClick = false, false, false, nil
	}
	return s, nil
}

// send makes one request as the shopper at addr (X-Forwarded-For: the api
// trusts loopback with TRUSTED_PROXIES) and returns status and body.
func send(c *http.Client, method, u, addr, ua, body string) (int, string, error) {
	req, _ := http.NewRequest(method, u, strings.NewReader(body))
	req.Header.Set("User-Agent", ua)
	req.Header.Set("X-Forwarded-For", addr)
	if body != "" {
		// As sendBeacon from our page: text/plain, and the page's origin.
		req.Header.Set("Content-Type", "text/plain;charset=UTF-8")
		if pu, err := url.Parse(u); err == nil {
			req.Header.Set("Origin", pu.Scheme+"://"+pu.Host)
		}
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// redirect follows nothing: it returns the buy link's status and the store
// URL it points to (the click's store platform comes from it).
func redirect(c *http.Client, u, addr, ua string) (int, string, error) {
	req, _ := http.NewRequest("GET", u, nil)
	req.Header.Set("User-Agent", ua)
	req.Header.Set("X-Forwarded-For", addr)
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, resp.Header.Get("Location"), nil
}

func get(c *http.Client, u, addr, ua string) (string, error) {
	code, body, err := send(c, "GET", u, addr, ua, "")
	if err != nil {
		return "", err
	}
	if code != 200 {
		return "", fmt.Errorf("GET %s: status %d", u, code)
	}
	if !strings.Contains(body, "<model-viewer") {
		return "", fmt.Errorf("GET %s: no viewer (views exhausted?)", u)
	}
	return body, nil
}

func post(c *http.Client, u, addr, ua, body string) error {
	code, _, err := send(c, "POST", u, addr, ua, body)
	if err != nil {
		return err
	}
	if code != http.StatusNoContent {
		return fmt.Errorf("POST /t: status %d", code)
	}
	return nil
}

// generate writes synthetic events for one merchant straight into
// shopper_events (server-side generate_series, partitioned over -days days),
// then recomputes the rollup: the data set of the dashboard benchmark.
// Generated traffic (generate): each shopper-day is one viewer looking at
// one product on one day; viewers come back on other days (a pool of
// 60 % as many viewer ids as shopper-days), products are Zipf-like popular,
// the viewer's device, source and region are fixed per viewer and skewed.
const (
	genSlots   = 8    // event slots per shopper-day: view, interact, visible ×2, hotspot, variant, ar, click
	genPerDay  = 3.92 // kept slots on average (the WHERE below)
	genSources = "direct,instagram.com,google.com,newsletter,facebook.com,pinterest.com,tiktok.com,youtube.com,bing.com,reddit.com,houzz.com,blog.example"
	genRegions = "US,IN,DE,GB,FR,BR,CA,AU,JP,ES,IT,NL,MX,SE,PL,TR,KR,ID,ZA,AR,CH,BE,AT,NO,IE"
)

// genHash is a uniform number in [0,1) from a bigint expression and a salt
// (Postgres' own hashint8), so choices are repeatable and independent.
func genHash(expr string, salt int) string {
	return fmt.Sprintf("((hashint8((%s) * 64 + %d)::bigint + 2147483648)::float8 / 4294967296)", expr, salt)
}

// genSQL inserts the series slots [$5, $6] in one statement inside Postgres
// (no rows cross the wire; on a throwaway cluster with fsync off this runs at
// a few hundred thousand rows per second per core).
func genSQL() string {
	i, v := "(s / 8)", "((s / 8) % $7)"
	pick := func(list string, r string) string {
		return fmt.Sprintf("(string_to_array('%s', ','))[1 + floor(power(%s, 2) * %d)::int]", list, r, len(strings.Split(list, ",")))
	}
	return `
INSERT INTO shopper_events (at, user_id, publication_id, product_id, viewer, kind, counted, ms, hotspot, variant, mode, platform, device, source, region)
SELECT $2::timestamptz - (` + i + ` % $3) * interval '1 day' - (` + i + ` % 39000) * interval '1 second' + (s % 8) * interval '7 seconds',
       $1, 'pub-' || g.p, 'prod-' || g.p, 'gen-' || ` + v + `,
       (ARRAY['view','interact','visible','visible','hotspot','variant','ar','click'])[(s % 8) + 1],
       (s % 8) = 0 AND ` + genHash(i, 11) + ` < 0.95,
       CASE WHEN (s % 8) IN (2, 3) THEN 6000 ELSE 0 END,
       CASE WHEN (s % 8) = 4 THEN 'h' || floor(` + genHash(i, 12) + ` * 5)::int ELSE '' END,
       CASE WHEN (s % 8) IN (0, 5) THEN 'v' || floor(` + genHash("s", 13) + ` * 4)::int ELSE '' END,
       CASE WHEN (s % 8) = 6 THEN (ARRAY['webxr','scene-viewer','quick-look'])[1 + floor(` + genHash(i, 14) + ` * 3)::int] ELSE '' END,
       CASE WHEN (s % 8) = 7 THEN (ARRAY['Amazon','Etsy','Shopify Store','WooCommerce'])[1 + floor(` + genHash(i, 15) + ` * 4)::int] ELSE '' END,
       CASE WHEN ` + genHash(v, 16) + ` < 0.6 THEN 'mobile' WHEN ` + genHash(v, 16) + ` < 0.92 THEN 'desktop' ELSE 'tablet' END,
       ` + pick(genSources, genHash(v, 17)) + `,
       ` + pick(genRegions, genHash(v, 18)) + `
FROM generate_series($5::bigint, $6::bigint) AS s,
     LATERAL (SELECT floor(power(` + genHash(i, 19) + `, 2) * $4)::int AS p) g
WHERE (s % 8) IN (0, 2)
   OR ((s % 8) = 1 AND ` + genHash(i, 21) + ` < 0.7) OR ((s % 8) = 3 AND ` + genHash(i, 22) + ` < 0.5)
   OR ((s % 8) = 4 AND ` + genHash(i, 23) + ` < 0.3) OR ((s % 8) = 5 AND ` + genHash(i, 24) + ` < 0.2)
   OR ((s % 8) = 6 AND ` + genHash(i, 25) + ` < 0.1) OR ((s % 8) = 7 AND ` + genHash(i, 26) + ` < 0.12)`
}

func generate(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("generate", flag.ContinueOnError)
	dsn := dbFlag(fs)
	owner := fs.String("owner", "bench-owner", "merchant user id")
	events := fs.Int("events", 10_000_000, "events to generate (about)")
	days := fs.Int("days", 90, "spread over this many days back from today")
	products := fs.Int("products", 50, "products")
	ctx := context.Background()
	db, err := parseAndOpen(ctx, fs, args, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	today := time.Now().UTC().Truncate(24 * time.Hour)
	if err := analytics.EnsurePartitions(ctx, db, today.Add(-time.Duration(*days)*24*time.Hour), today.Add(24*time.Hour)); err != nil {
		return err
	}
	// The products the events name, live, so the dashboard's Top Products
	// (which ranks only the owner's live products) is timed with its real work.
	if _, err := db.Exec(ctx, `INSERT INTO products (id, user_id, catalog_id, name, source, status, created_at, updated_at)
		SELECT 'prod-' || p, $1, 'bench-catalog', 'Product ' || p, 'upload', 'ready', now(), now()
		FROM generate_series(0, $2 - 1) p ON CONFLICT (id) DO NOTHING`, *owner, *products); err != nil {
		return fmt.Errorf("generate products: %w", err)
	}
	start := time.Now()
	shopperDays := int64(float64(*events) / genPerDay)
	pool := max(shopperDays*6/10, 1)
	series := shopperDays * genSlots
	const chunk = 4_000_000
	q := genSQL()
	for off := int64(0); off < series; off += chunk {
		n := min(chunk, series-off)
		if _, err := db.Exec(ctx, q, *owner, today.Add(12*time.Hour), *days, *products, off, off+n-1, pool); err != nil {
			return fmt.Errorf("generate: %w", err)
		}
		fmt.Fprintf(out, "generated %d%% (%s)\n", (off+n)*100/series, time.Since(start).Round(time.Second))
	}
	var total int64
	if err := db.QueryRow(ctx, `SELECT count(*) FROM shopper_events WHERE user_id = $1`, *owner).Scan(&total); err != nil {
		return err
	}
	fmt.Fprintf(out, "%d events stored for %s in %s\n", total, *owner, time.Since(start).Round(time.Second))
	if _, err := db.Exec(ctx, `ANALYZE shopper_events`); err != nil {
		return err
	}
	rstart := time.Now()
	nd, err := analytics.RollupAll(ctx, db)
	if err != nil {
		return err
	}
	if _, err := db.Exec(ctx, `ANALYZE shopper_days; ANALYZE shopper_day_cells`); err != nil {
		return err
	}
	fmt.Fprintf(out, "rollup of %d days in %s\n", nd, time.Since(rstart).Round(time.Second))
	return nil
}

// dashboard times the dashboard query (Reader.Report, premium) for the
// three ranges and prints p50 and p95 per range.
func dashboard(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("dashboard", flag.ContinueOnError)
	dsn := dbFlag(fs)
	owner := fs.String("owner", "bench-owner", "merchant user id")
	runs := fs.Int("runs", 40, "queries per range")
	asJSON := fs.Bool("json", false, "print the 7d payload (premium) once instead of timing")
	exactBelow := fs.Int64("exact-below", 0, "override analytics.ExactBelow (-1: always exact)")
	ctx := context.Background()
	db, err := parseAndOpen(ctx, fs, args, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	rd := &analytics.Reader{DB: db, ExactBelow: *exactBelow}
	if *asJSON {
		f, err := analytics.ParseFilters(url.Values{}, analytics.TierPremium, time.Now())
		if err != nil {
			return err
		}
		p, err := rd.Report(ctx, *owner, f, analytics.TierPremium)
		if err != nil {
			return err
		}
		return json.NewEncoder(out).Encode(p)
	}
	return timeShapes(ctx, rd, *owner, *runs, *exactBelow, out)

}

// timeShapes times every dashboard query shape: the payload for each range
// (7d, 30d, 90d, a 30-day custom range ending 15 days ago) with no filter,
// each single filter, two filters, the four triples and all four filters,
// then the Breakdowns drawer and the product page tiles (also with three
// and four filters) and the dashboard's Top Products. It prints p50 and p95 per shape and whether the answer was
// approximate. The filter values are the owner's most common ones.
func timeShapes(ctx context.Context, rd *analytics.Reader, owner string, runs int, exactBelow int64, out io.Writer) error {
	common := func(col string) (string, error) {
		var v string
		err := rd.DB.QueryRow(ctx, `SELECT `+col+` FROM shopper_days WHERE user_id = $1 AND day >= current_date - 7
			GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`, owner).Scan(&v)
		return v, err
	}
	var sku, device, source, region string
	for _, x := range []struct {
		col string
		dst *string
	}{{"product_id", &sku}, {"device", &device}, {"source", &source}, {"region", &region}} {
		v, err := common(x.col)
		if err != nil {
			return fmt.Errorf("no shopper_days for %s: %w", owner, err)
		}
		*x.dst = v
	}
	now := time.Now()
	custom := url.Values{"from": {now.AddDate(0, 0, -44).Format(time.DateOnly)}, "to": {now.AddDate(0, 0, -15).Format(time.DateOnly)}}
	ranges := []struct {
		name string
		q    url.Values
	}{{"7d", url.Values{"range": {"7d"}}}, {"30d", url.Values{"range": {"30d"}}}, {"90d", url.Values{"range": {"90d"}}}, {"custom30", custom}}
	filters := []struct {
		name string
		kv   [][2]string
	}{
		{"none", nil}, {"sku", [][2]string{{"sku", sku}}}, {"device", [][2]string{{"device", device}}},
		{"source", [][2]string{{"source", source}}}, {"region", [][2]string{{"region", region}}},
		{"sku+device", [][2]string{{"sku", sku}, {"device", device}}}, {"source+region", [][2]string{{"source", source}, {"region", region}}},
		{"sku+device+source", [][2]string{{"sku", sku}, {"device", device}, {"source", source}}},
		{"sku+device+region", [][2]string{{"sku", sku}, {"device", device}, {"region", region}}},
		{"sku+source+region", [][2]string{{"sku", sku}, {"source", source}, {"region", region}}},
		{"device+source+region", [][2]string{{"device", device}, {"source", source}, {"region", region}}},
		{"all four", [][2]string{{"sku", sku}, {"device", device}, {"source", source}, {"region", region}}},
	}
	fmt.Fprintf(out, "owner %s  filters sku=%s device=%s source=%s region=%s  runs %d  exact-below %d\n", owner, sku, device, source, region, runs, exactBelow)
	fmt.Fprintf(out, "%-34s %10s %9s %9s  %s\n", "shape", "shoppers", "p50 ms", "p95 ms", "approximate")
	var worst time.Duration
	shapeRuns := runs
	shape := func(name string, fn func() (int64, bool, error)) error {
		var lat []time.Duration
		var n int64
		var approx bool
		for range shapeRuns {
			t0 := time.Now()
			v, a, err := fn()
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			lat = append(lat, time.Since(t0))
			n, approx = v, a
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		p95 := lat[min(len(lat)-1, (len(lat)*95+99)/100-1)]
		worst = max(worst, p95)
		fmt.Fprintf(out, "%-34s %10d %9.1f %9.1f  %v\n", name, n, ms(lat[len(lat)/2]), ms(p95), approx)
		return nil
	}
	for _, r := range ranges {
		for _, fl := range filters {
			q := url.Values{}
			for k, v := range r.q {
				q[k] = v
			}
			for _, kv := range fl.kv {
				q.Set(kv[0], kv[1])
			}
			f, err := analytics.ParseFilters(q, analytics.TierPremium, now)
			if err != nil {
				return err
			}
			if err := shape("report "+r.name+" "+fl.name, func() (int64, bool, error) {
				p, err := rd.Report(ctx, owner, f, analytics.TierPremium)
				return p.KPIs.Shoppers, p.Approximate, err
			}); err != nil {
				return err
			}
		}
	}
	f30, err := analytics.ParseFilters(url.Values{"range": {"30d"}}, analytics.TierPremium, now)
	if err != nil {
		return err
	}
	// The drawer and the tiles with no filter, three filters (the product
	// page sets the sku itself) and all four.
	f30three, f30four := f30, f30
	f30three.Device, f30three.Source, f30three.Region = device, source, region
	f30four.SKU, f30four.Device, f30four.Source, f30four.Region = sku, device, source, region
	for _, x := range []struct {
		name string
		f    analytics.Filters
	}{{"", f30}, {" device+source+region", f30three}, {" all four", f30four}} {
		if err := shape("breakdowns 30d"+x.name, func() (int64, bool, error) {
			b, a, err := rd.BreakdownsReport(ctx, owner, x.f)
			return int64(len(b)), a, err
		}); err != nil {
			return err
		}
		if x.f.SKU != "" {
			continue // the tiles' own sku filter
		}
		if err := shape("product tiles 30d"+x.name, func() (int64, bool, error) {
			p, err := rd.Product(ctx, owner, sku, x.f)
			return p.Shoppers, p.Approximate, err
		}); err != nil {
			return err
		}
	}
	if err := shape("top products (30d)", func() (int64, bool, error) {
		top, err := rd.TopProducts(ctx, owner, now, 5)
		return int64(len(top)), false, err
	}); err != nil {
		return err
	}
	fmt.Fprintf(out, "worst p95 %.1f ms\n", ms(worst))
	// The CSV export (not a dashboard view: it reads shopper_days, one line
	// per shopper-day) for the record, three runs.
	shapeRuns = min(runs, 3)
	for _, r := range []string{"7d"} { // 30d at 10 M events: minutes
		f, err := analytics.ParseFilters(url.Values{"range": {r}}, analytics.TierPremium, now)
		if err != nil {
			return err
		}
		if err := shape("csv export "+r+" (rows)", func() (int64, bool, error) {
			rows, err := rd.ExportRows(ctx, owner, f)
			return int64(len(rows)), false, err
		}); err != nil {
			return err
		}
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// rollupMissing rolls up, newest first, the last -days days that the
// rollup has not computed yet (an interrupted generate goes on from there).
func rollupMissing(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("rollup", flag.ContinueOnError)
	dsn := dbFlag(fs)
	days := fs.Int("days", 91, "days back from today")
	ctx := context.Background()
	db, err := parseAndOpen(ctx, fs, args, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	today := time.Now().UTC().Truncate(24 * time.Hour)
	start := time.Now()
	for i := range *days {
		d := today.Add(-time.Duration(i) * 24 * time.Hour)
		var done bool
		if err := db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM shopper_rollup_days WHERE day = $1)`, d).Scan(&done); err != nil {
			return err
		}
		if done {
			continue
		}
		n, err := analytics.Rollup(ctx, db, d)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "%s: %d shopper-days (%s)\n", d.Format(time.DateOnly), n, time.Since(start).Round(time.Second))
	}
	return nil
}

// dbFlag is the -db flag of the subcommands that talk to Postgres.
func dbFlag(fs *flag.FlagSet) *string {
	return fs.String("db", os.Getenv("DATABASE_URL"), "Postgres URL")
}

// parseAndOpen parses the subcommand's flags and opens the database.
func parseAndOpen(ctx context.Context, fs *flag.FlagSet, args []string, dsn *string) (*pgxpool.Pool, error) {
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	return pgxpool.New(ctx, *dsn)
}
