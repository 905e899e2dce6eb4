package httpapi_test

import (
	"bytes"
	"encoding/json"
	"image/png"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/analytics"
	"github.com/photo3d/photo3d/internal/auth"
	"github.com/photo3d/photo3d/internal/httpapi"
	"github.com/photo3d/photo3d/internal/publish"
	"github.com/photo3d/photo3d/internal/publish/publishtest"
)

// pubBundle is a router over the real publishing stack.
type pubBundle struct {
	*publishtest.Env
	h      http.Handler
	tokens *auth.Tokens
}

func pubSetup(t *testing.T, rateLimit int, opts ...publishtest.Option) pubBundle {
	t.Helper()
	env := publishtest.New(t, opts...)
	tokens := auth.NewTokens([]byte("0123456789abcdef0123456789abcdef"), publishtest.BaseURL)
	h := httpapi.NewRouter(httpapi.Deps{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), DB: env.DB.Pool,
		Tokens: tokens, Publications: env.Service, PublicPages: env.Pages, PublicRateLimit: rateLimit,
		Shoppers: &analytics.Collector{Pubs: httpapi.PublicationsOf(env.Pages)}})
	return pubBundle{Env: env, h: h, tokens: tokens}
}

type apiReply struct {
	Success bool            `json:"success"`
	Data    json.RawMessage `json:"data"`
	Error   *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// call sends an API request as userID ("" for none) and decodes the envelope.
func (b pubBundle) call(t *testing.T, userID, method, path, body string) (*httptest.ResponseRecorder, apiReply) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if userID != "" {
		tok, _, err := b.tokens.Issue(userID)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	rec := httptest.NewRecorder()
	b.h.ServeHTTP(rec, req)
	var r apiReply
	if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &r), rec.Body.String())
	}
	return rec, r
}

func decode[T any](t *testing.T, raw json.RawMessage) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal(raw, &v))
	return v
}

func TestPublicationRoutes(t *testing.T) {
	t.Parallel()
	b := pubSetup(t, 0)
	free, owner, other := b.Owner(t, "free"), b.Owner(t, "trial"), b.Owner(t, "pro")
	freeBP, bp := b.Blueprint(t, free, "Free chair"), b.Blueprint(t, owner, "Armchair")

	// Sign-in and plan rules.
	rec, r := b.call(t, "", "POST", "/api/publications", `{"blueprintId":"`+bp+`"}`)
	require.Equal(t, 401, rec.Code)
	rec, r = b.call(t, free, "POST", "/api/publications", `{"blueprintId":"`+freeBP+`"}`)
	require.Equal(t, 403, rec.Code)
	require.Equal(t, "upgrade_required", r.Error.Code)
	require.Equal(t, "Public sharing is a Pro feature. Upgrade to Pro or start a free trial to share links and embeds.", r.Error.Message)
	rec, r = b.call(t, owner, "POST", "/api/publications", `{}`)
	require.Equal(t, 400, rec.Code, rec.Body.String())
	rec, _ = b.call(t, other, "POST", "/api/publications", `{"blueprintId":"`+bp+`"}`)
	require.Equal(t, 404, rec.Code, "someone else's blueprint")

	// Create (trial counts as Pro), then create again: the same link.
	rec, r = b.call(t, owner, "POST", "/api/publications", `{"blueprintId":"`+bp+`"}`)
	require.Equal(t, 201, rec.Code, rec.Body.String())
	p := decode[publish.Publication](t, r.Data)
	require.Equal(t, 1, p.Version)
	require.Equal(t, publishtest.BaseURL+"/v/"+p.Slug, p.ShareURL)
	require.Contains(t, p.EmbedCode, `src="`+publishtest.BaseURL+`/embed/`+p.Slug+`"`)
	require.Contains(t, p.EmbedCode, `width="800" height="600"`)
	require.Contains(t, p.EmbedCode, `allow="fullscreen; xr-spatial-tracking" allowfullscreen`)
	require.Contains(t, p.EmbedCode, `title="Armchair in 3D"`)
	require.Contains(t, p.EmbedCode, `loading="lazy"`)
	require.NotEmpty(t, p.QRURL)
	var raw map[string]any
	require.NoError(t, json.Unmarshal(r.Data, &raw))
	for _, k := range []string{"id", "slug", "shareURL", "embedCode", "qrURL", "version"} {
		require.Contains(t, raw, k)
	}
	rec, r = b.call(t, owner, "POST", "/api/publications", `{"blueprintId":"`+bp+`"}`)
	require.Equal(t, 200, rec.Code)
	require.Equal(t, p.ID, decode[publish.Publication](t, r.Data).ID)

	// Read: mine, by blueprint, one; never someone else's.
	rec, r = b.call(t, owner, "GET", "/api/publications", "")
	require.Equal(t, 200, rec.Code)
	require.Len(t, decode[struct{ Items []publish.Publication }](t, r.Data).Items, 1)
	rec, r = b.call(t, owner, "GET", "/api/publications?blueprintId="+bp, "")
	require.Equal(t, 200, rec.Code)
	require.Equal(t, p.ID, decode[struct{ Items []publish.Publication }](t, r.Data).Items[0].ID)
	rec, r = b.call(t, other, "GET", "/api/publications?blueprintId="+bp, "")
	require.Equal(t, 200, rec.Code)
	require.Empty(t, decode[struct{ Items []publish.Publication }](t, r.Data).Items)
	rec, _ = b.call(t, owner, "GET", "/api/publications/"+p.ID, "")
	require.Equal(t, 200, rec.Code)
	rec, _ = b.call(t, other, "GET", "/api/publications/"+p.ID, "")
	require.Equal(t, 404, rec.Code)
	rec, _ = b.call(t, owner, "GET", "/api/publications/not-a-uuid", "")
	require.Equal(t, 404, rec.Code)

	// Versions and locks.
	b.Rename(t, bp, "Armchair, oak")
	rec, r = b.call(t, owner, "POST", "/api/publications/"+p.ID+"/versions", "")
	require.Equal(t, 201, rec.Code, rec.Body.String())
	require.Equal(t, 2, decode[publish.Publication](t, r.Data).Version)
	rec, r = b.call(t, owner, "POST", "/api/publications/"+p.ID+"/lock", `{"version":1}`)
	require.Equal(t, 200, rec.Code, rec.Body.String())
	require.Equal(t, 1, decode[publish.Publication](t, r.Data).LockedVersion)
	rec, r = b.call(t, owner, "POST", "/api/publications/"+p.ID+"/lock", `{"version":7}`)
	require.Equal(t, 400, rec.Code)
	require.Equal(t, "invalid_version", r.Error.Code)
	rec, _ = b.call(t, owner, "POST", "/api/publications/"+p.ID+"/lock", `{}`)
	require.Equal(t, 400, rec.Code)
	rec, _ = b.call(t, other, "POST", "/api/publications/"+p.ID+"/lock", `{"version":1}`)
	require.Equal(t, 404, rec.Code)

	// The merchant's QR download.
	rec, _ = b.call(t, owner, "GET", "/api/publications/"+p.ID+"/qr.png", "")
	require.Equal(t, 200, rec.Code)
	require.Equal(t, "image/png", rec.Header().Get("Content-Type"))
	img, err := png.Decode(bytes.NewReader(rec.Body.Bytes()))
	require.NoError(t, err)
	require.Equal(t, 512, img.Bounds().Dx())
	rec, _ = b.call(t, other, "GET", "/api/publications/"+p.ID+"/qr.png", "")
	require.Equal(t, 404, rec.Code)

	// Unpublish: the link stops at once.
	rec, _ = b.call(t, "", "GET", "/v/"+p.Slug, "")
	require.Equal(t, 200, rec.Code)
	rec, _ = b.call(t, other, "DELETE", "/api/publications/"+p.ID, "")
	require.Equal(t, 404, rec.Code)
	rec, r = b.call(t, owner, "DELETE", "/api/publications/"+p.ID, "")
	require.Equal(t, 200, rec.Code)
	require.Equal(t, "unpublished", decode[publish.Publication](t, r.Data).Status)
	for _, path := range []string{"/v/" + p.Slug, "/embed/" + p.Slug, "/v/" + p.Slug + "/model.glb", "/v/" + p.Slug + "/qr.png", "/v/" + p.Slug + "/poster.png"} {
		rec, _ = b.call(t, "", "GET", path, "")
		require.Equal(t, 404, rec.Code, path)
	}
	rec, r = b.call(t, owner, "POST", "/api/publications/"+p.ID+"/versions", "")
	require.Equal(t, 409, rec.Code)
	require.Equal(t, "unpublished", r.Error.Code)
}
