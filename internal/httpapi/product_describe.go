package httpapi

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/httprate"

	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/describe"
)

// "Generate with AI" for a product's description (issue 29 item 17, spec
// §4): POST /api/products/{id}/describe asks the configured chat model
// (internal/describe) and answers {description}; it does not save it: the
// merchant reads, edits and saves it like any description. Owner-scoped
// (another merchant's product is 404), a session or a write key, and
// DescribeRateLimit calls per minute per account, since each one costs the
// operator a model call.

// DescribeRateLimit is AI descriptions per minute per account.
const DescribeRateLimit = 10

func mountProductDescribe(priv chi.Router, s *catalog.Service, w *describe.Writer) {
	// Off (no LLM_URL): the route answers 404 ai_not_configured, and GET
	// /api/config says aiDescriptions=false so the app hides the button.
	priv.With(httprate.Limit(DescribeRateLimit, time.Minute, httprate.WithKeyFuncs(func(r *http.Request) (string, error) {
		return currentWorkspace(r), nil
	}), httprate.WithLimitHandler(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "60")
		WriteError(w, r, describe.ErrBusy)
	}))).Method("POST", "/products/{id}/describe", describeProduct(s, w))
}

// describeProduct serves POST /api/products/{id}/describe → {description}.
func describeProduct(s *catalog.Service, w *describe.Writer) Handler {
	return func(rw http.ResponseWriter, r *http.Request) error {
		p, err := s.Product(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"))
		if err != nil {
			return err
		}
		text, err := w.Describe(r.Context(), factsOf(p))
		if err != nil {
			return err
		}
		WriteJSON(rw, http.StatusOK, map[string]string{"description": text})
		return nil
	}
}

// factsOf is what the model may know of a product: its own data only.
func factsOf(p catalog.Product) describe.Facts {
	f := describe.Facts{Name: p.Name, Description: p.Description, Tags: p.Tags}
	for _, v := range p.Config.Variants {
		name := v.Name
		if v.Material != "" {
			name += " (" + v.Material + ")"
		}
		f.Variants = append(f.Variants, name)
	}
	return f
}
