package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/auth"
	"github.com/photo3d/photo3d/internal/dbtest"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/metrics"
)

type reply struct {
	Success bool            `json:"success"`
	Data    json.RawMessage `json:"data"`
	Error   *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func setup(t *testing.T, pool *pgxpool.Pool) http.Handler {
	h := NewRouter(Deps{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), DB: pool, Metrics: metrics.New(),
		CORSOrigins: []string{"http://localhost:5173"}, MaxBodyBytes: 64})
	mux := h.(*chi.Mux)
	mux.Method("POST", "/api/test/echo", Handler(func(w http.ResponseWriter, r *http.Request) error {
		var body map[string]any
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, body)
		return nil
	}))
	mux.Method("GET", "/api/test/typed", Handler(func(w http.ResponseWriter, r *http.Request) error {
		return fault.New(fault.PaymentRequired, "no_credits", "Not enough AI credits.")
	}))
	mux.Method("GET", "/api/test/internal", Handler(func(w http.ResponseWriter, r *http.Request) error {
		return io.ErrUnexpectedEOF
	}))
	mux.Method("GET", "/api/test/conflict", Handler(func(w http.ResponseWriter, r *http.Request) error {
		return &eventstore.ConflictError{Stream: "x", Expected: 1}
	}))
	mux.Get("/api/test/panic", func(w http.ResponseWriter, r *http.Request) { panic("boom") })
	return h
}

func do(t *testing.T, h http.Handler, method, path, body string) (*httptest.ResponseRecorder, reply) {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var r reply
	if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &r), rec.Body.String())
	}
	return rec, r
}

func TestEnvelopes(t *testing.T) {
	t.Parallel()
	h := setup(t, nil)
	cases := []struct {
		name, method, path, body string
		status                   int
		code, message            string
	}{
		{"success", "POST", "/api/test/echo", `{"a":1}`, 200, "", ""},
		{"typed error", "GET", "/api/test/typed", "", 402, "no_credits", "Not enough AI credits."},
		{"internal error hides details", "GET", "/api/test/internal", "", 500, "internal", "Something went wrong on our side. Please try again."},
		{"conflict", "GET", "/api/test/conflict", "", 409, "conflict", "This item was changed at the same time by another request. Please try again."},
		{"panic", "GET", "/api/test/panic", "", 500, "internal", "Something went wrong on our side. Please try again."},
		{"oversized body", "POST", "/api/test/echo", `{"a":"` + strings.Repeat("x", 200) + `"}`, 413, "body_too_large", "The request body is too large."},
		{"malformed json", "POST", "/api/test/echo", `{"a":`, 400, "invalid_json", "The request body is not valid JSON."},
		{"unknown api route", "GET", "/api/nope", "", 404, "not_found", "No API route GET /api/nope."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec, r := do(t, h, c.method, c.path, c.body)
			require.Equal(t, c.status, rec.Code, rec.Body.String())
			require.NotEmpty(t, rec.Header().Get("X-Request-Id"))
			if c.code == "" {
				require.True(t, r.Success)
				require.JSONEq(t, `{"a":1}`, string(r.Data))
				return
			}
			require.False(t, r.Success)
			require.NotNil(t, r.Error)
			require.Equal(t, c.code, r.Error.Code)
			require.Equal(t, c.message, r.Error.Message)
		})
	}
}

func TestOversizedBodyWithoutContentLengthIsRefused(t *testing.T) {
	t.Parallel()
	h := setup(t, nil)
	req := httptest.NewRequest("POST", "/api/test/echo", io.MultiReader(strings.NewReader(`{"a":"`), strings.NewReader(strings.Repeat("y", 500)), strings.NewReader(`"}`)))
	req.ContentLength = -1
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	require.Equal(t, http.StatusRequestEntityTooLarge, rec.Code)
	require.Contains(t, rec.Body.String(), `"body_too_large"`)
}

func TestRequestIDIsEchoedAndSanitised(t *testing.T) {
	t.Parallel()
	h := setup(t, nil)
	req := httptest.NewRequest("GET", "/healthz", nil)
	req.Header.Set("X-Request-Id", "abc-123")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	require.Equal(t, "abc-123", rec.Header().Get("X-Request-Id"))

	req = httptest.NewRequest("GET", "/healthz", nil)
	req.Header.Set("X-Request-Id", "bad id\nwith newline")
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	require.NotContains(t, rec.Header().Get("X-Request-Id"), " ")
	require.Len(t, rec.Header().Get("X-Request-Id"), 16)
}

func TestCORSAllowsOnlyConfiguredOrigins(t *testing.T) {
	t.Parallel()
	h := setup(t, nil)
	req := httptest.NewRequest("OPTIONS", "/api/test/echo", nil)
	req.Header.Set("Origin", "http://localhost:5173")
	req.Header.Set("Access-Control-Request-Method", "POST")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	require.Equal(t, http.StatusNoContent, rec.Code)
	require.Equal(t, "http://localhost:5173", rec.Header().Get("Access-Control-Allow-Origin"))

	req = httptest.NewRequest("GET", "/healthz", nil)
	req.Header.Set("Origin", "https://evil.example")
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	require.Empty(t, rec.Header().Get("Access-Control-Allow-Origin"))
}

func TestReadyzFollowsTheDatabase(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	rec, r := do(t, setup(t, db.Pool), "GET", "/readyz", "")
	require.Equal(t, http.StatusOK, rec.Code)
	require.True(t, r.Success)

	// A pool pointing at a port nobody listens on: the database is down.
	down, err := pgxpool.New(context.Background(), "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=1")
	require.NoError(t, err)
	defer down.Close()
	rec, r = do(t, setup(t, down), "GET", "/readyz", "")
	require.Equal(t, http.StatusServiceUnavailable, rec.Code)
	require.Equal(t, "not_ready", r.Error.Code)

	// And a database that was reachable and went away.
	db.Pool.Close()
	rec, _ = do(t, setup(t, db.Pool), "GET", "/readyz", "")
	require.Equal(t, http.StatusServiceUnavailable, rec.Code)
}

func TestMetricsExposeRoutePatterns(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	h := NewRouter(Deps{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Metrics: m})
	h.(*chi.Mux).Method("GET", "/api/test/typed", Handler(func(w http.ResponseWriter, r *http.Request) error {
		return fault.New(fault.PaymentRequired, "no_credits", "Not enough AI credits.")
	}))
	do(t, h, "GET", "/api/test/typed", "")
	rec, _ := do(t, MetricsHandler(m), "GET", "/metrics", "")
	require.Equal(t, http.StatusOK, rec.Code)
	require.Contains(t, rec.Body.String(), `photo3d_http_request_duration_seconds_count{method="GET",route="/api/test/typed",status="402"} 1`)
}

func TestRequireAuth(t *testing.T) {
	t.Parallel()
	tokens := auth.NewTokens([]byte("0123456789abcdef0123456789abcdef"), "http://test")
	h := requireAuth(tokens)(Handler(func(w http.ResponseWriter, r *http.Request) error {
		WriteJSON(w, http.StatusOK, map[string]string{"user": currentWorkspace(r)})
		return nil
	}))
	good, _, err := tokens.Issue("u-1")
	require.NoError(t, err)
	expired, _, err := tokens.WithClock(func() time.Time { return time.Now().Add(-48 * time.Hour) }).Issue("u-1")
	require.NoError(t, err)
	for _, c := range []struct {
		name, header string
		status       int
		code         string
	}{
		{"valid", "Bearer " + good, 200, ""},
		{"missing", "", 401, "unauthorized"},
		{"wrong scheme", "Basic " + good, 401, "unauthorized"},
		{"expired", "Bearer " + expired, 401, "token_invalid"},
		{"garbage", "Bearer abc.def.ghi", 401, "token_invalid"},
	} {
		req := httptest.NewRequest("GET", "/api/x", nil)
		if c.header != "" {
			req.Header.Set("Authorization", c.header)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		require.Equal(t, c.status, rec.Code, c.name)
		if c.code != "" {
			var r reply
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &r))
			require.Equal(t, c.code, r.Error.Code, c.name)
		} else {
			require.Contains(t, rec.Body.String(), `"user":"u-1"`)
		}
	}
}
