package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/glbvariants/glbtest"
)

// lanHost is where a phone or a second laptop on the same Wi-Fi reaches
// `make run` started with HOST=0.0.0.0 and no PUBLIC_BASE_URL.
const lanHost = "192.168.1.20:8080"

// onLAN sends a request to h as a browser that opened the app at
// http://192.168.1.20:8080 does (Host header, and the bearer token when set).
func onLAN(t *testing.T, h http.Handler, method, target, token string, body io.Reader, contentType string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, body)
	req.Host = lanHost
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// getOnLAN GETs path on the LAN host, expects 200 and decodes the JSON
// answer into v.
func getOnLAN(t *testing.T, h http.Handler, path, token string, v any) {
	t.Helper()
	rec := onLAN(t, h, http.MethodGet, path, token, nil, "")
	require.Equal(t, http.StatusOK, rec.Code, "%s: %s", path, rec.Body.String())
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), v), path)
}

// requireOnLAN checks that a file URL the app was handed works from the LAN
// host: relative (same origin, whatever the host) or naming that host, never
// localhost; and it downloads there with want's bytes.
func requireOnLAN(t *testing.T, h http.Handler, raw string, want []byte) []byte {
	t.Helper()
	u, err := url.Parse(raw)
	require.NoError(t, err, raw)
	if u.Host != "" {
		require.Equal(t, lanHost, u.Host, "a file URL on another host than the one the app was opened on: %s", raw)
	}
	require.NotContains(t, raw, "localhost")
	require.NotContains(t, raw, "127.0.0.1")
	rec := onLAN(t, h, http.MethodGet, u.RequestURI(), "", nil, "")
	require.Equal(t, http.StatusOK, rec.Code, "%s: %s", raw, rec.Body.String())
	if want != nil {
		require.Equal(t, want, rec.Body.Bytes(), raw)
	}
	return rec.Body.Bytes()
}

// The merchant app opened at another host than PUBLIC_BASE_URL (a LAN
// address, http://192.168.1.20:8080) gets thumbnail, model, avatar and logo
// URLs that load from there, not from http://localhost:8080: the app's own
// files are same-origin relative. (The public URLs it hands out, share links
// and QR codes, name PUBLIC_BASE_URL: TestPublicURLsNamePublicBaseURLOnEveryHost.)
func TestFileURLsWorkFromTheLANHost(t *testing.T) {
	t.Parallel()
	t.Run("thumbnails and models", func(t *testing.T) {
		t.Parallel()
		s := newProductPubStack(t)
		ctx := context.Background()
		user := s.env.User(t)
		bp := s.env.Blueprint(t, user, "ready")
		model, poster := glbtest.Model(t), posterPNG(t, 64, 48)
		require.NoError(t, s.env.Blobs.Bucket.WriteAll(ctx, "models/"+bp+"/model.glb", model, nil))
		require.NoError(t, s.env.Blobs.Bucket.WriteAll(ctx, "models/"+bp+"/thumbnail.png", poster, nil))
		tok, _, err := s.tokens.Issue(user)
		require.NoError(t, err)
		body, _ := json.Marshal(map[string]any{"name": "LAN chair", "blueprintId": bp})
		rec := onLAN(t, s.h, http.MethodPost, "/api/products", tok, bytes.NewReader(body), "application/json")
		require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
		var created struct{ Data productReply }
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &created))

		var list struct {
			Data struct{ Items []productReply }
		}
		getOnLAN(t, s.h, "/api/products", tok, &list)
		require.Len(t, list.Data.Items, 1)
		require.NotEmpty(t, list.Data.Items[0].ThumbnailURL)
		requireOnLAN(t, s.h, list.Data.Items[0].ThumbnailURL, poster)

		var one struct{ Data productReply }
		getOnLAN(t, s.h, "/api/products/"+created.Data.ID, tok, &one)
		requireOnLAN(t, s.h, one.Data.ThumbnailURL, poster)
		require.NotEmpty(t, one.Data.ModelURL)
		// The product's model is its configurator GLB (the variants written in).
		require.Equal(t, "glTF", string(requireOnLAN(t, s.h, one.Data.ModelURL, nil)[:4]))
	})
	t.Run("avatar and logo", func(t *testing.T) {
		t.Parallel()
		b := acctSetup(t, acctOpts{})
		s := b.signup(t, "lan@example.com", "password1", "Lan")
		for _, path := range []string{"/api/users/me/avatar", "/api/branding/logo"} {
			body, ct := multipartFile(t, "file", "me.png", pngFile(t, 64, 64))
			rec := onLAN(t, b.h, http.MethodPost, path, s.Token, bytes.NewReader(body), ct)
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		}
		var me struct {
			Data struct {
				AvatarURL *string `json:"avatarUrl"`
			}
		}
		getOnLAN(t, b.h, "/api/users/me", s.Token, &me)
		require.NotNil(t, me.Data.AvatarURL)
		requireOnLAN(t, b.h, *me.Data.AvatarURL, nil)
		// The profile form sends the URL it was given back unchanged: still its avatar.
		patch, _ := json.Marshal(map[string]any{"firstName": "Lan", "avatarUrl": *me.Data.AvatarURL})
		rec := onLAN(t, b.h, http.MethodPatch, "/api/users/me", s.Token, bytes.NewReader(patch), "application/json")
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		// As does a form opened before this change, with the URL on PUBLIC_BASE_URL.
		patch, _ = json.Marshal(map[string]any{"avatarUrl": acctBase + *me.Data.AvatarURL})
		rec = onLAN(t, b.h, http.MethodPatch, "/api/users/me", s.Token, bytes.NewReader(patch), "application/json")
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		// Someone else's media is not an avatar one can claim.
		patch, _ = json.Marshal(map[string]any{"avatarUrl": "/media/avatars/someone-else/x.png"})
		rec = onLAN(t, b.h, http.MethodPatch, "/api/users/me", s.Token, bytes.NewReader(patch), "application/json")
		require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())

		var brand struct {
			Data struct {
				LogoURL *string `json:"logoUrl"`
			}
		}
		getOnLAN(t, b.h, "/api/branding", s.Token, &brand)
		require.NotNil(t, brand.Data.LogoURL)
		requireOnLAN(t, b.h, *brand.Data.LogoURL, nil)
	})
}
