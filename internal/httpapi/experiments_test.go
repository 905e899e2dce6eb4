package httpapi

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/analytics"
	"github.com/photo3d/photo3d/internal/experiment"
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
