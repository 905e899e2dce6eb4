package describe

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/fault"
)

// chatServer is an in-process server speaking the OpenAI chat-completions
// protocol: it records each request and answers with status and content.
type chatServer struct {
	mu       sync.Mutex
	requests []recorded
	status   int
	content  string
}

type recorded struct {
	Path, Auth, ContentType string
	Body                    map[string]any
	Raw                     string
}

func (c *chatServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	c.mu.Lock()
	c.requests = append(c.requests, recorded{Path: r.URL.Path, Auth: r.Header.Get("Authorization"), ContentType: r.Header.Get("Content-Type"), Body: body, Raw: string(raw)})
	status, content := c.status, c.content
	c.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if status != http.StatusOK {
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"error":{"message":"overloaded","type":"server_error"}}`))
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "model": "test-model",
		"choices": []map[string]any{{"index": 0, "finish_reason": "stop", "message": map[string]string{"role": "assistant", "content": content}}},
	})
}

func TestDescribeSpeaksChatCompletions(t *testing.T) {
	t.Parallel()
	chat := &chatServer{status: http.StatusOK, content: "  \"A hand-glazed stoneware vase with a matte finish.\"  "}
	srv := httptest.NewServer(chat)
	t.Cleanup(srv.Close)
	w := New(Config{URL: srv.URL + "/", Model: "small-model", APIKey: "sk-test"})
	require.True(t, w.Enabled())

	got, err := w.Describe(context.Background(), Facts{Name: "Studio vase", Tags: []string{"ceramic"},
		Variants: []string{"Default (matte-white)", "Night (matte-black)"}, Parts: []string{"Body", "Rim"}})
	require.NoError(t, err)
	require.Equal(t, "A hand-glazed stoneware vase with a matte finish.", got)

	require.Len(t, chat.requests, 1)
	req := chat.requests[0]
	require.Equal(t, "/v1/chat/completions", req.Path)
	require.Equal(t, "Bearer sk-test", req.Auth)
	require.Equal(t, "application/json", req.ContentType)
	require.Equal(t, "small-model", req.Body["model"])
	msgs := req.Body["messages"].([]any)
	require.Len(t, msgs, 2)
	require.Equal(t, "system", msgs[0].(map[string]any)["role"])
	user := msgs[1].(map[string]any)
	require.Equal(t, "user", user["role"])
	require.Contains(t, user["content"], "Product: Studio vase")
	require.Contains(t, user["content"], "Night (matte-black)")
	require.Contains(t, user["content"], "Parts: Body, Rim")
}

func TestDescribeErrorsAreClear(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status int
		want   *fault.Error
	}{
		{http.StatusTooManyRequests, ErrBusy},
		{http.StatusInternalServerError, ErrFailed},
	} {
		chat := &chatServer{status: tc.status}
		srv := httptest.NewServer(chat)
		_, err := New(Config{URL: srv.URL}).Describe(context.Background(), Facts{Name: "Lamp"})
		srv.Close()
		var fe *fault.Error
		require.True(t, errors.As(err, &fe), "%d: %v", tc.status, err)
		require.Equal(t, tc.want.Code, fe.Code)
		require.Equal(t, tc.want.Kind, fe.Kind)
		require.Equal(t, tc.want.Message, fe.Message)
		require.Empty(t, chat.requests[0].Auth, "no key configured: no Authorization header")
	}
	// An empty answer is a failure, not an empty description.
	chat := &chatServer{status: http.StatusOK, content: "  "}
	srv := httptest.NewServer(chat)
	t.Cleanup(srv.Close)
	_, err := New(Config{URL: srv.URL}).Describe(context.Background(), Facts{Name: "Lamp"})
	var fe *fault.Error
	require.True(t, errors.As(err, &fe))
	require.Equal(t, ErrFailed.Code, fe.Code)
	// Off without LLM_URL.
	require.Nil(t, New(Config{URL: "  "}))
	_, err = (*Writer)(nil).Describe(context.Background(), Facts{})
	require.ErrorIs(t, err, ErrOff)
	require.False(t, strings.Contains(ErrFailed.Message, "500"))
}
