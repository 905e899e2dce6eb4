package httpapi

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/describe"
)

// fakeChat is an in-process server speaking the OpenAI chat-completions
// protocol (the outside world: a model server), recording what it was sent.
type fakeChat struct {
	mu     sync.Mutex
	bodies []string
	status int
}

func (f *fakeChat) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.bodies = append(f.bodies, string(raw))
	status := f.status
	f.mu.Unlock()
	if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if status != 0 {
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"error":{"message":"rate limited"}}`))
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"choices": []map[string]any{{"message": map[string]string{"role": "assistant",
		"content": "A matte stoneware lamp with a linen shade."}}}})
}

// Issue 29 item 17: "Generate with AI" writes a description through the
// configured chat server: owner-scoped, no personal data sent, a clear
// message when the model's server is busy, rate-limited per account, and
// off (404, aiDescriptions=false) without LLM_URL.
func TestGenerateDescriptionWithAI(t *testing.T) {
	t.Parallel()
	chat := &fakeChat{}
	srv := httptest.NewServer(chat)
	t.Cleanup(srv.Close)
	s := buildProductPubStack(t, func(d *Deps) {
		d.Describer = describe.New(describe.Config{URL: srv.URL, Model: "test-model", APIKey: "sk-test"})
	})
	user, id := s.readyProduct(t, "Table lamp")
	s.ok(t, user, "PATCH", "/api/products/"+id, map[string]any{"tags": []string{"lighting"}})

	rec, r := s.json(t, "", "GET", "/api/config", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.Contains(t, string(r.Data), `"aiDescriptions":true`)

	got := decodeAs[struct {
		Description string `json:"description"`
	}](t, s.ok(t, user, "POST", "/api/products/"+id+"/describe", nil))
	require.Equal(t, "A matte stoneware lamp with a linen shade.", got.Description)
	require.Len(t, chat.bodies, 1)
	sent := chat.bodies[0]
	require.Contains(t, sent, "Table lamp")
	require.Contains(t, sent, "lighting")
	require.Contains(t, sent, `"model":"test-model"`)
	// Never personal data or ids: not the merchant's email, name or ids.
	for _, pii := range []string{user, "@example.test", "Test user", id} {
		require.NotContains(t, sent, pii)
	}
	// The description is not saved behind the merchant's back.
	detail := decodeAs[struct {
		Description string `json:"description"`
	}](t, s.ok(t, user, "GET", "/api/products/"+id, nil))
	require.Empty(t, detail.Description)

	// Another merchant's product: 404, and the model is not asked.
	other := s.env.User(t)
	rec, _ = s.json(t, other, "POST", "/api/products/"+id+"/describe", nil)
	require.Equal(t, http.StatusNotFound, rec.Code)
	require.Len(t, chat.bodies, 1)

	// The model's server is busy (429) or broken (500): clear messages.
	chat.mu.Lock()
	chat.status = http.StatusTooManyRequests
	chat.mu.Unlock()
	rec, r = s.json(t, user, "POST", "/api/products/"+id+"/describe", nil)
	require.Equal(t, http.StatusTooManyRequests, rec.Code)
	require.Equal(t, "ai_busy", r.Error.Code)
	require.Equal(t, describe.ErrBusy.Message, r.Error.Message)
	chat.mu.Lock()
	chat.status = http.StatusInternalServerError
	chat.mu.Unlock()
	rec, r = s.json(t, user, "POST", "/api/products/"+id+"/describe", nil)
	require.Equal(t, http.StatusServiceUnavailable, rec.Code)
	require.Equal(t, "ai_failed", r.Error.Code)
	require.Equal(t, describe.ErrFailed.Message, r.Error.Message)

	// Rate-limited per account: the 11th call in a minute is refused before the model is asked.
	chat.mu.Lock()
	chat.status = 0
	chat.mu.Unlock()
	for i := 0; i < DescribeRateLimit-3; i++ {
		s.ok(t, user, "POST", "/api/products/"+id+"/describe", nil)
	}
	asked := len(chat.bodies)
	rec, r = s.json(t, user, "POST", "/api/products/"+id+"/describe", nil)
	require.Equal(t, http.StatusTooManyRequests, rec.Code)
	require.Equal(t, "ai_busy", r.Error.Code)
	require.Len(t, chat.bodies, asked)
}

func TestGenerateDescriptionOffWithoutLLMURL(t *testing.T) {
	t.Parallel()
	s := newProductPubStack(t)
	user, id := s.readyProduct(t, "Lamp")
	rec, r := s.json(t, "", "GET", "/api/config", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.Contains(t, string(r.Data), `"aiDescriptions":false`)
	rec, r = s.json(t, user, "POST", "/api/products/"+id+"/describe", nil)
	require.Equal(t, http.StatusNotFound, rec.Code)
	require.Equal(t, "ai_not_configured", r.Error.Code)
}
