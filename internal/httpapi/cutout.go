package httpapi

import (
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/reconstruct"
	"github.com/photo3d/photo3d/internal/upload"
)

// cutoutView answers POST/GET /uploads/{id}/cutout: status pending | ready |
// failed; url (a signed same-origin PNG with alpha) only when ready, message
// only when failed.
type cutoutView struct {
	Status     string `json:"status"`
	URL        string `json:"url,omitempty"`
	CleanEdges bool   `json:"cleanEdges"`
	KeepShadow bool   `json:"keepShadow"`
	Width      int    `json:"width,omitempty"`
	Height     int    `json:"height,omitempty"`
	Message    string `json:"message,omitempty"`
}

type cutoutRequest struct {
	CleanEdges bool `json:"cleanEdges"`
	KeepShadow bool `json:"keepShadow"`
}

var errBadCutoutOption = fault.New(fault.Invalid, "invalid_cutout_option", "cleanEdges and keepShadow must be true or false.")

func writeCutout(w http.ResponseWriter, r *http.Request, s *upload.Service, c upload.Cutout) error {
	v := cutoutView{Status: c.Status, CleanEdges: c.CleanEdges, KeepShadow: c.KeepShadow}
	switch c.Status {
	case upload.CutoutReady:
		u, err := s.SignedURL(r.Context(), c.BlobKey)
		if err != nil {
			return err
		}
		v.URL, v.Width, v.Height = u, c.Width, c.Height
	case upload.CutoutFailed:
		v.Message = c.Message
	}
	status := http.StatusOK
	if c.Status == upload.CutoutPending {
		status = http.StatusAccepted
	}
	WriteJSON(w, status, v)
	return nil
}

// requestCutout serves POST /api/uploads/{id}/cutout {cleanEdges, keepShadow}:
// 200 with the cutout when the worker finishes within upload.CutoutWait,
// else 202 pending (poll GET).
func requestCutout(s *upload.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var req cutoutRequest
		if err := DecodeJSON(r, &req); err != nil {
			return err
		}
		c, err := s.RequestCutout(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"),
			reconstruct.CutoutOptions{CleanEdges: req.CleanEdges, KeepShadow: req.KeepShadow}, upload.CutoutWait)
		if err != nil {
			return err
		}
		return writeCutout(w, r, s, c)
	}
}

// getCutout serves GET /api/uploads/{id}/cutout?cleanEdges=&keepShadow=.
func getCutout(s *upload.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		q := r.URL.Query()
		var o reconstruct.CutoutOptions
		for _, f := range []struct {
			name string
			dst  *bool
		}{{"cleanEdges", &o.CleanEdges}, {"keepShadow", &o.KeepShadow}} {
			if v := q.Get(f.name); v != "" {
				b, err := strconv.ParseBool(v)
				if err != nil {
					return errBadCutoutOption
				}
				*f.dst = b
			}
		}
		c, err := s.GetCutout(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"), o)
		if err != nil {
			return err
		}
		return writeCutout(w, r, s, c)
	}
}
