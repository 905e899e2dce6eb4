package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/auth"
	"github.com/photo3d/photo3d/internal/dashboard"
	"github.com/photo3d/photo3d/internal/dbtest"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/notify"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/projection"
	"github.com/photo3d/photo3d/internal/workspace"
)

// wsHarness is the workspace-shell routes over a real database, with the
// worker's projections drained after every append so reads see the events.
type wsHarness struct {
	db      *dbtest.DB
	store   *eventstore.Store
	runner  *projection.Runner
	tokens  *auth.Tokens
	handler http.Handler
}

func newWSHarness(t *testing.T) wsHarness {
	t.Helper()
	db := dbtest.New(t)
	store := eventstore.New(events.Domain())
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	runner := projection.NewRunner(db.Pool, store, projection.Config{Logger: logger},
		notify.NewProjection(), workspace.NewProjection())
	tokens := auth.NewTokens([]byte("0123456789abcdef0123456789abcdef"), "http://test")
	items := workspace.NewReader(db.Pool)
	h := NewRouter(Deps{Logger: logger, DB: db.Pool, Tokens: tokens,
		Notifications: notify.NewService(db.Pool),
		Workspace:     items,
		Dashboard:     dashboard.NewService(items, time.Now)})
	return wsHarness{db: db, store: store, runner: runner, tokens: tokens, handler: h}
}

func (w wsHarness) emit(t *testing.T, stream events.Stream, evs ...events.Event) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, pgdb.WithTx(ctx, w.db.Pool, func(tx pgx.Tx) error {
		_, err := w.store.Append(ctx, tx, stream, eventstore.AnyVersion, evs...)
		return err
	}))
	for _, p := range []projection.Projection{notify.NewProjection(), workspace.NewProjection()} {
		_, err := w.runner.Drain(ctx, p)
		require.NoError(t, err)
	}
}

// call sends a request as user ("" sends none) and decodes the envelope.
func (w wsHarness) call(t *testing.T, user, method, path string) (int, reply) {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	if user != "" {
		token, _, err := w.tokens.Issue(user)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	w.handler.ServeHTTP(rec, req)
	var r reply
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &r), rec.Body.String())
	return rec.Code, r
}

func (w wsHarness) notifications(t *testing.T, user string) notify.List {
	t.Helper()
	status, r := w.call(t, user, "GET", "/api/notifications")
	require.Equal(t, http.StatusOK, status)
	var l notify.List
	require.NoError(t, json.Unmarshal(r.Data, &l))
	return l
}

func TestNotificationRoutes(t *testing.T) {
	t.Parallel()
	w := newWSHarness(t)
	w.emit(t, events.Stream{Type: events.StreamUser, ID: "u1"}, events.UserRegistered{UserID: "u1"})
	w.emit(t, events.Stream{Type: events.StreamJob, ID: "j1"}, events.JobQueued{JobID: "j1", UserID: "u1", Name: "Oak chair"})
	w.emit(t, events.Stream{Type: events.StreamJob, ID: "j1"}, events.JobCompleted{JobID: "j1"})
	w.emit(t, events.Stream{Type: events.StreamUser, ID: "u2"}, events.UserRegistered{UserID: "u2"})

	list := w.notifications(t, "u1")
	require.Len(t, list.Items, 2)
	require.Equal(t, 2, list.UnreadCount)
	ready, welcome := list.Items[0], list.Items[1]
	require.Equal(t, "Your 3D model is ready", ready.Title)
	theirs := w.notifications(t, "u2").Items[0].ID

	// The wire format the web app is coded against: link and readAt are
	// always present, null when empty.
	_, r := w.call(t, "u1", "GET", "/api/notifications?limit=1")
	var raw struct {
		Items       []map[string]any `json:"items"`
		UnreadCount int              `json:"unreadCount"`
	}
	require.NoError(t, json.Unmarshal(r.Data, &raw))
	require.Len(t, raw.Items, 1)
	require.Equal(t, 2, raw.UnreadCount)
	require.ElementsMatch(t, []string{"id", "title", "message", "link", "createdAt", "readAt"}, keys(raw.Items[0]))
	require.Nil(t, raw.Items[0]["readAt"])
	require.Equal(t, "/preview/j1", raw.Items[0]["link"])

	cases := []struct {
		name, user, method, path string
		status                   int
		code, message            string
		check                    func(t *testing.T, data json.RawMessage)
	}{
		{name: "signed out", method: "GET", path: "/api/notifications", status: 401, code: "unauthorized", message: "Please sign in to continue."},
		{name: "limit zero", user: "u1", method: "GET", path: "/api/notifications?limit=0", status: 400, code: "invalid_limit", message: "limit must be a whole number from 1 to 100."},
		{name: "limit not a number", user: "u1", method: "GET", path: "/api/notifications?limit=ten", status: 400, code: "invalid_limit"},
		{name: "limit too large", user: "u1", method: "GET", path: "/api/notifications?limit=101", status: 400, code: "invalid_limit"},
		{name: "someone else's notification", user: "u1", method: "POST", path: "/api/notifications/" + theirs + "/read", status: 404, code: "not_found", message: "Notification not found."},
		{name: "unknown notification", user: "u1", method: "POST", path: "/api/notifications/nope/read", status: 404, code: "not_found", message: "Notification not found."},
		{name: "read one", user: "u1", method: "POST", path: "/api/notifications/" + ready.ID + "/read", status: 200,
			check: func(t *testing.T, data json.RawMessage) {
				var n notify.Notification
				require.NoError(t, json.Unmarshal(data, &n))
				require.Equal(t, ready.ID, n.ID)
				require.Equal(t, ready.Title, n.Title)
				require.NotNil(t, n.ReadAt)
				require.Equal(t, 1, w.notifications(t, "u1").UnreadCount)
			}},
		{name: "read-all is POST only", user: "u1", method: "GET", path: "/api/notifications/read-all", status: 405, code: "method_not_allowed"},
		{name: "read all", user: "u1", method: "POST", path: "/api/notifications/read-all", status: 200,
			check: func(t *testing.T, data json.RawMessage) {
				require.JSONEq(t, `{"unreadCount":0}`, string(data))
				l := w.notifications(t, "u1")
				require.Zero(t, l.UnreadCount)
				require.NotNil(t, l.Items[1].ReadAt)
				require.Equal(t, welcome.ID, l.Items[1].ID)
				require.Equal(t, 1, w.notifications(t, "u2").UnreadCount, "another user's stay unread")
			}},
	}
	// Scenarios run in order: later ones see what earlier ones changed.
	for _, c := range cases {
		status, r := w.call(t, c.user, c.method, c.path)
		require.Equal(t, c.status, status, c.name)
		if c.code != "" {
			require.False(t, r.Success, c.name)
			require.Equal(t, c.code, r.Error.Code, c.name)
			if c.message != "" {
				require.Equal(t, c.message, r.Error.Message, c.name)
			}
			continue
		}
		require.True(t, r.Success, c.name)
		if c.check != nil {
			c.check(t, r.Data)
		}
	}
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
