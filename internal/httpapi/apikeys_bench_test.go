package httpapi

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkAuthenticatedGet compares what an API key costs per request with
// a session token on the same route (GET /api/blueprints, an empty list):
// the key is one indexed SELECT by its SHA-256 plus the per-key limiter.
//
//	go test -run '^$' -bench AuthenticatedGet ./internal/httpapi
func BenchmarkAuthenticatedGet(b *testing.B) {
	s := newKeyStack(b, 1<<30, false)
	user := s.env.User(b)
	key := s.newKey(b, user, "bench", "read")
	tok, _, err := s.tokens.Issue(user)
	if err != nil {
		b.Fatal(err)
	}
	h := s.srv.Config.Handler
	for _, c := range []struct{ name, bearer string }{{"session", tok}, {"apikey", key.Secret}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				req := httptest.NewRequest("GET", "/api/blueprints", nil)
				req.Header.Set("Authorization", "Bearer "+c.bearer)
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("status %d: %s", rec.Code, rec.Body)
				}
			}
		})
	}
}
