package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/analytics"
	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/experiment"
	"github.com/photo3d/photo3d/internal/publish"
)

type experimentReply struct {
	ID            string `json:"id"`
	ProductID     string `json:"productId"`
	PublicationID string `json:"publicationId"`
	Goal          string `json:"goal"`
	State         string `json:"state"`
	StopReason    string `json:"stopReason"`
	Arms          []struct {
		ID      string `json:"id"`
		Name    string `json:"name"`
		Control bool   `json:"control"`
		Preset  struct {
			Lighting    string   `json:"lighting"`
			CameraOrbit string   `json:"cameraOrbit"`
			Autospin    bool     `json:"autospin"`
			Hotspots    []string `json:"hotspots"`
		} `json:"preset"`
		Visitors          int64      `json:"visitors"`
		Conversions       int64      `json:"conversions"`
		Rate              float64    `json:"rate"`
		Interval          [2]float64 `json:"interval"`
		Uplift            *float64   `json:"uplift"`
		ProbabilityToBeat *float64   `json:"probabilityToBeat"`
		Decision          string     `json:"decision"`
	} `json:"arms"`
	Decision          string  `json:"decision"`
	ProbabilityToBeat float64 `json:"probabilityToBeat"`
	Rule              string  `json:"rule"`
}

// A merchant starts an A/B test on a live product page, reads it, pauses,
// resumes and stops it; every refusal says why, and another merchant sees 404.
func TestExperimentLifecycle(t *testing.T) {
	t.Parallel()
	s := newProductPubStack(t)
	user, id := s.readyProduct(t, "Lamp")
	arms := []map[string]any{
		{"name": "Control"},
		{"name": "Close-up", "preset": map[string]any{"cameraOrbit": "30deg 70deg 80%", "autospin": false, "hotspots": []string{}}},
	}
	body := map[string]any{"goal": "clicks", "arms": arms}

	// Free plan: a Pro feature.
	rec, r := s.json(t, user, "POST", "/api/products/"+id+"/experiments", body)
	require.Equal(t, http.StatusForbidden, rec.Code, rec.Body.String())
	require.Equal(t, "upgrade_required", r.Error.Code)
	startTrialFor(t, s.creationStack, user)

	// Not published yet: nothing to test.
	rec, r = s.json(t, user, "POST", "/api/products/"+id+"/experiments", body)
	require.Equal(t, http.StatusConflict, rec.Code, rec.Body.String())
	require.Equal(t, "not_published", r.Error.Code)
	s.ok(t, user, "POST", "/api/products/"+id+"/publish", map[string]any{})

	// Bad definitions are refused with the reason.
	for _, bad := range []struct {
		body map[string]any
		code string
	}{
		{map[string]any{"goal": "sales", "arms": arms}, "invalid_goal"},
		{map[string]any{"goal": "leads", "arms": arms}, "invalid_goal"}, // no email gate on this page
		{map[string]any{"goal": "ar", "arms": arms[:1]}, "invalid_arms"},
		{map[string]any{"goal": "ar", "arms": []map[string]any{{"name": "A"}, {"name": "a"}}}, "invalid_arm_name"},
		{map[string]any{"goal": "ar", "arms": []map[string]any{{}, {"preset": map[string]any{"cameraOrbit": "sideways"}}}}, "invalid_camera_orbit"},
		{map[string]any{"goal": "ar", "arms": []map[string]any{{}, {"preset": map[string]any{"hotspots": []string{"h9"}}}}}, "invalid_hotspot"},
		{map[string]any{"goal": "ar", "arms": []map[string]any{{}, {"preset": map[string]any{"defaultVariant": "v9"}}}}, "invalid_variant"},
		{map[string]any{"goal": "ar", "trafficShare": 0, "arms": arms}, "invalid_traffic_share"},
	} {
		rec, r := s.json(t, user, "POST", "/api/products/"+id+"/experiments", bad.body)
		require.Equal(t, http.StatusBadRequest, rec.Code, "%v: %s", bad.body, rec.Body.String())
		require.Equal(t, bad.code, r.Error.Code, "%v", bad.body)
		require.NotEmpty(t, r.Error.Message)
	}

	rec, r = s.json(t, user, "POST", "/api/products/"+id+"/experiments", body)
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	e := decodeAs[experimentReply](t, r.Data)
	require.Equal(t, "running", e.State)
	require.Len(t, e.Arms, 2)
	require.True(t, e.Arms[0].Control)
	require.NotEmpty(t, e.Arms[0].ID)
	require.Equal(t, "Close-up", e.Arms[1].Name)
	require.Equal(t, "30deg 70deg 80%", e.Arms[1].Preset.CameraOrbit)
	require.False(t, e.Arms[1].Preset.Autospin)
	require.Equal(t, []string{}, e.Arms[1].Preset.Hotspots, "an empty list hides every hotspot")
	require.Nil(t, e.Arms[0].Preset.Hotspots, "no list shows them all")
	require.Equal(t, "Studio", e.Arms[0].Preset.Lighting, "an arm without a preset shows the product as it is")
	require.Equal(t, 1, s.eventCount(t, "experiment.started.v1"))

	// One experiment per product at a time.
	rec, r = s.json(t, user, "POST", "/api/products/"+id+"/experiments", body)
	require.Equal(t, http.StatusConflict, rec.Code)
	require.Equal(t, "experiment_open", r.Error.Code)

	// The results before any shopper: zero, no winner, and the rule in words.
	res := decodeAs[experimentReply](t, s.ok(t, user, "GET", "/api/experiments/"+e.ID, nil))
	require.Equal(t, experiment.DecisionNoWinner, res.Decision)
	require.Equal(t, experiment.DecisionRule, res.Rule)
	require.Len(t, res.Arms, 2)
	require.Zero(t, res.Arms[1].Visitors)
	require.Nil(t, res.Arms[0].Uplift, "the control has no uplift over itself")
	require.NotNil(t, res.Arms[1].Uplift)

	// Another merchant: 404 for every route.
	other := s.env.User(t)
	for _, path := range []string{"/api/experiments/" + e.ID, "/api/products/" + id + "/experiments"} {
		rec, _ := s.json(t, other, "GET", path, nil)
		require.Equal(t, http.StatusNotFound, rec.Code, path)
	}
	for _, action := range []string{"pause", "resume", "stop"} {
		rec, _ := s.json(t, other, "POST", "/api/experiments/"+e.ID+"/"+action, nil)
		require.Equal(t, http.StatusNotFound, rec.Code, action)
	}

	require.Equal(t, "paused", decodeAs[experimentReply](t, s.ok(t, user, "POST", "/api/experiments/"+e.ID+"/pause", nil)).State)
	require.Equal(t, "paused", decodeAs[experimentReply](t, s.ok(t, user, "POST", "/api/experiments/"+e.ID+"/pause", nil)).State, "pausing twice changes nothing")
	require.Equal(t, 1, s.eventCount(t, "experiment.paused.v1"))
	require.Equal(t, "running", decodeAs[experimentReply](t, s.ok(t, user, "POST", "/api/experiments/"+e.ID+"/resume", nil)).State)
	stopped := decodeAs[experimentReply](t, s.ok(t, user, "POST", "/api/experiments/"+e.ID+"/stop", nil))
	require.Equal(t, "stopped", stopped.State)
	require.Equal(t, "stopped", stopped.StopReason)
	rec, r = s.json(t, user, "POST", "/api/experiments/"+e.ID+"/resume", nil)
	require.Equal(t, http.StatusConflict, rec.Code)
	require.Equal(t, "experiment_stopped", r.Error.Code)

	// Stopped, the product can be tested again; the list has both, newest first.
	second := decodeAs[experimentReply](t, s.ok(t, user, "POST", "/api/products/"+id+"/experiments", body))
	list := decodeAs[struct {
		Items []experimentReply `json:"items"`
	}](t, s.ok(t, user, "GET", "/api/products/"+id+"/experiments", nil))
	require.Len(t, list.Items, 2)
	require.Equal(t, second.ID, list.Items[0].ID)

	// The results are counted from the shopper telemetry by arm: distinct viewers
	// with a counted view, and those of them who reached the goal.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	control, closeUp := second.Arms[0].ID, second.Arms[1].ID
	require.NoError(t, analytics.EnsurePartitions(ctx, s.env.DB.Pool, time.Now().Add(-24*time.Hour), time.Now().Add(24*time.Hour)))
	insert := func(viewer, arm, kind string, counted bool) {
		_, err := s.env.DB.Pool.Exec(ctx, `INSERT INTO shopper_events (at, user_id, publication_id, product_id, viewer, kind, counted, arm)
			VALUES (now(), $1, $2, $3, $4, $5, $6, $7)`, user, second.PublicationID, id, viewer, kind, counted, arm)
		require.NoError(t, err)
	}
	for i := range 3 {
		insert("c"+string(rune('0'+i)), control, "view", true)
	}
	insert("c0", control, "click", false)
	insert("c0", control, "click", false) // one shopper, two clicks: one conversion
	insert("x1", closeUp, "view", true)
	insert("x1", closeUp, "view", true) // a second visit is the same visitor
	insert("x1", closeUp, "click", false)
	insert("x2", closeUp, "view", false) // a view the balance did not count: not a visitor
	insert("x2", closeUp, "click", false)
	res = decodeAs[experimentReply](t, s.ok(t, user, "GET", "/api/experiments/"+second.ID, nil))
	require.Equal(t, int64(3), res.Arms[0].Visitors)
	require.Equal(t, int64(1), res.Arms[0].Conversions)
	require.InDelta(t, 1.0/3, res.Arms[0].Rate, 1e-9)
	require.Equal(t, int64(1), res.Arms[1].Visitors)
	require.Equal(t, int64(1), res.Arms[1].Conversions)
	require.Equal(t, experiment.DecisionNoWinner, res.Decision, "four visitors decide nothing")
}

var (
	armMeta       = regexp.MustCompile(`<meta name="p3d-arm" content="([^"]+)">`)
	cameraOrbit   = regexp.MustCompile(`camera-orbit="([^"]+)"`)
	pageViewToken = regexp.MustCompile(`<meta name="p3d-view-token" content="([^"]+)">`)
)

// visit opens the product page as a shopper's browser: with cookie (a
// p3d_vid value, "" for a first visit) and extra headers; it answers the arm
// the page shows ("" for none), the page and the cookie the page set.
func (s productPubStack) visit(t *testing.T, path, cookie string, hdr ...string) (arm, body, setCookie string) {
	t.Helper()
	req := httptest.NewRequest("GET", path, nil)
	req.RemoteAddr = "203.0.113.9:40000"
	req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0")
	if cookie != "" {
		req.AddCookie(&http.Cookie{Name: publish.ViewerCookie, Value: cookie})
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	body = rec.Body.String()
	if m := armMeta.FindStringSubmatch(body); m != nil {
		arm = m[1]
	}
	for _, c := range rec.Result().Cookies() {
		if c.Name == publish.ViewerCookie {
			setCookie = c.Value
		}
	}
	return arm, body, setCookie
}

// The page picks each shopper's arm on the server from a first-party cookie:
// the arm's preset is in the page itself, the same cookie always gets the same
// arm, crawlers and Do-Not-Track shoppers see the page as it is, and every
// beacon, click and lead is recorded in the arm the server assigned, whatever
// the shopper's script claims.
func TestExperimentAssignsShoppersOnThePage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	shoppers := &analytics.Collector{OwnHost: "photo3d.test"}
	s := buildProductPubStack(t, func(d *Deps) { d.Shoppers = shoppers }, shoppers)
	shoppers.Writer = analytics.NewWriter(s.env.DB.Pool, nil, analytics.WriterConfig{})
	user, id := s.readyProduct(t, "Armchair")
	startTrialFor(t, s.creationStack, user)
	s.ok(t, user, "POST", "/api/products/"+id+"/links", map[string]any{"url": "https://www.etsy.com/listing/42"})
	s.ok(t, user, "POST", "/api/products/"+id+"/variants", map[string]any{"name": "Black", "material": "matte-black"})
	pub := decodeAs[publishReply](t, s.ok(t, user, "POST", "/api/products/"+id+"/publish", map[string]any{}))
	page := "/v/" + pub.Slug

	arm, body, set := s.visit(t, page, "")
	require.Empty(t, arm, "no experiment: no arm")
	require.Empty(t, set, "and no cookie")
	live := cameraOrbit.FindStringSubmatch(body)[1]

	e := decodeAs[experimentReply](t, s.ok(t, user, "POST", "/api/products/"+id+"/experiments", map[string]any{"goal": "clicks",
		"arms": []map[string]any{{"name": "Control"}, {"name": "Close-up", "preset": map[string]any{"cameraOrbit": "30deg 70deg 80%", "autospin": false}}}}))
	control, closeUp := e.Arms[0].ID, e.Arms[1].ID
	require.Eventually(t, func() bool { a, _, _ := s.visit(t, page, ""); return a != "" }, 10*time.Second, 20*time.Millisecond,
		"the page's cache follows the new experiment")

	// First visits: a cookie each, and both arms among 40 shoppers, each arm's page
	// with its own preset; the embed behaves the same way.
	seen := map[string]string{} // cookie → arm
	for range 40 {
		arm, body, cookie := s.visit(t, page, "")
		require.Regexp(t, `^[A-Za-z0-9_-]{22}$`, cookie)
		require.Contains(t, []string{control, closeUp}, arm)
		orbit := cameraOrbit.FindStringSubmatch(body)[1]
		if arm == closeUp {
			require.Equal(t, "30deg 70deg 80%", orbit)
			require.NotContains(t, body, " auto-rotate")
		} else {
			require.Equal(t, live, orbit)
		}
		seen[cookie] = arm
		embedArm, _, _ := s.visit(t, "/embed/"+pub.Slug, cookie)
		require.Equal(t, arm, embedArm, "the embed shows the same shopper the same arm")
	}
	arms := map[string]int{}
	for _, a := range seen {
		arms[a]++
	}
	require.Len(t, arms, 2, "40 shoppers meet both arms: %v", arms)

	// Return visits keep their arm and set no new cookie.
	for cookie, a := range seen {
		again, _, set := s.visit(t, page, cookie)
		require.Equal(t, a, again)
		require.Empty(t, set)
	}
	// Crawlers and Do-Not-Track shoppers see the page as it is.
	for _, hdr := range [][]string{{"User-Agent", "Googlebot/2.1 (+http://www.google.com/bot.html)"}, {"DNT", "1"}, {"Sec-GPC", "1"}} {
		arm, body, set := s.visit(t, page, "", hdr...)
		require.Empty(t, arm, "%v", hdr)
		require.Empty(t, set, "%v", hdr)
		require.Equal(t, live, cameraOrbit.FindStringSubmatch(body)[1])
	}

	// A shopper of each arm: a view beacon from the page, a second one claiming
	// nothing different, then a store click; the rows carry the server's arm.
	var inControl, inCloseUp string
	for c, a := range seen {
		if a == control && inControl == "" {
			inControl = c
		}
		if a == closeUp && inCloseUp == "" {
			inCloseUp = c
		}
	}
	token := pageViewToken.FindStringSubmatch(func() string { _, b, _ := s.visit(t, page, inControl); return b }())[1]
	// Beacons name the page's arm; the close-up shopper's claims the control's, and
	// is recorded in the arm the server assigned.
	for viewer, claim := range map[string]string{inControl: control, inCloseUp: control} {
		req := httptest.NewRequest("POST", "/t", strings.NewReader(fmt.Sprintf(
			`{"v":1,"slug":%q,"viewer":%q,"token":%q,"arm":%q,"events":[{"t":"view","at":%d}]}`, pub.Slug, viewer, token, claim, time.Now().UnixMilli())))
		req.RemoteAddr = "203.0.113.9:40000"
		req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0")
		req.Header.Set("Content-Type", "text/plain;charset=UTF-8")
		req.Header.Set("Origin", "http://example.com")
		rec := httptest.NewRecorder()
		s.h.ServeHTTP(rec, req)
		require.Equal(t, http.StatusNoContent, rec.Code, rec.Body.String())
	}
	rec := s.shopper(t, "GET", page+"/go/l1?vid="+inCloseUp, "")
	require.Equal(t, http.StatusFound, rec.Code)
	require.NoError(t, shoppers.Writer.Flush(ctx))
	rows, err := s.env.DB.Pool.Query(ctx, `SELECT viewer, kind, arm FROM shopper_events WHERE publication_id = $1 ORDER BY kind, viewer`, pub.PublicationID)
	require.NoError(t, err)
	got := map[string]string{}
	for rows.Next() {
		var viewer, kind, arm string
		require.NoError(t, rows.Scan(&viewer, &kind, &arm))
		got[kind+" "+viewer] = arm
	}
	require.NoError(t, rows.Err())
	require.Equal(t, map[string]string{"view " + inControl: control, "view " + inCloseUp: closeUp, "click " + inCloseUp: closeUp}, got)

	res := decodeAs[experimentReply](t, s.ok(t, user, "GET", "/api/experiments/"+e.ID, nil))
	require.Equal(t, int64(1), res.Arms[0].Visitors)
	require.Equal(t, int64(0), res.Arms[0].Conversions)
	require.Equal(t, int64(1), res.Arms[1].Visitors)
	require.Equal(t, int64(1), res.Arms[1].Conversions)

	// Stopped: the page is the live one again, for everyone.
	s.ok(t, user, "POST", "/api/experiments/"+e.ID+"/stop", nil)
	require.Eventually(t, func() bool { a, _, _ := s.visit(t, page, inCloseUp); return a == "" }, 10*time.Second, 20*time.Millisecond)

	// Make this the default: the arm's preset becomes the product's, the experiment
	// ends, and the live page shows it to everyone.
	third := decodeAs[experimentReply](t, s.ok(t, user, "POST", "/api/products/"+id+"/experiments", map[string]any{"goal": "clicks",
		"arms": []map[string]any{{}, {"name": "Low", "preset": map[string]any{"cameraOrbit": "10deg 85deg 90%", "autospin": false,
			"exposure": 1.4, "poster": "none", "defaultVariant": "v2"}}}}))
	rec, r := s.json(t, user, "POST", "/api/experiments/"+third.ID+"/apply", map[string]any{"armId": e.Arms[1].ID})
	require.Equal(t, http.StatusBadRequest, rec.Code, "an arm of another experiment")
	require.Equal(t, "invalid_arm", r.Error.Code)
	applied := decodeAs[struct {
		experimentReply
		AppliedArmID string   `json:"appliedArmId"`
		NotApplied   []string `json:"notApplied"`
	}](t, s.ok(t, user, "POST", "/api/experiments/"+third.ID+"/apply", map[string]any{"armId": third.Arms[1].ID}))
	require.Equal(t, "stopped", applied.State)
	require.Equal(t, "applied", applied.StopReason)
	require.Equal(t, third.Arms[1].ID, applied.AppliedArmID)
	require.Empty(t, applied.NotApplied)
	detail := decodeAs[struct {
		Presets catalog.Presets `json:"presets"`
	}](t, s.ok(t, user, "GET", "/api/products/"+id, nil))
	require.Equal(t, catalog.Presets{Lighting: "Studio", Background: "Transparent", BackgroundColor: "#FFFFFF", CameraOrbit: "10deg 85deg 90%",
		Exposure: 1.4, Poster: catalog.PosterNone, DefaultVariantID: "v2"}, detail.Presets, "the whole presentation, the opening variant included")
	var applied0 string
	require.Eventually(t, func() bool {
		a, body, _ := s.visit(t, page, inCloseUp)
		applied0 = body
		return a == "" && cameraOrbit.FindStringSubmatch(body)[1] == "10deg 85deg 90%"
	}, 10*time.Second, 20*time.Millisecond, "every shopper sees the applied preset")
	mv := viewerTag.FindString(applied0)
	require.Contains(t, mv, `exposure="1.4"`)
	require.Contains(t, mv, `variant-name="v2"`, "the page opens on the arm's variant")
	require.NotContains(t, mv, `poster=`, "no poster: the loading bar only")
	require.NotContains(t, applied0, `slot="poster"`)
	rec, r = s.json(t, user, "POST", "/api/experiments/"+third.ID+"/apply", map[string]any{"armId": third.Arms[1].ID})
	require.Equal(t, http.StatusConflict, rec.Code)
	require.Equal(t, "experiment_stopped", r.Error.Code)

	// Unpublishing the page ends an experiment running on it.
	next := decodeAs[experimentReply](t, s.ok(t, user, "POST", "/api/products/"+id+"/experiments", map[string]any{"goal": "ar",
		"arms": []map[string]any{{}, {"preset": map[string]any{"lighting": "Dramatic"}}}}))
	s.ok(t, user, "DELETE", "/api/publications/"+pub.PublicationID, nil)
	ended := decodeAs[experimentReply](t, s.ok(t, user, "GET", "/api/experiments/"+next.ID, nil))
	require.Equal(t, "stopped", ended.State)
	require.Equal(t, "unpublished", ended.StopReason)
}
