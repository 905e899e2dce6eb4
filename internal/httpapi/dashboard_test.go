package httpapi

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
)

func TestDashboardRoute(t *testing.T) {
	t.Parallel()
	w := newWSHarness(t)
	job := func(id string) events.Stream { return events.Stream{Type: events.StreamJob, ID: id} }

	steps := []struct {
		name   string
		user   string
		before func()
		status int
		body   string // the data object (JSON), or the error code
	}{
		{name: "signed out", status: 401, body: "unauthorized"},
		{name: "a new account: nothing invented, one next step", user: "u1", status: 200, body: `{
			"recent": [], "topProducts": [],
			"insights": [{"id":"first-model","title":"Create your first 3D model",
				"message":"Upload one product photo and we will build an interactive 3D model from it.","path":"/workspace/upload"}]}`},
		{name: "a failed build", user: "u1", status: 200,
			before: func() {
				w.emit(t, job("j1"), events.JobQueued{JobID: "j1", UserID: "u1", Name: "Lamp"})
				w.emit(t, job("j1"), events.JobFailed{JobID: "j1", Reason: "Too dark"})
			},
			body: `{
			"recent": [{"id":"j1","type":"blueprint","label":"Lamp","status":"error","updatedAt":"*","path":"/processing/j1"}],
			"topProducts": [],
			"insights": [{"id":"failed-builds","title":"1 build failed",
				"message":"Try a photo of the product on a plain background, evenly lit and filling most of the frame. Failed builds cost no credits.",
				"path":"/workspace/blueprints"}]}`},
		{name: "a success on the free plan, 3 credits left", user: "u1", status: 200,
			before: func() {
				sub := events.Stream{Type: events.StreamSubscription, ID: "u1"}
				w.emit(t, sub, events.SubscriptionOpened{UserID: "u1", Plan: "free"})
				w.emit(t, job("j2"), events.JobQueued{JobID: "j2", UserID: "u1", Name: "Oak chair"})
				w.emit(t, sub, events.CreditsReserved{UserID: "u1", JobID: "j2", Amount: 2})
				w.emit(t, job("j2"), events.JobCompleted{JobID: "j2"})
				w.emit(t, sub, events.CreditsConsumed{UserID: "u1", JobID: "j2", Amount: 2})
			},
			body: `{
			"recent": [{"id":"j2","type":"blueprint","label":"Oak chair","status":"ready","updatedAt":"*","path":"/preview/j2"},
			           {"id":"j1","type":"blueprint","label":"Lamp","status":"error","updatedAt":"*","path":"/processing/j1"}],
			"topProducts": [],
			"insights": [
				{"id":"credits-low","title":"3 AI credits left",
				 "message":"Each new 3D model uses AI credits. Add a pack of 20 before you run out.","path":"/workspace/subscription"},
				{"id":"first-share-link","title":"Share your 3D models by link",
				 "message":"Share links, embeds and QR codes come with Pro. Upgrade to publish “Oak chair”.","path":"/workspace/subscription"}]}`},
		{name: "credits bought and a link published: nothing applies", user: "u1", status: 200,
			before: func() {
				w.emit(t, events.Stream{Type: events.StreamSubscription, ID: "u1"}, events.AddonPurchased{UserID: "u1", Kind: "credits", Amount: 20})
				w.emit(t, events.Stream{Type: events.StreamPublication, ID: "p1"}, events.PublicationCreated{PublicationID: "p1", UserID: "u1", BlueprintID: "j2"})
			},
			body: `{
			"recent": [{"id":"j2","type":"blueprint","label":"Oak chair","status":"ready","updatedAt":"*","path":"/preview/j2"},
			           {"id":"j1","type":"blueprint","label":"Lamp","status":"error","updatedAt":"*","path":"/processing/j1"}],
			"topProducts": [], "insights": []}`},
		{name: "another user sees none of it", user: "u2", status: 200, body: `{
			"recent": [], "topProducts": [],
			"insights": [{"id":"first-model","title":"Create your first 3D model",
				"message":"Upload one product photo and we will build an interactive 3D model from it.","path":"/workspace/upload"}]}`},
	}
	for _, s := range steps {
		if s.before != nil {
			s.before()
		}
		status, r := w.call(t, s.user, "GET", "/api/dashboard")
		require.Equal(t, s.status, status, s.name)
		if status != 200 {
			require.Equal(t, s.body, r.Error.Code, s.name)
			continue
		}
		require.JSONEq(t, s.body, string(maskUpdatedAt(t, r.Data)), s.name)
	}
}

// maskUpdatedAt replaces each recent item's timestamp (the database's commit
// clock) with "*" after checking it is one.
func maskUpdatedAt(t *testing.T, data json.RawMessage) []byte {
	t.Helper()
	var d map[string]any
	require.NoError(t, json.Unmarshal(data, &d))
	for _, it := range d["recent"].([]any) {
		m := it.(map[string]any)
		require.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$`, m["updatedAt"])
		m["updatedAt"] = "*"
	}
	b, err := json.Marshal(d)
	require.NoError(t, err)
	return b
}
