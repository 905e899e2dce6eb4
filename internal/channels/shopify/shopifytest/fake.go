// Package shopifytest is an in-process fake of the parts of Shopify's
// GraphQL Admin API the channel uses, speaking the documented request and
// response shapes: the X-Shopify-Access-Token header (401 when wrong),
// POST /admin/api/{version}/graphql.json with {query, variables}, data and
// userErrors/mediaUserErrors, cost extensions with throttleStatus, and the
// THROTTLED error when a query's cost exceeds what the bucket holds; the
// staged upload targets are multipart POST endpoints of the fake itself.
package shopifytest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Fake is a one-store Shopify.
type Fake struct {
	Server *httptest.Server
	Token  string

	mu       sync.Mutex
	Products map[string]string      // gid → title
	Media    map[string][]FakeMedia // product gid → media
	Uploads  map[string][]byte      // resourceUrl → uploaded bytes
	// ThrottleNext makes the next N GraphQL calls answer THROTTLED.
	ThrottleNext int
	Calls        []string // operation names, in order
	nextID       int
}

// FakeMedia is one media item on a product.
type FakeMedia struct {
	ID, Type, Source, Alt string
}

// New starts a fake store holding products (gid → title).
func New(t testing.TB, token string, products map[string]string) *Fake {
	f := &Fake{Token: token, Products: products, Media: map[string][]FakeMedia{}, Uploads: map[string][]byte{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /admin/api/{version}/graphql.json", f.graphql)
	mux.HandleFunc("POST /staged/{id}", f.upload)
	f.Server = httptest.NewServer(mux)
	t.Cleanup(f.Server.Close)
	return f
}

func (f *Fake) id(kind string) string {
	f.nextID++
	return fmt.Sprintf("gid://shopify/%s/%d", kind, 1000+f.nextID)
}

func op(query string) string {
	for _, name := range []string{"stagedUploadsCreate", "productCreateMedia", "productDeleteMedia", "products(", "shop {"} {
		if strings.Contains(query, name) {
			return strings.TrimSuffix(strings.TrimSuffix(name, "("), " {")
		}
	}
	return ""
}

func (f *Fake) graphql(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("X-Shopify-Access-Token") != f.Token {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"errors":"[API] Invalid API key or access token (unrecognized login or wrong password)"}`)
		return
	}
	var req struct {
		Query     string          `json:"query"`
		Variables json.RawMessage `json:"variables"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	name := op(req.Query)
	f.Calls = append(f.Calls, name)
	cost := map[string]any{"requestedQueryCost": 10, "actualQueryCost": 10,
		"throttleStatus": map[string]any{"maximumAvailable": 2000, "currentlyAvailable": 1990, "restoreRate": 100}}
	if f.ThrottleNext > 0 {
		f.ThrottleNext--
		cost = map[string]any{"requestedQueryCost": 60, "actualQueryCost": nil,
			"throttleStatus": map[string]any{"maximumAvailable": 2000, "currentlyAvailable": 10, "restoreRate": 100}}
		writeJSON(w, map[string]any{"errors": []any{map[string]any{"message": "Throttled", "extensions": map[string]any{"code": "THROTTLED",
			"documentation": "https://shopify.dev/api/usage/rate-limits"}}}, "extensions": map[string]any{"cost": cost}})
		return
	}
	var data any
	switch name {
	case "shop":
		data = map[string]any{"shop": map[string]any{"name": "Fake Store"}}
	case "products":
		var v struct{ Query string }
		_ = json.Unmarshal(req.Variables, &v)
		term := strings.ToLower(strings.Trim(strings.TrimPrefix(v.Query, "title:"), "*"))
		nodes := []any{}
		for id, title := range f.Products {
			if strings.Contains(strings.ToLower(title), term) {
				nodes = append(nodes, map[string]any{"id": id, "title": title})
			}
		}
		data = map[string]any{"products": map[string]any{"nodes": nodes}}
	case "stagedUploadsCreate":
		var v struct {
			Input []struct{ Resource, Filename, MimeType, FileSize, HTTPMethod string }
		}
		_ = json.Unmarshal(req.Variables, &v)
		targets, ues := []any{}, []any{}
		for i, in := range v.Input {
			if in.Resource != "MODEL_3D" && in.Resource != "IMAGE" {
				ues = append(ues, map[string]any{"field": []string{"input", fmt.Sprint(i), "resource"}, "message": "Resource is invalid"})
				continue
			}
			key := f.id("StagedUpload")
			id := key[strings.LastIndex(key, "/")+1:]
			targets = append(targets, map[string]any{"url": f.Server.URL + "/staged/" + id,
				"resourceUrl": f.Server.URL + "/staged/" + id + "/" + in.Filename,
				"parameters":  []any{map[string]any{"name": "key", "value": "tmp/" + id + "/" + in.Filename}, map[string]any{"name": "Content-Type", "value": in.MimeType}}})
		}
		data = map[string]any{"stagedUploadsCreate": map[string]any{"stagedTargets": targets, "userErrors": ues}}
	case "productCreateMedia":
		var v struct {
			ProductID string
			Media     []struct{ OriginalSource, MediaContentType, Alt string }
		}
		_ = json.Unmarshal(req.Variables, &v)
		if _, ok := f.Products[v.ProductID]; !ok {
			data = map[string]any{"productCreateMedia": map[string]any{"media": nil,
				"mediaUserErrors": []any{map[string]any{"field": []string{"productId"}, "message": "Product does not exist"}}}}
			break
		}
		out, ues := []any{}, []any{}
		for i, m := range v.Media {
			if _, ok := f.Uploads[m.OriginalSource]; !ok {
				ues = append(ues, map[string]any{"field": []string{"media", fmt.Sprint(i), "originalSource"}, "message": "Image URL is invalid"})
				continue
			}
			kind := map[string]string{"MODEL_3D": "Model3d", "IMAGE": "MediaImage"}[m.MediaContentType]
			fm := FakeMedia{ID: f.id(kind), Type: m.MediaContentType, Source: m.OriginalSource, Alt: m.Alt}
			f.Media[v.ProductID] = append(f.Media[v.ProductID], fm)
			out = append(out, map[string]any{"id": fm.ID, "mediaContentType": fm.Type, "status": "UPLOADED"})
		}
		data = map[string]any{"productCreateMedia": map[string]any{"media": out, "mediaUserErrors": ues}}
	case "productDeleteMedia":
		var v struct {
			ProductID string
			MediaIDs  []string `json:"mediaIds"`
		}
		_ = json.Unmarshal(req.Variables, &v)
		deleted, ues := []string{}, []any{}
		for _, id := range v.MediaIDs {
			ms := f.Media[v.ProductID]
			found := false
			for i, m := range ms {
				if m.ID == id {
					f.Media[v.ProductID] = append(ms[:i:i], ms[i+1:]...)
					deleted, found = append(deleted, id), true
					break
				}
			}
			if !found {
				ues = append(ues, map[string]any{"field": []string{"mediaIds"}, "message": "Media id " + id + " does not exist"})
			}
		}
		data = map[string]any{"productDeleteMedia": map[string]any{"deletedMediaIds": deleted, "mediaUserErrors": ues}}
	default:
		writeJSON(w, map[string]any{"errors": []any{map[string]any{"message": "unknown operation"}}})
		return
	}
	writeJSON(w, map[string]any{"data": data, "extensions": map[string]any{"cost": cost}})
}

func (f *Fake) upload(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseMultipartForm(64 << 20); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	file, h, err := r.FormFile("file")
	if err != nil || r.FormValue("key") == "" {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	b, _ := io.ReadAll(file)
	f.mu.Lock()
	f.Uploads[f.Server.URL+"/staged/"+r.PathValue("id")+"/"+h.Filename] = b
	f.mu.Unlock()
	w.WriteHeader(http.StatusCreated)
}

// MediaOf returns a product's media (a copy).
func (f *Fake) MediaOf(productID string) []FakeMedia {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]FakeMedia(nil), f.Media[productID]...)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
