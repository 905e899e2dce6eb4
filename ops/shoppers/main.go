// Command shoppers drives synthetic shoppers through a published product's
// real public page, beacon endpoint and buy-link redirect on loopback, and
// prints the KPI values they caused (the same definitions the dashboard
// uses, internal/analytics). It also generates bulk events for the
// dashboard benchmark.
//
//	go run ./ops/shoppers simulate -url http://127.0.0.1:8080/v/SLUG -n 150 -seed 1 -json
//	go run ./ops/shoppers generate -db $DATABASE_URL -owner USER_ID -events 10000000
//	go run ./ops/shoppers dashboard -db $DATABASE_URL -owner USER_ID -runs 40
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
		fmt.Fprintln(os.Stderr, "usage: shoppers simulate|generate|dashboard [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "simulate":
		err = simulate(os.Args[2:], os.Stdout)
	case "generate":
		err = generate(os.Args[2:], os.Stdout)
	case "dashboard":
		err = dashboard(os.Args[2:], os.Stdout)
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
	addr := fmt.Sprintf("10.77.%d.%d", i/250, i%250+1)
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
		s.Interacted = true
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
	batch, _ := json.Marshal(map[string]any{"v": 1, "slug": slug, "viewer": s.Viewer, "tz": zone, "utm": src, "events": evs})
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
		req.Header.Set("Content-Type", "text/plain;charset=UTF-8")
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
func generate(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("generate", flag.ContinueOnError)
	dsn := fs.String("db", os.Getenv("DATABASE_URL"), "Postgres URL")
	owner := fs.String("owner", "bench-owner", "merchant user id")
	events := fs.Int("events", 10_000_000, "events to generate")
	days := fs.Int("days", 90, "spread over this many days back from today")
	products := fs.Int("products", 20, "products")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx := context.Background()
	db, err := pgxpool.New(ctx, *dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	today := time.Now().UTC().Truncate(24 * time.Hour)
	if err := analytics.EnsurePartitions(ctx, db, today.Add(-time.Duration(*days)*24*time.Hour), today.Add(24*time.Hour)); err != nil {
		return err
	}
	start := time.Now()
	// About 8 events per shopper: a view, an interaction, heartbeats, and for
	// some a hotspot, variant, AR or click.
	const perShopper = 8
	// 4.8 of the 8 slots per shopper are kept (see WHERE), so the series is
	// events × 8 / 4.8 long.
	const chunk = 1_600_000
	series := *events * 10 / 6
	for off := 0; off < series; off += chunk {
		n := min(chunk, series-off)
		_, err := db.Exec(ctx, `
INSERT INTO shopper_events (at, user_id, publication_id, product_id, viewer, kind, counted, ms, hotspot, variant, mode, platform, device, source, region)
SELECT $2::timestamptz - ((s / $5) % $3) * interval '1 day' + (s % $5) * interval '1 second',
       $1, 'pub-' || ((s / $5) % $4), 'prod-' || ((s / $5) % $4), 'gen-' || (s / $5),
       (ARRAY['view','interact','visible','visible','hotspot','variant','ar','click'])[(s % $5) + 1],
       (s % $5) = 0, CASE WHEN (s % $5) IN (2, 3) THEN 6000 ELSE 0 END,
       CASE WHEN (s % $5) = 4 THEN 'h' || ((s / $5) % 3) ELSE '' END,
       CASE WHEN (s % $5) = 5 THEN 'v' || ((s / $5) % 4) ELSE '' END,
       CASE WHEN (s % $5) = 6 THEN 'webxr' ELSE '' END,
       CASE WHEN (s % $5) = 7 THEN (ARRAY['Amazon','Etsy','Shopify Store'])[((s / $5) % 3) + 1] ELSE '' END,
       (ARRAY['mobile','desktop','tablet'])[((s / $5) % 3) + 1],
       (ARRAY['direct','instagram.com','newsletter','google.com'])[((s / $5) % 4) + 1],
       (ARRAY['IN','US','DE','GB','FR','BR'])[((s / $5) % 6) + 1]
FROM generate_series($6::bigint, $7::bigint) AS s
WHERE (s % $5) < 4 OR ((s % $5) = 4 AND (s / $5) % 10 < 3) OR ((s % $5) = 5 AND (s / $5) % 10 < 2)
   OR ((s % $5) = 6 AND (s / $5) % 10 = 9) OR ((s % $5) = 7 AND (s / $5) % 10 IN (0, 5))`,
			*owner, today.Add(12*time.Hour), *days, *products, perShopper, off, off+n-1)
		if err != nil {
			return fmt.Errorf("generate: %w", err)
		}
		fmt.Fprintf(out, "generated %d%% (%s)\n", (off+n)*100/series, time.Since(start).Round(time.Second))
	}
	var total int64
	if err := db.QueryRow(ctx, `SELECT count(*) FROM shopper_events WHERE user_id = $1`, *owner).Scan(&total); err != nil {
		return err
	}
	rstart := time.Now()
	nd, err := analytics.RollupAll(ctx, db)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%d events stored for %s; rollup of %d days in %s\n", total, *owner, nd, time.Since(rstart).Round(time.Second))
	return nil
}

// dashboard times the dashboard query (Reader.Report, premium) for the
// three ranges and prints p50 and p95 per range.
func dashboard(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("dashboard", flag.ContinueOnError)
	dsn := fs.String("db", os.Getenv("DATABASE_URL"), "Postgres URL")
	owner := fs.String("owner", "bench-owner", "merchant user id")
	runs := fs.Int("runs", 40, "queries per range")
	asJSON := fs.Bool("json", false, "print the 7d payload (premium) once instead of timing")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx := context.Background()
	db, err := pgxpool.New(ctx, *dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	rd := &analytics.Reader{DB: db}
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
	for _, r := range []string{"7d", "30d", "90d"} {
		f, err := analytics.ParseFilters(url.Values{"range": {r}}, analytics.TierPremium, time.Now())
		if err != nil {
			return err
		}
		var lat []time.Duration
		var shoppers int64
		for range *runs {
			t0 := time.Now()
			p, err := rd.Report(ctx, *owner, f, analytics.TierPremium)
			if err != nil {
				return err
			}
			lat = append(lat, time.Since(t0))
			shoppers = p.KPIs.Shoppers
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		fmt.Fprintf(out, "range %-3s shoppers %8d  p50 %6.1f ms  p95 %6.1f ms\n", r, shoppers,
			float64(lat[len(lat)/2].Microseconds())/1000, float64(lat[len(lat)*95/100].Microseconds())/1000)
	}
	return nil
}
