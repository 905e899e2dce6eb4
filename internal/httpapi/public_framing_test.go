package httpapi

import (
	"net/http"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/catalog"
)

var cameraOrbitAttr = regexp.MustCompile(` camera-orbit="([^"]*)"`)

// Issue 29 item 19: the public page and the embed frame a product as the
// merchant app does (the model with air around it, catalog.DefaultCameraOrbit),
// also a product stored with the old default, and keep a camera the merchant
// saved; a blueprint's share page frames the same way.
func TestPublicPageFramesLikeTheApp(t *testing.T) {
	t.Parallel()
	s := newProductPubStack(t)
	user, id := s.readyProduct(t, "Framed chair")
	startTrialFor(t, s.creationStack, user)
	pub := decodeAs[publishReply](t, s.ok(t, user, "POST", "/api/products/"+id+"/publish", map[string]any{}))
	orbit := func(path string) string {
		rec := s.shopper(t, "GET", path, "")
		require.Equal(t, http.StatusOK, rec.Code, path)
		m := cameraOrbitAttr.FindStringSubmatch(viewerTag.FindString(rec.Body.String()))
		require.Len(t, m, 2, "%s names a camera-orbit", path)
		return m[1]
	}
	require.Equal(t, "0deg 75deg 118%", catalog.DefaultCameraOrbit)
	for _, path := range []string{"/v/" + pub.Slug, "/embed/" + pub.Slug} {
		require.Equal(t, catalog.DefaultCameraOrbit, orbit(path), path)
	}
	// The old default, as every product made before stores it: no camera chosen.
	put := func(cameraOrbit string) {
		s.ok(t, user, "PUT", "/api/products/"+id+"/presets", map[string]any{"lighting": "Studio", "background": "Transparent",
			"backgroundColor": "#FFFFFF", "cameraOrbit": cameraOrbit, "autospin": true})
	}
	put(catalog.LegacyDefaultCameraOrbit)
	require.Equal(t, catalog.DefaultCameraOrbit, orbit("/v/"+pub.Slug))
	// A camera the merchant saved is theirs.
	put("0.5rad 1.2rad 3.4m")
	for _, path := range []string{"/v/" + pub.Slug, "/embed/" + pub.Slug} {
		require.Equal(t, "0.5rad 1.2rad 3.4m", orbit(path), path)
	}
	put("0deg 75deg 140%")
	require.Equal(t, "0deg 75deg 140%", orbit("/v/"+pub.Slug))
	// The stage colour reaches the page script as written: html/template
	// escaped a data-background attribute as a URL ("Solid%20Color"), so the
	// Solid Color and Gradient presets never showed.
	s.ok(t, user, "PUT", "/api/products/"+id+"/presets", map[string]any{"lighting": "Studio", "background": "Solid Color",
		"backgroundColor": "#FF00FF", "cameraOrbit": "", "autospin": true})
	tag := viewerTag.FindString(s.shopper(t, "GET", "/v/"+pub.Slug, "").Body.String())
	require.Contains(t, tag, ` data-backdrop="Solid Color" data-background-color="#FF00FF"`)
	require.Contains(t, tag, ` camera-orbit="`+catalog.DefaultCameraOrbit+`" max-camera-orbit="auto auto 200%"`,
		"model-viewer clamps the orbit to its max-camera-orbit, 105 % unless the page says otherwise")

	// A blueprint's own share page (no presets) frames the same way.
	bp := s.env.Blueprint(t, user, "ready")
	bpPub := decodeAs[publishReply](t, s.ok(t, user, "POST", "/api/publications", map[string]any{"blueprintId": bp}))
	require.Equal(t, catalog.DefaultCameraOrbit, orbit("/v/"+bpPub.Slug))
	require.Equal(t, catalog.DefaultCameraOrbit, orbit("/embed/"+bpPub.Slug))
}
