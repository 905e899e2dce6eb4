package httpapi

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/auth"
	"github.com/photo3d/photo3d/internal/imagecheck"
	"github.com/photo3d/photo3d/internal/job/jobtest"
)

const creationBase = "http://photo3d.test"

// creationStack is the api's creation surface over a throwaway database.
type creationStack struct {
	env    *jobtest.Env
	h      http.Handler
	tokens *auth.Tokens
}

func newCreationStack(t *testing.T, devMode bool) creationStack {
	t.Helper()
	env := jobtest.New(t, creationBase)
	return creationStack{env: env, h: creationRouter(env, devMode), tokens: auth.NewTokens([]byte("creation-test-secret-0123456789abcdef"), creationBase)}
}

func creationRouter(env *jobtest.Env, devMode bool) http.Handler {
	return NewRouter(Deps{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), DB: env.DB.Pool,
		Tokens: auth.NewTokens([]byte("creation-test-secret-0123456789abcdef"), env.BaseURL), MaxBodyBytes: 1 << 20,
		Uploads: env.Uploads, Jobs: env.Jobs, Blobs: env.Blobs, DevMode: devMode, Reconstructor: "builtin"})
}

// call sends a request as user ("" for none). target may be an absolute
// signed URL; only its path and query reach the router.
func (s creationStack) call(t *testing.T, user, method, target, contentType string, body []byte) (*httptest.ResponseRecorder, reply) {
	t.Helper()
	u, err := url.Parse(target)
	require.NoError(t, err)
	req := httptest.NewRequest(method, u.RequestURI(), bytes.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if user != "" {
		tok, _, err := s.tokens.Issue(user)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	var r reply
	if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &r), rec.Body.String())
	}
	return rec, r
}

func (s creationStack) json(t *testing.T, user, method, path string, body any) (*httptest.ResponseRecorder, reply) {
	t.Helper()
	var b []byte
	if body != nil {
		var err error
		b, err = json.Marshal(body)
		require.NoError(t, err)
	}
	return s.call(t, user, method, path, "application/json", b)
}

// eventCount counts all events of a type (the "events appended" column of
// the scenario tables).
func (s creationStack) eventCount(t *testing.T, eventType string) int {
	t.Helper()
	var n int
	require.NoError(t, s.env.DB.Pool.QueryRow(context.Background(), `SELECT count(*) FROM events WHERE type = $1`, eventType).Scan(&n))
	return n
}

type uploadSlot struct {
	UploadID  string `json:"uploadId"`
	UploadURL string `json:"uploadURL"`
	PublicURL string `json:"publicURL"`
}

func (s creationStack) slot(t *testing.T, user, filename string) uploadSlot {
	t.Helper()
	rec, r := s.json(t, user, "POST", "/api/uploads", map[string]any{"filename": filename, "contentType": "image/png", "size": 1000})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	var sl uploadSlot
	require.NoError(t, json.Unmarshal(r.Data, &sl))
	return sl
}

// put uploads data to a slot through the signed URL and returns the image URL.
func (s creationStack) put(t *testing.T, user string, data []byte) string {
	t.Helper()
	sl := s.slot(t, user, "vase.png")
	rec, _ := s.call(t, "", "PUT", sl.UploadURL, "image/png", data)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	return rec.Header().Get("Location")
}

// pngHeader is a PNG signature and a valid IHDR declaring w×h, nothing else:
// enough for DecodeConfig, so dimension limits are checked before decoding.
func pngHeader(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 6 // 8-bit RGBA
	_ = binary.Write(&b, binary.BigEndian, uint32(len(ihdr)))
	chunk := append([]byte("IHDR"), ihdr...)
	b.Write(chunk)
	_ = binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	return b.Bytes()
}

func gifBytes(t *testing.T) []byte {
	var b bytes.Buffer
	require.NoError(t, gif.Encode(&b, image.NewPaletted(image.Rect(0, 0, 4, 4), color.Palette{color.Black, color.White}), nil))
	return b.Bytes()
}

func TestCreateUploadScenarios(t *testing.T) {
	t.Parallel()
	s := newCreationStack(t, false)
	user := s.env.User(t)
	cases := []struct {
		name          string
		user          string
		body          any
		status        int
		code, message string
		created       int // upload.created.v1 events appended
	}{
		{"png declared", user, map[string]any{"filename": "vase.png", "contentType": "image/png", "size": 5000}, 201, "", "", 1},
		{"only a filename (the spec's payload)", user, map[string]any{"filename": "vase.jpg"}, 201, "", "", 1},
		{"unknown type declared", user, map[string]any{"filename": "x", "contentType": "application/octet-stream"}, 201, "", "", 1},
		{"exactly 10 MB", user, map[string]any{"filename": "big.jpg", "size": imagecheck.MaxUploadBytes}, 201, "", "", 1},
		{"over 10 MB", user, map[string]any{"filename": "big.jpg", "size": imagecheck.MaxUploadBytes + 1}, 413, "file_too_large", "File is too large. Please select an image under 10MB.", 0},
		{"a pdf", user, map[string]any{"filename": "a.pdf", "contentType": "application/pdf"}, 415, "invalid_file_type", "Invalid file type. Please select a JPEG, PNG, or WebP image.", 0},
		{"a gif", user, map[string]any{"filename": "a.gif", "contentType": "image/gif"}, 415, "invalid_file_type", "Invalid file type. Please select a JPEG, PNG, or WebP image.", 0},
		{"not signed in", "", map[string]any{"filename": "vase.png"}, 401, "unauthorized", "Please sign in to continue.", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := s.eventCount(t, "upload.created.v1")
			rec, r := s.json(t, c.user, "POST", "/api/uploads", c.body)
			require.Equal(t, c.status, rec.Code, rec.Body.String())
			require.Equal(t, c.created, s.eventCount(t, "upload.created.v1")-before)
			if c.code != "" {
				require.Equal(t, c.code, r.Error.Code)
				require.Equal(t, c.message, r.Error.Message)
				return
			}
			var sl uploadSlot
			require.NoError(t, json.Unmarshal(r.Data, &sl))
			require.True(t, strings.HasPrefix(sl.UploadURL, "/blobs?"), "a same-origin URL: "+sl.UploadURL)
			require.Contains(t, sl.UploadURL, "method=PUT")
			require.Equal(t, creationBase+"/api/uploads/"+sl.UploadID+"/image", sl.PublicURL)
		})
	}
}

func TestSignedPutScenarios(t *testing.T) {
	t.Parallel()
	s := newCreationStack(t, false)
	user := s.env.User(t)
	photo := jobtest.PNG(t, 64, 48)
	tooBig := append(jobtest.PNG(t, 8, 8), make([]byte, imagecheck.MaxUploadBytes)...)
	cases := []struct {
		name          string
		body          []byte
		status        int
		code, message string
		contentType   string // stored type when accepted
	}{
		{"png", photo, 200, "", "", "image/png"},
		{"jpeg named .png (magic bytes decide)", jobtest.JPEG(t, 64, 48), 200, "", "", "image/jpeg"},
		{"gif named .png", gifBytes(t), 415, "invalid_file_type", "Invalid file type. Please select a JPEG, PNG, or WebP image.", ""},
		{"text named .png", []byte("hello, this is not a photo"), 415, "invalid_file_type", "Invalid file type. Please select a JPEG, PNG, or WebP image.", ""},
		{"empty body", nil, 415, "invalid_file_type", "Invalid file type. Please select a JPEG, PNG, or WebP image.", ""},
		{"over 10 MB", tooBig, 413, "file_too_large", "File is too large. Please select an image under 10MB.", ""},
		{"over 40 megapixels", pngHeader(8000, 6000), 400, "image_dimensions", imagecheck.ErrDimensions.Error(), ""},
		{"a side over 16384 px", pngHeader(16385, 10), 400, "image_dimensions", imagecheck.ErrDimensions.Error(), ""},
		{"20000×20000 declared by a tiny file", pngHeader(20000, 20000), 400, "image_dimensions", imagecheck.ErrDimensions.Error(), ""},
		{"corrupt png", []byte("\x89PNG\r\n\x1a\nnot really"), 400, "unreadable_image", "Unable to upload this file. Please try another image.", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sl := s.slot(t, user, "vase.png")
			before := s.eventCount(t, "upload.completed.v1")
			rec, r := s.call(t, "", "PUT", sl.UploadURL, "image/png", c.body)
			require.Equal(t, c.status, rec.Code, rec.Body.String())
			if c.code != "" {
				require.Equal(t, c.code, r.Error.Code)
				require.Equal(t, c.message, r.Error.Message)
				require.Equal(t, 0, s.eventCount(t, "upload.completed.v1")-before)
				exists, err := s.env.Blobs.Exists(context.Background(), "uploads/"+user+"/"+sl.UploadID+".png")
				require.NoError(t, err)
				require.False(t, exists, "refused bytes are never stored")
				return
			}
			require.Equal(t, 1, s.eventCount(t, "upload.completed.v1")-before)
			require.Equal(t, sl.PublicURL, rec.Header().Get("Location"))
			var v map[string]any
			require.NoError(t, json.Unmarshal(r.Data, &v))
			require.Equal(t, sl.PublicURL, v["imageURL"])
			require.Equal(t, c.contentType, v["contentType"])

			img, _ := s.call(t, user, "GET", sl.PublicURL, "", nil)
			require.Equal(t, http.StatusOK, img.Code)
			require.Equal(t, c.contentType, img.Header().Get("Content-Type"))
			require.Equal(t, c.body, img.Body.Bytes())
		})
	}

	t.Run("a second PUT to the same slot", func(t *testing.T) {
		sl := s.slot(t, user, "vase.png")
		rec, _ := s.call(t, "", "PUT", sl.UploadURL, "image/png", photo)
		require.Equal(t, http.StatusOK, rec.Code)
		rec, r := s.call(t, "", "PUT", sl.UploadURL, "image/png", photo)
		require.Equal(t, http.StatusConflict, rec.Code)
		require.Equal(t, "upload_already_received", r.Error.Code)
	})
}

func TestSignedURLTamperingIsRefused(t *testing.T) {
	t.Parallel()
	s := newCreationStack(t, false)
	user := s.env.User(t)
	other := s.env.User(t)
	photo := jobtest.PNG(t, 32, 32)
	ctx := context.Background()
	sl := s.slot(t, user, "vase.png")
	otherSlot := s.slot(t, other, "vase.png")
	key := "uploads/" + user + "/" + sl.UploadID + ".png"
	expiredPut, err := s.env.Blobs.SignedPutURL(ctx, key, -time.Minute)
	require.NoError(t, err)
	getURL, err := s.env.Blobs.SignedGetURL(ctx, key, time.Minute)
	require.NoError(t, err)
	tamper := func(raw, param, value string) string {
		u, err := url.Parse(raw)
		require.NoError(t, err)
		q := u.Query()
		q.Set(param, value)
		u.RawQuery = q.Encode()
		return u.String()
	}
	drop := func(raw, param string) string {
		u, _ := url.Parse(raw)
		q := u.Query()
		q.Del(param)
		u.RawQuery = q.Encode()
		return u.String()
	}
	otherKey := "uploads/" + other + "/" + otherSlot.UploadID + ".png"
	cases := []struct {
		name, method, url string
		status            int
		code              string
	}{
		{"other object, same signature", "PUT", tamper(sl.UploadURL, "obj", otherKey), 403, "invalid_signature"},
		{"expiry pushed out", "PUT", tamper(sl.UploadURL, "expiry", "9999999999"), 403, "invalid_signature"},
		{"method rewritten to GET", "GET", tamper(sl.UploadURL, "method", "GET"), 403, "invalid_signature"},
		{"signature forged", "PUT", tamper(sl.UploadURL, "signature", "AAAA"), 403, "invalid_signature"},
		{"no signature", "PUT", drop(sl.UploadURL, "signature"), 403, "invalid_signature"},
		{"expired", "PUT", expiredPut, 403, "invalid_signature"},
		{"PUT URL used to GET", "GET", sl.UploadURL, 403, "signature_method_mismatch"},
		{"GET URL used to PUT", "PUT", getURL, 403, "signature_method_mismatch"},
		{"DELETE with a PUT URL", "DELETE", sl.UploadURL, 405, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec, r := s.call(t, "", c.method, c.url, "image/png", photo)
			require.Equal(t, c.status, rec.Code, rec.Body.String())
			if c.code != "" {
				require.Equal(t, c.code, r.Error.Code)
			}
		})
	}
	require.Equal(t, 0, s.eventCount(t, "upload.completed.v1"), "nothing got through")
}

// multipartBody builds a form; files maps field name → file name → bytes.
func multipartBody(t *testing.T, fields map[string]string, files ...[3]any) (string, []byte) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for k, v := range fields {
		require.NoError(t, mw.WriteField(k, v))
	}
	for _, f := range files {
		w, err := mw.CreateFormFile(f[0].(string), f[1].(string))
		require.NoError(t, err)
		_, err = w.Write(f[2].([]byte))
		require.NoError(t, err)
	}
	require.NoError(t, mw.Close())
	return mw.FormDataContentType(), b.Bytes()
}

func TestUploadContentScenarios(t *testing.T) {
	t.Parallel()
	s := newCreationStack(t, false)
	user := s.env.User(t)
	photo := jobtest.PNG(t, 40, 30)
	generic := "Unable to upload this file. Please try another image."
	ctOK, bodyOK := multipartBody(t, nil, [3]any{"file", "vase.png", photo})
	ctTwo, bodyTwo := multipartBody(t, nil, [3]any{"file", "a.png", photo}, [3]any{"file", "b.png", photo})
	ctNone, bodyNone := multipartBody(t, map[string]string{"name": "vase"})
	ctOther, bodyOther := multipartBody(t, nil, [3]any{"photo", "vase.png", photo})
	ctBig, bodyBig := multipartBody(t, nil, [3]any{"file", "big.png", append(jobtest.PNG(t, 8, 8), make([]byte, imagecheck.MaxUploadBytes)...)})
	ctTxt, bodyTxt := multipartBody(t, nil, [3]any{"file", "vase.png", []byte("plain text")})
	ctDim, bodyDim := multipartBody(t, nil, [3]any{"file", "huge.png", pngHeader(20000, 20000)})
	cases := []struct {
		name, contentType string
		body              []byte
		status            int
		code, message     string
		completed         int
	}{
		{"one png", ctOK, bodyOK, 201, "", "", 1},
		{"two files", ctTwo, bodyTwo, 400, "one_file_only", generic, 0},
		{"no file", ctNone, bodyNone, 400, "file_required", generic, 0},
		{"file in the wrong field", ctOther, bodyOther, 400, "file_required", generic, 0},
		{"not multipart", "application/json", []byte(`{"file":"x"}`), 400, "multipart_required", generic, 0},
		{"over 10 MB", ctBig, bodyBig, 413, "file_too_large", "File is too large. Please select an image under 10MB.", 0},
		{"not an image", ctTxt, bodyTxt, 415, "invalid_file_type", "Invalid file type. Please select a JPEG, PNG, or WebP image.", 0},
		{"dimensions", ctDim, bodyDim, 400, "image_dimensions", imagecheck.ErrDimensions.Error(), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := s.eventCount(t, "upload.completed.v1")
			rec, r := s.call(t, user, "POST", "/api/uploads/content", c.contentType, c.body)
			require.Equal(t, c.status, rec.Code, rec.Body.String())
			require.Equal(t, c.completed, s.eventCount(t, "upload.completed.v1")-before)
			if c.code != "" {
				require.Equal(t, c.code, r.Error.Code)
				require.Equal(t, c.message, r.Error.Message)
				return
			}
			var v map[string]any
			require.NoError(t, json.Unmarshal(r.Data, &v))
			require.NotEmpty(t, v["url"])
			require.Equal(t, v["url"], v["imageURL"])
			require.Equal(t, v["url"], v["publicURL"])
			require.Equal(t, v["url"], rec.Header().Get("Location"))
			// The photo is shown through a signed URL: an <img> sends no token (issue 29 item 3).
			preview, _ := v["previewURL"].(string)
			require.NotEmpty(t, preview)
			img, _ := s.call(t, "", "GET", preview, "", nil)
			require.Equal(t, http.StatusOK, img.Code, img.Body.String())
			require.Equal(t, photo, img.Body.Bytes())
		})
	}
}

func TestUploadStreamsUnderEvents(t *testing.T) {
	t.Parallel()
	s := newCreationStack(t, false)
	user := s.env.User(t)
	imageURL := s.put(t, user, jobtest.PNG(t, 20, 20))
	id := strings.TrimSuffix(strings.TrimPrefix(imageURL, creationBase+"/api/uploads/"), "/image")
	types := s.env.EventTypes(t, events.Stream{Type: events.StreamUpload, ID: id})
	require.Equal(t, []string{"upload.created.v1", "upload.completed.v1"}, types)
}
