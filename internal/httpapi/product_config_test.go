package httpapi

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/catalog"
)

type configReply struct {
	Variants []catalog.Variant `json:"variants"`
	Hotspots []catalog.Hotspot `json:"hotspots"`
	Links    []struct {
		ID        string                `json:"id"`
		URL       string                `json:"url"`
		VariantID string                `json:"variantId"`
		Platform  *catalog.LinkPlatform `json:"platform"`
	} `json:"links"`
	Presets catalog.Presets `json:"presets"`
}

// TestProductConfigurationOverHTTP walks the configurator's calls: the
// Default variant, a second variant with SKU and price, the Leather/Fabric
// rule, a hotspot, links with platform chips, presets — and GET
// /products/{id} answering all of it.
func TestProductConfigurationOverHTTP(t *testing.T) {
	t.Parallel()
	s := newCatalogueStack(t)
	user := s.env.User(t)
	_, r := s.json(t, user, "POST", "/api/products", map[string]any{"name": "Boot", "blueprintId": s.env.Blueprint(t, user, "ready")})
	p := decodeAs[productReply](t, r.Data)
	base := "/api/products/" + p.ID

	// Per-part materials need the part-type option (Pro; a trial counts).
	rec, r := s.json(t, user, "POST", base+"/variants", map[string]any{"parts": map[string]string{"Sole": "matte-black"}})
	require.Equal(t, http.StatusForbidden, rec.Code, rec.Body.String())
	require.Equal(t, "Part type options are available on Pro. Upgrade your plan to enable part-specific configuration.", r.Error.Message)
	startTrialFor(t, s, user)

	rec, r = s.json(t, user, "GET", base, nil)
	require.Equal(t, http.StatusOK, rec.Code)
	cfg := decodeAs[configReply](t, r.Data)
	require.Len(t, cfg.Variants, 1)
	require.Equal(t, "v1", cfg.Variants[0].ID)
	require.Equal(t, "Default", cfg.Variants[0].Name)
	require.Equal(t, catalog.DefaultPresets(), cfg.Presets)
	require.Empty(t, cfg.Hotspots)
	require.Empty(t, cfg.Links)

	rec, r = s.json(t, user, "POST", base+"/variants", map[string]any{"material": "leather-tan", "sku": " BOOT-TAN ", "price": 49.5, "currency": "USD"})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	v2 := decodeAs[configReply](t, []byte(`{"variants":[`+string(r.Data)+`]}`)).Variants[0]
	require.Equal(t, "v2", v2.ID)
	require.Equal(t, "Variant 2", v2.Name)
	require.Equal(t, "BOOT-TAN", v2.SKU)
	require.InDelta(t, 49.5, *v2.Price, 0)

	// The rule and the field checks, each with its message; nothing stored.
	for _, c := range []struct {
		method, path string
		body         any
		code         string
	}{
		{"POST", base + "/variants", map[string]any{"material": "leather-tan", "parts": map[string]string{"Sole": "fabric-grey"}}, "leather_excludes_fabric"},
		{"PATCH", base + "/variants/v2", map[string]any{"parts": map[string]string{"Lining": "fabric-grey"}}, "leather_excludes_fabric"},
		{"POST", base + "/variants", map[string]any{"material": "gold"}, "invalid_material"},
		{"POST", base + "/variants", map[string]any{"sku": strings.Repeat("s", 65)}, "sku_too_long"},
		{"POST", base + "/variants", map[string]any{"price": -1, "currency": "USD"}, "invalid_price"},
		{"POST", base + "/variants", map[string]any{"price": "ten", "currency": "USD"}, "invalid_price"},
		{"POST", base + "/variants", map[string]any{"price": 10}, "invalid_currency"},
		{"POST", base + "/variants", map[string]any{"price": 10, "currency": "XYZ"}, "invalid_currency"},
		{"POST", base + "/variants", map[string]any{"name": "  "}, "variant_name_required"},
		{"POST", base + "/hotspots", map[string]any{"x": 0.5}, "hotspot_point_required"},
		{"POST", base + "/hotspots", map[string]any{"position": []float64{1, 2}, "normal": []float64{0, 1, 0}}, "invalid_position"},
		{"POST", base + "/hotspots", map[string]any{"position": []float64{1, 2, 3}, "normal": []float64{0, 0, 0}}, "invalid_normal"},
		{"POST", base + "/hotspots", map[string]any{"position": []float64{1, 2, 3}, "normal": []float64{0, 1, 0}, "x": 1.5}, "invalid_xy"},
		{"POST", base + "/hotspots", map[string]any{"position": []float64{1, 2, 3}, "normal": []float64{0, 1, 0}, "text": strings.Repeat("t", 501)}, "hotspot_text_too_long"},
		{"POST", base + "/links", map[string]any{"url": "javascript:alert(1)"}, "invalid_link"},
		{"POST", base + "/links", map[string]any{"url": "ftp://amazon.com/x"}, "invalid_link"},
		{"POST", base + "/links", map[string]any{"url": "https://amazon.com/" + strings.Repeat("a", 2048)}, "link_too_long"},
		{"POST", base + "/links", map[string]any{"url": ""}, "link_required"},
		{"PUT", base + "/presets", map[string]any{"lighting": "Disco", "background": "Transparent", "autospin": true}, "invalid_lighting"},
		{"PUT", base + "/presets", map[string]any{"lighting": "Studio", "background": "Stars", "autospin": true}, "invalid_background"},
		{"PUT", base + "/presets", map[string]any{"lighting": "Studio", "background": "Solid Color", "backgroundColor": "red", "autospin": true}, "invalid_background_color"},
		{"PUT", base + "/presets", map[string]any{"lighting": "Studio", "background": "Gradient", "cameraOrbit": "0deg; drop", "autospin": true}, "invalid_camera_orbit"},
		{"PUT", base + "/presets", map[string]any{"lighting": "Studio", "background": "Gradient"}, "autospin_required"},
	} {
		rec, r := s.json(t, user, c.method, c.path, c.body)
		require.Equal(t, http.StatusBadRequest, rec.Code, "%s %s %v: %s", c.method, c.path, c.body, rec.Body.String())
		require.Equal(t, c.code, r.Error.Code, "%v", c.body)
		require.NotEmpty(t, r.Error.Message)
	}
	rec, r = s.json(t, user, "POST", base+"/variants", map[string]any{"material": "leather-tan", "parts": map[string]string{"Sole": "fabric-grey"}})
	require.Equal(t, "Leather excludes Fabric: a variant cannot combine leather-tan and fabric-grey.", r.Error.Message, rec.Body.String())
	rec, _ = s.call(t, user, "POST", base+"/variants", "application/json", []byte(`{"name":"A"} {"name":"B"}`))
	require.Equal(t, http.StatusBadRequest, rec.Code, "trailing JSON is refused")

	// Default cannot be deleted; unknown ids are 404.
	rec, r = s.json(t, user, "DELETE", base+"/variants/v1", nil)
	require.Equal(t, http.StatusConflict, rec.Code)
	require.Equal(t, "The Default variant cannot be deleted.", r.Error.Message)
	for _, path := range []string{base + "/variants/v9", base + "/hotspots/h9", base + "/links/l9"} {
		rec, _ = s.json(t, user, "DELETE", path, nil)
		require.Equal(t, http.StatusNotFound, rec.Code, path)
	}
	rec, _ = s.json(t, user, "POST", base+"/links", map[string]any{"url": "amazon.in/dp/B0X", "variantId": "v9"})
	require.Equal(t, http.StatusNotFound, rec.Code, "a link for an unknown variant")

	// PATCH keeps what is absent, "price": null clears.
	rec, r = s.json(t, user, "PATCH", base+"/variants/v2", map[string]any{"name": "Tan", "price": nil})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.JSONEq(t, `{"id":"v2","name":"Tan","material":"leather-tan","parts":{},"sku":"BOOT-TAN","price":null,"currency":""}`, string(r.Data))

	rec, r = s.json(t, user, "POST", base+"/hotspots", map[string]any{"position": []float64{0.1, 0.2, 0.3}, "normal": []float64{0, 2, 0}, "x": 0.25, "y": 0.75, "text": "Stitched sole"})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	require.JSONEq(t, `{"id":"h1","position":[0.1,0.2,0.3],"normal":[0,1,0],"x":0.25,"y":0.75,"title":"Point 1","text":"Stitched sole"}`, string(r.Data))
	rec, r = s.json(t, user, "PATCH", base+"/hotspots/h1", map[string]any{"position": []float64{0.4, 0.5, 0.6}, "title": "Sole"})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.JSONEq(t, `{"id":"h1","position":[0.4,0.5,0.6],"normal":[0,1,0],"x":0.25,"y":0.75,"title":"Sole","text":"Stitched sole"}`, string(r.Data))

	rec, r = s.json(t, user, "POST", base+"/links", map[string]any{"url": "www.amazon.in/dp/B0X?tag=1"})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	require.JSONEq(t, `{"id":"l1","url":"https://www.amazon.in/dp/B0X?tag=1","variantId":"","platform":{"key":"amazon","label":"Amazon","accent":"#FF9900","shortUrl":"amazon.in/dp/B0X"}}`, string(r.Data))
	rec, r = s.json(t, user, "POST", base+"/links", map[string]any{"url": "https://www.etsy.com/listing/1", "variantId": "v2"})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	require.Contains(t, string(r.Data), `"variantId":"v2"`)

	rec, r = s.json(t, user, "PUT", base+"/presets", map[string]any{"lighting": "Dramatic", "background": "Solid Color", "backgroundColor": "#a0b0c0", "cameraOrbit": "45deg  60deg 2m", "autospin": false})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.JSONEq(t, `{"lighting":"Dramatic","background":"Solid Color","backgroundColor":"#A0B0C0","cameraOrbit":"45deg 60deg 2m","autospin":false,
		"exposure":1,"poster":"model","defaultVariantId":""}`, string(r.Data))
	// Exposure, the poster and the opening variant (issue 52); left out of a
	// later PUT, they stay.
	for _, bad := range []map[string]any{{"exposure": 0}, {"exposure": 2.5}, {"poster": "photo"}, {"defaultVariantId": "v9"}} {
		body := map[string]any{"lighting": "Dramatic", "background": "Solid Color", "autospin": false}
		for k, v := range bad {
			body[k] = v
		}
		rec, r = s.json(t, user, "PUT", base+"/presets", body)
		require.Equal(t, http.StatusBadRequest, rec.Code, "%v: %s", bad, rec.Body.String())
	}
	require.Equal(t, "invalid_default_variant", r.Error.Code)
	rec, r = s.json(t, user, "PUT", base+"/presets", map[string]any{"lighting": "Dramatic", "background": "Solid Color",
		"backgroundColor": "#a0b0c0", "cameraOrbit": "45deg 60deg 2m", "autospin": false, "exposure": 1.25, "poster": "none", "defaultVariantId": "v2"})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	rec, r = s.json(t, user, "PUT", base+"/presets", map[string]any{"lighting": "Dramatic", "background": "Solid Color",
		"backgroundColor": "#a0b0c0", "cameraOrbit": "45deg 60deg 2m", "autospin": false})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.JSONEq(t, `{"lighting":"Dramatic","background":"Solid Color","backgroundColor":"#A0B0C0","cameraOrbit":"45deg 60deg 2m","autospin":false,
		"exposure":1.25,"poster":"none","defaultVariantId":"v2"}`, string(r.Data))

	_, r = s.json(t, user, "GET", base, nil)
	cfg = decodeAs[configReply](t, r.Data)
	require.Len(t, cfg.Variants, 2)
	require.Len(t, cfg.Hotspots, 1)
	require.Len(t, cfg.Links, 2)
	require.Equal(t, "Etsy", cfg.Links[1].Platform.Label)
	require.Equal(t, "Dramatic", cfg.Presets.Lighting)

	// Deleting a variant drops its own links (shoppers fall back to the
	// product's); a new variant never reuses the deleted id.
	rec, _ = s.json(t, user, "DELETE", base+"/variants/v2", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	_, r = s.json(t, user, "GET", base, nil)
	require.Empty(t, decodeAs[configReply](t, r.Data).Presets.DefaultVariantID, "the page opens on the first variant again")
	_, r = s.json(t, user, "POST", base+"/variants", map[string]any{})
	require.Contains(t, string(r.Data), `"id":"v3"`)
	require.Contains(t, string(r.Data), `"name":"Variant 3"`)
	_, r = s.json(t, user, "GET", base, nil)
	cfg = decodeAs[configReply](t, r.Data)
	require.Len(t, cfg.Links, 1)
	require.Equal(t, "l1", cfg.Links[0].ID)

	// GET /link-platform answers the same verdict as the stored link.
	rec, r = s.json(t, user, "GET", "/api/link-platform?url="+url.QueryEscape("m.facebook.com/acme/shop/"), nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.JSONEq(t, `{"url":"https://m.facebook.com/acme/shop/","platform":{"key":"facebook","label":"Facebook Shop","accent":"#1877F2","shortUrl":"m.facebook.com/acme/shop/"}}`, string(r.Data))
	_, r = s.json(t, user, "GET", "/api/link-platform?url="+url.QueryEscape("not a url"), nil)
	require.JSONEq(t, `{"url":"https://not a url","platform":null}`, string(r.Data))
	rec, _ = s.call(t, "", "GET", "/api/link-platform?url=amazon.in", "", nil)
	require.Equal(t, http.StatusUnauthorized, rec.Code)
}

// TestProductConfigurationIsOwnerScoped: another merchant's product and
// item ids are not found, and nothing is appended.
func TestProductConfigurationIsOwnerScoped(t *testing.T) {
	t.Parallel()
	s := newCatalogueStack(t)
	owner, stranger := s.env.User(t), s.env.User(t)
	_, r := s.json(t, owner, "POST", "/api/products", map[string]any{"name": "Mine", "blueprintId": s.env.Blueprint(t, owner, "ready")})
	base := "/api/products/" + decodeAs[productReply](t, r.Data).ID
	_, _ = s.json(t, owner, "POST", base+"/variants", map[string]any{})
	_, _ = s.json(t, owner, "POST", base+"/hotspots", map[string]any{"position": []float64{0, 0, 0}, "normal": []float64{0, 1, 0}})
	_, _ = s.json(t, owner, "POST", base+"/links", map[string]any{"url": "etsy.com/listing/1"})
	_, r = s.json(t, owner, "GET", base, nil)
	before := decodeAs[configReply](t, r.Data)
	events := s.eventCount(t, "product.variant_added.v1")

	hotspot := map[string]any{"position": []float64{0, 0, 0}, "normal": []float64{0, 1, 0}}
	presets := map[string]any{"lighting": "Outdoor", "background": "Transparent", "autospin": true}
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{"POST", base + "/variants", map[string]any{}},
		{"PATCH", base + "/variants/v2", map[string]any{"name": "Theirs"}},
		{"DELETE", base + "/variants/v2", nil},
		{"POST", base + "/hotspots", hotspot},
		{"PATCH", base + "/hotspots/h1", map[string]any{"title": "Theirs"}},
		{"DELETE", base + "/hotspots/h1", nil},
		{"POST", base + "/links", map[string]any{"url": "amazon.in/dp/1"}},
		{"DELETE", base + "/links/l1", nil},
		{"PUT", base + "/presets", presets},
		{"POST", "/api/products/not-a-uuid/variants", map[string]any{}},
	} {
		rec, _ := s.json(t, stranger, c.method, c.path, c.body)
		require.Equal(t, http.StatusNotFound, rec.Code, "%s %s: %s", c.method, c.path, rec.Body.String())
	}
	_, r = s.json(t, owner, "GET", base, nil)
	require.Equal(t, before, decodeAs[configReply](t, r.Data), "the stranger changed nothing")
	require.Equal(t, events, s.eventCount(t, "product.variant_added.v1"))
	require.Len(t, before.Variants, 2)
	require.Len(t, before.Hotspots, 1)
	require.Len(t, before.Links, 1)
}
