package httpapi

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
)

func TestSearchRoute(t *testing.T) {
	t.Parallel()
	w := newWSHarness(t)
	blueprint := func(user, id, name string, done bool) {
		stream := events.Stream{Type: events.StreamJob, ID: id}
		w.emit(t, stream, events.JobQueued{JobID: id, UserID: user, Name: name})
		if done {
			w.emit(t, stream, events.JobCompleted{JobID: id})
		}
	}
	blueprint("u1", "j1", "Red sofa", true)
	blueprint("u1", "j2", "Sofa table", false)
	blueprint("u1", "j3", "Lamp", true)
	blueprint("u2", "j4", "Sofa of someone else", true)

	cases := []struct {
		name, user, q string
		status        int
		body          string // the data object, or the error code
	}{
		{"prefix first, then newest; path follows status", "u1", "SOFA", 200,
			`{"items":[{"id":"j2","label":"Sofa table","type":"Blueprint","path":"/processing/j2"},
			           {"id":"j1","label":"Red sofa","type":"Blueprint","path":"/preview/j1"}]}`},
		{"substring", "u1", "am", 200, `{"items":[{"id":"j3","label":"Lamp","type":"Blueprint","path":"/preview/j3"}]}`},
		{"empty after trimming", "u1", "   ", 200, `{"items":[]}`},
		{"no query at all", "u1", "", 200, `{"items":[]}`},
		{"no match", "u1", "zebra", 200, `{"items":[]}`},
		{"only the caller's items", "u2", "red", 200, `{"items":[]}`},
		{"too long", "u1", strings.Repeat("a", 201), 400, "query_too_long"},
		{"signed out", "", "sofa", 401, "unauthorized"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, r := w.call(t, c.user, "GET", "/api/search?q="+url.QueryEscape(c.q))
			require.Equal(t, c.status, status)
			if status != 200 {
				require.Equal(t, c.body, r.Error.Code)
				return
			}
			require.JSONEq(t, c.body, string(r.Data))
		})
	}
}

func TestSearchRouteLimit(t *testing.T) {
	t.Parallel()
	w := newWSHarness(t)
	for i := range 22 {
		id := fmt.Sprint("c", i)
		w.emit(t, events.Stream{Type: events.StreamJob, ID: id}, events.JobQueued{JobID: id, UserID: "u1", Name: fmt.Sprintf("Chair %02d", i)})
	}
	_, r := w.call(t, "u1", "GET", "/api/search?q=chair")
	var got struct {
		Items []struct {
			Label string `json:"label"`
		} `json:"items"`
	}
	require.NoError(t, json.Unmarshal(r.Data, &got))
	require.Len(t, got.Items, 20)
	require.Equal(t, "Chair 21", got.Items[0].Label)
	require.Equal(t, "Chair 02", got.Items[19].Label)
}
