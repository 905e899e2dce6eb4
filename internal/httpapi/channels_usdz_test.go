package httpapi

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/channels/usdz"
)

// Issue 32, item 1: a product page names each variant's server-built USDZ
// in model-viewer's ios-src, and /v/{slug}/ar/{variantId}.usdz serves it as
// model/vnd.usdz+zip: a package that passes the USDZ structural checks,
// carrying that variant's colours, built once per version and variant by
// the worker.
// Unknown variants, gated pages without the gate's token and unpublished
// pages get no file.
func TestProductPageServesQuickLookUSDZ(t *testing.T) {
	t.Parallel()
	s := newProductPubStack(t)
	user, id := s.readyProduct(t, "Chair")
	startTrialFor(t, s.creationStack, user)
	s.ok(t, user, "POST", "/api/products/"+id+"/variants", map[string]any{"name": "Black", "material": "matte-black"})
	rec, r := s.json(t, user, "POST", "/api/products/"+id+"/publish", map[string]any{})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	pub := decodeAs[publishReply](t, r.Data)

	mv := viewerTag.FindString(s.shopper(t, "GET", "/v/"+pub.Slug, "").Body.String())
	require.Contains(t, mv, ` ios-src="/v/`+pub.Slug+`/ar/v1.usdz"`)

	get := func(path string) *http.Response {
		return s.shopper(t, "GET", path, "").Result()
	}
	startModelWorker(t, s.env, s.env.Store) // the worker makes it (security review 3, H1)
	res := s.readyFile(t, "/v/"+pub.Slug+"/ar/v2.usdz")
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	require.Equal(t, usdz.ContentType, res.Header().Get("Content-Type"))
	rep, err := usdz.Check(res.Body.Bytes())
	require.NoError(t, err)
	require.Equal(t, usdz.RootLayer, rep.Entries[0])
	require.Equal(t, 2, rep.Meshes)
	require.Contains(t, res.Body.String(), `color3f inputs:diffuseColor = (0.02, 0.02, 0.02)`, "the black variant's colour")
	v1 := s.readyFile(t, "/v/"+pub.Slug+"/ar/v1.usdz")
	require.Equal(t, http.StatusOK, v1.Code)
	require.NotContains(t, v1.Body.String(), `(0.02, 0.02, 0.02)`, "the original variant keeps the model's colours")
	again := s.shopper(t, "GET", "/v/"+pub.Slug+"/ar/v2.usdz", "")
	require.Equal(t, res.Body.Bytes(), again.Body.Bytes())
	require.Equal(t, res.Header().Get("ETag"), again.Header().Get("ETag"), "cached: the same stored file")

	for _, p := range []string{"/ar/v9.usdz", "/ar/v2.usdz.zip", "/ar/v2.USDZ"} {
		require.Equal(t, http.StatusNotFound, get("/v/"+pub.Slug+p).StatusCode, p)
	}

	// The email gate covers the USDZ as it covers the GLBs.
	s.ok(t, user, "POST", "/api/products/"+id+"/publish", map[string]any{"requireEmail": true})
	require.Equal(t, http.StatusForbidden, get("/v/"+pub.Slug+"/ar/v2.usdz").StatusCode)
	mv = viewerTag.FindString(s.shopper(t, "GET", "/v/"+pub.Slug, "").Body.String())
	require.NotContains(t, mv, ` ios-src=`, "gated: the page names no working file until the email")
	require.Contains(t, mv, `data-ios-src="/v/`+pub.Slug+`/ar/v1.usdz"`)

	rec, _ = s.json(t, user, "DELETE", "/api/publications/"+pub.PublicationID, nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Equal(t, http.StatusNotFound, get("/v/"+pub.Slug+"/ar/v2.usdz").StatusCode, "unpublished")
}
