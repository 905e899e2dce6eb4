package httpapi

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/go-chi/chi/v5"
	"gocloud.dev/gcerrors"

	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/channels"
	"github.com/photo3d/photo3d/internal/channels/shopify"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/glbvariants"
)

// mountShopify adds Settings → Channels' Shopify routes and the product's
// "Send to Shopify" (issue 32, item 2). The token goes in and never comes
// out: every answer is the shop's domain and whether it is connected.
func mountShopify(r chi.Router, svc *shopify.Service, cat *catalog.Service, pk *channels.Packager, q *channels.Queue) {
	if svc == nil || cat == nil {
		return
	}
	r.Method("GET", "/channels/shopify", Handler(func(w http.ResponseWriter, r *http.Request) error {
		c, err := svc.Status(r.Context(), currentWorkspace(r))
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, c)
		return nil
	}))
	r.Method("PUT", "/channels/shopify", Handler(func(w http.ResponseWriter, r *http.Request) error {
		var req struct {
			Shop  string `json:"shop"`
			Token string `json:"token"`
		}
		if err := DecodeJSON(r, &req); err != nil {
			return err
		}
		c, err := svc.Connect(r.Context(), currentWorkspace(r), req.Shop, req.Token)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, c)
		return nil
	}))
	r.Method("DELETE", "/channels/shopify", Handler(func(w http.ResponseWriter, r *http.Request) error {
		if err := svc.Disconnect(r.Context(), currentWorkspace(r)); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}))
	r.Method("GET", "/channels/shopify/products", Handler(func(w http.ResponseWriter, r *http.Request) error {
		items, err := svc.Search(r.Context(), currentWorkspace(r), r.URL.Query().Get("query"))
		if err != nil {
			return err
		}
		if items == nil {
			items = []shopify.Product{}
		}
		WriteJSON(w, http.StatusOK, map[string]any{"items": items})
		return nil
	}))
	r.Method("POST", "/products/{id}/channels/shopify", Handler(func(w http.ResponseWriter, r *http.Request) error {
		var req struct {
			ShopifyProductID string `json:"shopifyProductId"`
		}
		if err := DecodeJSON(r, &req); err != nil {
			return err
		}
		if pk == nil {
			return fault.New(fault.Unavailable, "channels_unavailable", "Channel files cannot be made on this server (no file store).")
		}
		p, err := cat.ProductConfig(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"))
		if err != nil {
			return err
		}
		if p.Status != catalog.StatusReady || p.ModelKey == "" || len(p.Config.Variants) == 0 {
			return errChannelsNotReady
		}
		if c, err := svc.Status(r.Context(), currentWorkspace(r)); err != nil {
			return err
		} else if !c.Connected {
			return shopify.ErrNotConnected
		}
		files, err := shopifyFiles(r.Context(), pk, q, p)
		if err != nil {
			if fault.IsKind(err, fault.Unavailable) {
				w.Header().Set("Retry-After", channelFileRetryAfter)
			}
			return err
		}
		sent, err := svc.Send(r.Context(), currentWorkspace(r), p.ID, req.ShopifyProductID, files)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, sent)
		return nil
	}))
}

// channelFileRetryAfter is the Retry-After of a send whose file is not
// made yet, in seconds.
const channelFileRetryAfter = "30"

// errChannelFilePending: the worker has not made the commerce GLB yet.
var errChannelFilePending = fault.New(fault.Unavailable, "channel_file_pending",
	"The 3D file for Shopify is still being prepared. Large models take a minute or two; please send it again shortly.")

// shopifyFiles are what a product sends: the default variant's commerce
// GLB (within Shopify's limits) and the poster, if it has one. The worker
// makes the GLB (security review 3, H1): while it is missing the job is
// queued and the send answers 503 with Retry-After; a file that cannot fit
// the budget is refused with the reason the Channels panel shows.
func shopifyFiles(ctx context.Context, pk *channels.Packager, q *channels.Queue, p catalog.Product) ([]shopify.File, error) {
	vs := variantsOf(p.Config)
	key := channels.FilesOf(p.ModelKey, vs[0]).Commerce
	glb, err := readBlob(ctx, pk, key)
	if gcerrors.Code(err) == gcerrors.NotFound {
		st, serr := pk.State(ctx, key)
		switch {
		case serr != nil:
			return nil, serr
		case st.Refused != "":
			return nil, fault.New(fault.Conflict, "channel_file_refused", st.Refused)
		case st.Ready: // made meanwhile
			glb, err = readBlob(ctx, pk, key)
		default:
			if err := q.Request(ctx, channels.NewFilesArgs(p.UserID, p.ID, p.ModelKey, vs)); err != nil {
				return nil, err
			}
			return nil, errChannelFilePending
		}
	}
	if err != nil {
		return nil, err
	}
	files := []shopify.File{{Name: "model.glb", MimeType: "model/gltf-binary", Resource: "MODEL_3D", Data: glb, Alt: p.Name + " in 3D"}}
	if p.ThumbnailKey != "" {
		png, err := readBlob(ctx, pk, p.ThumbnailKey)
		switch {
		case gcerrors.Code(err) == gcerrors.NotFound: // no poster (an uploaded model): the model alone
		case err != nil:
			return nil, err
		default:
			files = append(files, shopify.File{Name: "poster.png", MimeType: "image/png", Resource: "IMAGE", Data: png, Alt: p.Name})
		}
	}
	return files, nil
}

func readBlob(ctx context.Context, pk *channels.Packager, key string) ([]byte, error) {
	rd, err := pk.Bucket.NewReader(ctx, key, nil)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", key, err)
	}
	defer rd.Close()
	b, err := io.ReadAll(io.LimitReader(rd, glbvariants.MaxModelBytes))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", key, err)
	}
	return b, nil
}
