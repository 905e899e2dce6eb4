package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/dbtest"
)

// TestIdempotencyKeepsOnlyFinalAnswers drives the idempotency layer with a
// handler whose outcome the test chooses: a 5xx, a conflict or a panic is not
// the request's answer, so a retry runs it again; a 2xx/4xx is replayed.
func TestIdempotencyKeepsOnlyFinalAnswers(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	store := &idempotencyStore{db: db.Pool}
	calls, status := 0, http.StatusInternalServerError
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		if status == 0 {
			panic("boom")
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = fmt.Fprintf(w, `{"call":%d}`, calls)
	})
	run := func(key string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		func() {
			defer func() { _ = recover() }()
			serveIdempotent(store, h, rec, httptest.NewRequest("POST", "/api/jobs", nil), "user-1", key, []byte("fingerprint"))
		}()
		return rec
	}

	require.Equal(t, 500, run("k1").Code)
	require.Equal(t, 500, run("k1").Code)
	require.Equal(t, 2, calls, "a 5xx is not cached: the retry ran again")
	status = http.StatusConflict
	run("k1")
	require.Equal(t, 3, calls, "nor is a conflict")
	status = 0
	run("k1")
	require.Equal(t, 4, calls)
	status = http.StatusCreated
	first := run("k1")
	require.Equal(t, 201, first.Code)
	require.Equal(t, 5, calls, "a panic released the key too")
	again := run("k1")
	require.Equal(t, 201, again.Code)
	require.Equal(t, "true", again.Header().Get("Idempotent-Replayed"))
	require.JSONEq(t, `{"call":5}`, again.Body.String())
	require.Equal(t, 5, calls)

	// A 4xx is the request's answer: replayed.
	status = http.StatusPaymentRequired
	require.Equal(t, 402, run("k2").Code)
	status = http.StatusCreated
	require.Equal(t, 402, run("k2").Code)
	require.Equal(t, 6, calls)

	// A first attempt whose process died (lease run out) is taken over by a
	// retry of the same request; a key older than 24 hours is forgotten.
	ctx := context.Background()
	_, err := db.Pool.Exec(ctx, `INSERT INTO idempotency_keys (user_id, key, fingerprint, state, leased_until)
		VALUES ('user-1', 'k3', 'fingerprint', 'running', now() - interval '1 second')`)
	require.NoError(t, err)
	require.Equal(t, 201, run("k3").Code)
	require.Equal(t, 7, calls)
	_, err = db.Pool.Exec(ctx, `UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = 'k1'`)
	require.NoError(t, err)
	require.JSONEq(t, `{"call":8}`, run("k1").Body.String())
}

func TestIdempotencyKeyFormat(t *testing.T) {
	t.Parallel()
	for k, ok := range map[string]bool{"a": true, "0b7c-uuid-like": true, "with space ok": true, "": false,
		string(make([]byte, 256)): false, "tab\tkey": false, "del\x7f": false, "clé": false} {
		require.Equal(t, ok, validIdempotencyKey(k), "%q", k)
	}
}
