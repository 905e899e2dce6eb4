package httpapi

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/photo3d/photo3d/internal/blobstore"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/imagecheck"
	"github.com/photo3d/photo3d/internal/upload"
	"github.com/photo3d/photo3d/internal/videocheck"
)

// BlobsPath is where the api serves the file store's signed URLs; the file
// store's base_url is PUBLIC_BASE_URL + BlobsPath.
const BlobsPath = "/blobs"

var (
	errBadSignature = fault.New(fault.Forbidden, "invalid_signature", "This link is invalid or has expired.")
	errWrongMethod  = fault.New(fault.Forbidden, "signature_method_mismatch", "This link does not allow this action.")
	errBlobNotFound = fault.NotFoundf("File not found.")
)

// multipartOverhead is what a multipart body may carry besides the photo.
const multipartOverhead = 64 << 10

// largeBodyRoutes lets the two routes that receive photos past limitBody's
// JSON-sized cap; each enforces the 10 MB photo limit itself. It must run
// before limitBody, which is why it matches paths instead of routes.
func largeBodyRoutes(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if (r.URL.Path == BlobsPath || strings.HasPrefix(r.URL.Path, BlobsPath+"/")) && r.Method == http.MethodPut ||
			r.URL.Path == "/api/uploads/content" && r.Method == http.MethodPost ||
			isProductModelUpload(r) {
			allowLargeBody(next).ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// serveBlob serves the file store's signed URLs (GET/HEAD stream a blob, PUT
// receives a photo). The HMAC signature, expiry and the method it was signed
// for are all checked: a GET link can never be used to PUT, and a PUT link
// only accepts bytes that pass the image checks for a pending upload.
func serveBlob(blobs *blobstore.Store, uploads *upload.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		key, method, err := blobs.Verify(r.Context(), r.URL)
		if err != nil {
			return fault.Wrap(err, errBadSignature.Kind, errBadSignature.Code, errBadSignature.Message)
		}
		signedFor := strings.ToUpper(method)
		if signedFor != r.Method && !(signedFor == http.MethodGet && r.Method == http.MethodHead) {
			return errWrongMethod
		}
		switch r.Method {
		case http.MethodPut:
			return receivePut(w, r, key, uploads)
		case http.MethodGet, http.MethodHead:
			// A signed GET URL is a capability, not a credential: any page
			// holding it may read the object, including one on another origin
			// (an embed, the app opened on another host name).
			w.Header().Set("Access-Control-Allow-Origin", "*")
			w.Header().Set("Cross-Origin-Resource-Policy", "cross-origin")
			return streamBlob(w, r, blobs, key, "")
		}
		return errWrongMethod
	}
}

// receivePut takes a signed PUT's body: a photo (10 MB) or, into a slot
// declared for one, a video (150 MB); the upload service applies the slot's
// own limit, this the larger one.
func receivePut(w http.ResponseWriter, r *http.Request, key string, uploads *upload.Service) error {
	if r.ContentLength > videocheck.MaxBytes {
		return upload.ErrVideoTooLarge
	}
	allowSlowUpload(w, r)
	body := http.MaxBytesReader(w, r.Body, videocheck.MaxBytes+1)
	up, err := uploads.ReceivePut(r.Context(), key, body, r.ContentLength)
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return upload.ErrVideoTooLarge
	}
	if err != nil {
		return err
	}
	v, err := newUploadedView(r.Context(), uploads, up)
	if err != nil {
		return err
	}
	w.Header().Set("Location", v.URL)
	WriteJSON(w, http.StatusOK, v)
	return nil
}

// VideoUploadTime is how long one upload that may be a video (over a
// photo's 10 MB) may take to arrive and be answered: 150 MB over a phone's
// 2 Mbit/s uplink. The server's own limits (2 minutes to read a request, 5 to
// answer it) fit a photo, not that.
const VideoUploadTime = 12 * time.Minute

// allowSlowUpload lifts the server's read and write deadlines for a request
// that may carry a video: a Content-Length over a photo's limit, or none.
func allowSlowUpload(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength >= 0 && r.ContentLength <= imagecheck.MaxUploadBytes+multipartOverhead {
		return
	}
	rc := http.NewResponseController(w)
	deadline := time.Now().Add(VideoUploadTime)
	_ = rc.SetReadDeadline(deadline) // unsupported by test recorders: nothing to lift there
	_ = rc.SetWriteDeadline(deadline.Add(time.Minute))
}

// streamBlob streams a blob with its stored content type, honouring Range
// and conditional requests; attachment names a download file when set.
func streamBlob(w http.ResponseWriter, r *http.Request, blobs *blobstore.Store, key, attachment string) error {
	rd, err := blobs.Open(r.Context(), key)
	if errors.Is(err, blobstore.ErrNotFound) {
		return errBlobNotFound
	}
	if err != nil {
		return err
	}
	defer rd.Close()
	h := w.Header()
	ct := rd.ContentType()
	if ct == "" {
		ct = "application/octet-stream"
	}
	h.Set("Content-Type", ct)
	h.Set("Cache-Control", "private, max-age=3600")
	if attachment != "" {
		h.Set("Content-Disposition", `attachment; filename="`+attachment+`"`)
	}
	http.ServeContent(w, r, "", rd.ModTime(), rd)
	return nil
}
