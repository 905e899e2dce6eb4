package httpapi

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/reconstruct"
)

var (
	errModelTooLarge = fault.New(fault.Invalid, "model_too_large", "Model files can be at most 50 MB in total.")
	errModelForm     = fault.New(fault.Invalid, "model_files", "Upload one .glb file, or one .gltf file together with its .bin and image files.")
)

// modelFormOverhead allows for multipart headers around the files.
const modelFormOverhead = 1 << 20

// uploadProductModel serves POST /api/products/{id}/model: multipart with
// one .glb, or one .gltf plus its .bin and images, all in fields named
// "file" (50 MB in total). The whole form is read, bounded; the api checks
// only cheap things (the set of files, the product, the quota), stores the
// files and queues their preparation on the worker (catalog.SubmitModel),
// then waits up to catalog.ModelWait: the answer is the product detail with
// the new model (200), the refusal (400 with its message), or 202
// {id, status: "preparing"} to poll at GET …/model/{submissionId}.
func uploadProductModel(s productDeps) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if mt != "multipart/form-data" {
			return errModelForm
		}
		if r.ContentLength > reconstruct.MaxModelUploadBytes+modelFormOverhead {
			return errModelTooLarge
		}
		r.Body = http.MaxBytesReader(w, r.Body, reconstruct.MaxModelUploadBytes+modelFormOverhead)
		mr, err := r.MultipartReader()
		if err != nil {
			return errModelForm
		}
		var files []reconstruct.ModelFile
		total := 0
		for {
			part, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return modelFormErr(err)
			}
			if part.FormName() != "file" || part.FileName() == "" {
				_, _ = io.Copy(io.Discard, part)
				continue
			}
			if len(files) == 64 {
				return errModelForm
			}
			data, err := io.ReadAll(io.LimitReader(part, int64(reconstruct.MaxModelUploadBytes-total+1)))
			if err != nil {
				return modelFormErr(err)
			}
			if total += len(data); total > reconstruct.MaxModelUploadBytes {
				return errModelTooLarge
			}
			files = append(files, reconstruct.ModelFile{Name: part.FileName(), Data: data})
		}
		if len(files) == 0 {
			return errModelForm
		}
		user, id := currentWorkspace(r), chi.URLParam(r, "id")
		sub, err := s.SubmitModel(r.Context(), user, id, files)
		if err != nil {
			return err
		}
		files = nil // the worker reads them back from the store
		if sub, err = s.WaitModel(r.Context(), user, id, sub.ID, s.ModelWaitLimit()); err != nil {
			return err
		}
		switch sub.Status {
		case catalog.ModelReady:
			return writeProduct(w, r, s, http.StatusOK, id)
		case catalog.ModelFailed:
			return fault.New(fault.Invalid, sub.Code, sub.Message)
		}
		WriteJSON(w, http.StatusAccepted, modelSubmissionView(sub))
		return nil
	}
}

// modelSubmissionView is the JSON of a model submission: status "preparing"
// (the worker has not finished), "ready", or "failed" with the refusal.
func modelSubmissionView(m catalog.ModelSubmission) map[string]any {
	out := map[string]any{"id": m.ID, "productId": m.ProductID, "status": m.Status}
	switch m.Status {
	case catalog.ModelPending:
		out["status"] = "preparing"
	case catalog.ModelFailed:
		out["error"] = map[string]string{"code": m.Code, "message": m.Message}
	}
	return out
}

// productModelSubmission serves GET /api/products/{id}/model/{submissionId}:
// how the preparation of an uploaded model stands (the client polls it after
// a 202, then reloads the product).
func productModelSubmission(s *catalog.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		m, err := s.ModelSubmission(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"), chi.URLParam(r, "submissionId"))
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, modelSubmissionView(m))
		return nil
	}
}

// isProductModelUpload lets POST /api/products/{id}/model past the default
// body limit (the handler applies its own 50 MB one).
func isProductModelUpload(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/api/products/") &&
		strings.HasSuffix(r.URL.Path, "/model") && strings.Count(r.URL.Path, "/") == 4
}

func modelFormErr(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return errModelTooLarge
	}
	return fault.Wrap(err, errModelForm.Kind, errModelForm.Code, errModelForm.Message)
}

// productChecks serves GET /api/products/{id}/checks: the preview checklist
// {items:[{key, ok, detail}]} (variants, hotspots, links, camera).
func productChecks(s *catalog.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		items, err := s.Checks(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"))
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, map[string]any{"items": items})
		return nil
	}
}
