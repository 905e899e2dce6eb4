package httpapi

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/photo3d/photo3d/internal/blobstore"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/imagecheck"
	"github.com/photo3d/photo3d/internal/upload"
	"github.com/photo3d/photo3d/internal/videocheck"
)

// The multipart fallback's refusals use the spec's generic upload message
// (§5) with distinct codes, so the client shows the words the spec names.
var (
	errNotMultipart = fault.New(fault.Invalid, "multipart_required", imagecheck.ErrUnreadable.Error())
	errNoFile       = fault.New(fault.Invalid, "file_required", imagecheck.ErrUnreadable.Error())
	errManyFiles    = fault.New(fault.Invalid, "one_file_only", imagecheck.ErrUnreadable.Error())
)

type createUploadRequest struct {
	Filename    string `json:"filename"`
	ContentType string `json:"contentType"`
	Size        int64  `json:"size"`
}

type uploadSlotView struct {
	UploadID  string    `json:"uploadId"`
	UploadURL string    `json:"uploadURL"`
	PublicURL string    `json:"publicURL"`
	Method    string    `json:"method"`
	ExpiresAt time.Time `json:"expiresAt"`
	MaxBytes  int64     `json:"maxBytes"`
}

// uploadedView answers a completed upload; url, imageURL and publicURL are
// the same app URL, the one POST /jobs accepts (the spec's client reads any
// of the three). That URL needs the bearer token, which an <img> cannot
// send, so previewURL is a signed GET URL (an hour, like every other blob in
// a JSON answer) for showing the photo.
type uploadedView struct {
	UploadID    string `json:"uploadId"`
	URL         string `json:"url"`
	ImageURL    string `json:"imageURL"`
	PublicURL   string `json:"publicURL"`
	PreviewURL  string `json:"previewURL"`
	ContentType string `json:"contentType"`
	Bytes       int64  `json:"bytes"`
	Width       int    `json:"width"`
	Height      int    `json:"height"`
}

func newUploadedView(ctx context.Context, s *upload.Service, up upload.Upload) (uploadedView, error) {
	publicURL := s.PublicURL(up.ID)
	preview, err := s.SignedURL(ctx, up.BlobKey)
	if err != nil {
		return uploadedView{}, err
	}
	return uploadedView{UploadID: up.ID, URL: publicURL, ImageURL: publicURL, PublicURL: publicURL, PreviewURL: preview,
		ContentType: up.ContentType, Bytes: up.Bytes, Width: up.Width, Height: up.Height}, nil
}

// createUpload serves POST /api/uploads: a signed PUT URL valid 15 minutes.
func createUpload(s *upload.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var req createUploadRequest
		if err := DecodeJSON(r, &req); err != nil {
			return err
		}
		slot, err := s.Create(r.Context(), currentWorkspace(r), upload.CreateInput{Filename: req.Filename, ContentType: req.ContentType, Size: req.Size})
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusCreated, uploadSlotView{UploadID: slot.UploadID, UploadURL: slot.UploadURL,
			PublicURL: slot.PublicURL, Method: http.MethodPut, ExpiresAt: slot.ExpiresAt, MaxBytes: slot.MaxBytes})
		return nil
	}
}

// uploadContent serves POST /api/uploads/content, the fallback when the
// signed PUT fails: multipart/form-data with exactly one file in field
// "file". The whole form is read (bounded) before anything is stored, so a
// second file refuses the request instead of storing the first: a photo into
// memory (10 MB at most), a video (its first bytes say so) into a temporary
// file (150 MB at most), which the upload service then checks and streams on.
func uploadContent(s *upload.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if mt != "multipart/form-data" {
			return errNotMultipart
		}
		if r.ContentLength > videocheck.MaxBytes+multipartOverhead {
			return upload.ErrVideoTooLarge
		}
		allowSlowUpload(w, r)
		r.Body = http.MaxBytesReader(w, r.Body, videocheck.MaxBytes+multipartOverhead)
		mr, err := r.MultipartReader()
		if err != nil {
			return fault.Wrap(err, errNotMultipart.Kind, errNotMultipart.Code, errNotMultipart.Message)
		}
		var data []byte
		var video *os.File
		defer func() {
			if video != nil {
				_ = video.Close()
				_ = os.Remove(video.Name())
			}
		}()
		var filename string
		files := 0
		for {
			part, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return multipartErr(err)
			}
			if part.FileName() == "" && part.FormName() != "file" {
				_, _ = io.Copy(io.Discard, part)
				continue
			}
			files++
			if files > 1 {
				return errManyFiles
			}
			if part.FormName() != "file" {
				return errNoFile
			}
			filename = part.FileName()
			br := bufio.NewReader(part)
			if head, _ := br.Peek(videocheck.SniffLen); isVideo(head) {
				if video, err = spoolVideo(br); err != nil {
					return err
				}
				continue
			}
			data, err = io.ReadAll(io.LimitReader(br, imagecheck.MaxUploadBytes+1))
			if err != nil {
				return multipartErr(err)
			}
			if len(data) > imagecheck.MaxUploadBytes {
				return upload.ErrTooLarge
			}
		}
		var body io.Reader = bytes.NewReader(data)
		if video != nil {
			body = video
		}
		if files == 0 || (len(data) == 0 && video == nil) {
			return errNoFile
		}
		up, err := s.UploadContent(r.Context(), currentWorkspace(r), filename, body)
		if err != nil {
			return err
		}
		v, err := newUploadedView(r.Context(), s, up)
		if err != nil {
			return err
		}
		w.Header().Set("Location", v.URL)
		WriteJSON(w, http.StatusCreated, v)
		return nil
	}
}

func isVideo(head []byte) bool {
	_, ok := videocheck.Sniff(head)
	return ok
}

// spoolVideo copies a video part into a temporary file (at most
// videocheck.MaxBytes; one byte more is too large), rewound for reading.
func spoolVideo(part io.Reader) (*os.File, error) {
	f, err := os.CreateTemp("", "photo3d-video-*")
	if err != nil {
		return nil, err
	}
	n, err := io.Copy(f, io.LimitReader(part, videocheck.MaxBytes+1))
	if err == nil && n > videocheck.MaxBytes {
		err = upload.ErrVideoTooLarge
	}
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		_ = f.Close()
		_ = os.Remove(f.Name())
		if errors.Is(err, upload.ErrVideoTooLarge) {
			return nil, err
		}
		return nil, multipartErr(err)
	}
	return f, nil
}

func multipartErr(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return upload.ErrTooLarge
	}
	return fault.Wrap(err, errNotMultipart.Kind, errNotMultipart.Code, errNotMultipart.Message)
}

// uploadImage serves GET /api/uploads/{id}/image: the photo, to its owner.
func uploadImage(s *upload.Service, blobs *blobstore.Store, d Deps) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		up, err := s.Get(r.Context(), d.DB, currentWorkspace(r), chi.URLParam(r, "id"))
		if err != nil {
			return err
		}
		if !up.Completed() {
			return upload.ErrNotReceived
		}
		return streamBlob(w, r, blobs, up.BlobKey, "")
	}
}
