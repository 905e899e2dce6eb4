package httpapi

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/channels"
	"github.com/photo3d/photo3d/internal/fault"
)

// errChannelsNotReady: the product has no model to package yet.
var errChannelsNotReady = fault.New(fault.Conflict, "product_not_ready",
	"This product's 3D model is not ready yet. Its channel files are made when the build has finished.")

// productChannels serves GET /api/products/{id}/channels (issue 32): every
// channel file of the caller's product as it stands: ready (its size
// against the channel's budget and what was reduced), pending (the worker
// has not made it yet: this request queues the channel_files job) or
// refused (it cannot be made within the budget, and why). Nothing is built
// here (security review 3, item H1). Another merchant's product is a 404.
func productChannels(s *catalog.Service, pk *channels.Packager, q *channels.Queue) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, err := s.ProductConfig(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"))
		if err != nil {
			return err
		}
		if pk == nil {
			return fault.New(fault.Unavailable, "channels_unavailable", "Channel files cannot be made on this server (no file store).")
		}
		if p.Status != catalog.StatusReady || p.ModelKey == "" {
			// No model yet: no channel files yet (the panel says so). An
			// empty list, not an error: the product page asks as soon as
			// it shows a product, which may still be building.
			WriteJSON(w, http.StatusOK, map[string]any{"productId": p.ID, "assets": []channels.Asset{}})
			return nil
		}
		names := map[string]string{}
		for _, v := range p.Config.Variants {
			names[v.ID] = v.Name
		}
		vs := variantsOf(p.Config)
		assets, pending, err := pk.Report(r.Context(), p.ModelKey, vs, names)
		if err != nil {
			return err
		}
		if pending {
			if err := q.Request(r.Context(), channels.NewFilesArgs(p.UserID, p.ID, p.ModelKey, vs)); err != nil {
				return err
			}
		}
		WriteJSON(w, http.StatusOK, map[string]any{"productId": p.ID, "assets": assets})
		return nil
	}
}
