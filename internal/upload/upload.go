// Package upload receives merchants' product photos. A photo arrives either
// through a signed PUT URL (the fast path: straight to the bucket in
// production, through the api's /blobs handler on the file store) or as a
// multipart form (the fallback the web client uses when the PUT fails).
//
// Whatever the path, the bytes are checked the same way before anything else
// sees them (internal/imagecheck: magic bytes, at most 10 MB, dimensions read
// from the header before any decoding), and only then is UploadCompleted
// appended. A job may only be built from one of the caller's completed
// uploads, named by the app URL this package hands out; the server never
// fetches a URL a user supplied.
package upload

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/blobstore"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/imagecheck"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/videocheck"
)

// PutExpiry is how long a signed PUT URL stays valid.
const PutExpiry = 15 * time.Minute

// User-facing failures. The image messages are the spec's (§5) word for word.
var (
	ErrTooLarge    = fault.New(fault.TooLarge, "file_too_large", imagecheck.ErrTooLarge.Error())
	ErrInvalidType = fault.New(fault.UnsupportedMedia, "invalid_file_type", imagecheck.ErrInvalidType.Error())
	ErrDimensions  = fault.New(fault.Invalid, "image_dimensions", imagecheck.ErrDimensions.Error())
	ErrUnreadable  = fault.New(fault.Invalid, "unreadable_image", imagecheck.ErrUnreadable.Error())
	// ErrNoImageURL is the spec's message for an upload that produced no image URL.
	ErrNoImageURL = fault.New(fault.Invalid, "image_url_required", "Upload succeeded but did not return an image URL.")
	// ErrNotYours is the answer to any imageURL that is not one of the caller's uploads.
	ErrNotYours = fault.New(fault.Invalid, "invalid_image_url", "Choose a photo you uploaded to Photo3D.")
	// ErrNotReceived is returned when a job names an upload whose bytes never arrived.
	ErrNotReceived = fault.New(fault.Invalid, "upload_incomplete", "This photo has not finished uploading. Please upload it again.")
	// ErrAlreadyReceived refuses a second PUT to the same upload slot.
	ErrAlreadyReceived = fault.New(fault.Conflict, "upload_already_received", "This photo was already uploaded. Start a new upload to send another one.")
	// ErrPurged: the photo was deleted by the clean-up (unused for a day).
	ErrPurged = fault.New(fault.Invalid, "upload_expired", "This photo was uploaded more than a day ago and never used, so it was deleted. Please upload it again.")
	// ErrNotFound hides whether an upload exists or belongs to someone else.
	ErrNotFound = fault.NotFoundf("Upload not found.")
)

// CheckFault turns imagecheck's sentinel errors into the fault errors above,
// keeping the cause for logs. Other errors pass through unchanged.
func CheckFault(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, imagecheck.ErrTooLarge):
		return fault.Wrap(err, ErrTooLarge.Kind, ErrTooLarge.Code, ErrTooLarge.Message)
	case errors.Is(err, imagecheck.ErrInvalidType):
		return fault.Wrap(err, ErrInvalidType.Kind, ErrInvalidType.Code, ErrInvalidType.Message)
	case errors.Is(err, imagecheck.ErrDimensions):
		return fault.Wrap(err, ErrDimensions.Kind, ErrDimensions.Code, ErrDimensions.Message)
	case errors.Is(err, imagecheck.ErrUnreadable):
		return fault.Wrap(err, ErrUnreadable.Kind, ErrUnreadable.Code, ErrUnreadable.Message)
	}
	return err
}

// Upload is one photo as the read model holds it.
type Upload struct {
	ID           string
	UserID       string
	Filename     string
	BlobKey      string
	Status       string // pending | completed
	ContentType  string
	Bytes        int64
	Width        int
	Height       int
	CreatedAt    time.Time
	DeclaredSize int64
	DeclaredType string
	Purged       bool // its bytes were deleted by the clean-up (see CleanupWorker)
}

// Completed reports whether the bytes arrived and passed the checks.
func (u Upload) Completed() bool { return u.Status == StatusCompleted }

// Upload statuses.
const (
	StatusPending   = "pending"
	StatusCompleted = "completed"
)

// Service creates upload slots, receives bytes and resolves image URLs.
type Service struct {
	db      *pgxpool.Pool
	events  *eventstore.Store
	blobs   *blobstore.Store
	baseURL string
	now     func() time.Time
	quota   QuotaFunc
	river   *river.Client[pgx.Tx] // queues cutouts (WithRiver)
}

// NewService builds the service; baseURL is PUBLIC_BASE_URL (public and
// image URLs are built on it and parsed back against it).
func NewService(db *pgxpool.Pool, store *eventstore.Store, blobs *blobstore.Store, baseURL string) *Service {
	return &Service{db: db, events: store, blobs: blobs, baseURL: strings.TrimRight(baseURL, "/"), now: time.Now}
}

// CreateInput is what the browser declares before sending the bytes. Nothing
// here is trusted: the bytes are checked when they arrive.
type CreateInput struct {
	Filename    string
	ContentType string
	Size        int64
}

// Slot is where and how the browser sends the bytes.
type Slot struct {
	UploadID  string
	UploadURL string
	PublicURL string
	ExpiresAt time.Time
	MaxBytes  int64 // the largest file this slot takes (a photo's or a video's limit)
}

// maxPhotoBytes is a photo's size limit (the spec's 10 MB).
const maxPhotoBytes = imagecheck.MaxUploadBytes

// fileMeta is what the checks read from an upload's bytes.
type fileMeta struct {
	ContentType   string
	Width, Height int
	Bytes         int64
}

func photoMeta(info imagecheck.Info, n int) fileMeta {
	return fileMeta{ContentType: info.ContentType, Width: info.Width, Height: info.Height, Bytes: int64(n)}
}

// acceptedDeclaredTypes are the declared types refused early only when they
// are clearly not a supported photo; the magic bytes decide in the end.
var acceptedDeclaredTypes = map[string]bool{
	"": true, "application/octet-stream": true, "image/jpeg": true, "image/jpg": true,
	"image/pjpeg": true, "image/png": true, "image/webp": true,
}

// Create opens an upload slot: it appends UploadCreated and returns a signed
// PUT URL valid for PutExpiry. Declared sizes over the limit and declared
// types that are certainly not photos are refused at once so the browser
// does not send 10 MB for nothing.
func (s *Service) Create(ctx context.Context, userID string, in CreateInput) (Slot, error) {
	ct := normalType(in.ContentType)
	video := declaresVideo(in.Filename, ct)
	limit := MaxBytesFor(in.Filename, ct)
	switch {
	case in.Size > limit && video:
		return Slot{}, ErrVideoTooLarge
	case in.Size > limit:
		return Slot{}, ErrTooLarge
	case in.Size < 0:
		return Slot{}, ErrUnreadable
	case !video && !acceptedDeclaredTypes[ct]:
		return Slot{}, ErrInvalidType
	}
	id, err := uuid.NewV7()
	if err != nil {
		return Slot{}, fmt.Errorf("new upload id: %w", err)
	}
	uploadID := id.String()
	filename := cleanFilename(in.Filename)
	key := blobKey(userID, uploadID, extensionFor(filename, ct))
	putURL, err := s.blobs.SignedPutURL(ctx, key, PutExpiry)
	if err != nil {
		return Slot{}, err
	}
	now := s.now().UTC()
	err = pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		if err := lockQuota(ctx, tx, userID); err != nil {
			return err
		}
		if err := s.checkQuota(ctx, tx, userID, in.Size); err != nil {
			return err
		}
		_, err := s.events.Append(ctx, tx, events.Stream{Type: events.StreamUpload, ID: uploadID}, 0, events.UploadCreated{
			UploadID: uploadID, UserID: userID, Filename: filename, ContentType: ct, Size: in.Size, BlobKey: key, At: now,
		})
		return err
	})
	if fault.IsKind(err, fault.RateLimited) {
		return Slot{}, err
	}
	if err != nil {
		return Slot{}, fmt.Errorf("create upload: %w", err)
	}
	return Slot{UploadID: uploadID, UploadURL: putURL, PublicURL: s.PublicURL(uploadID), ExpiresAt: now.Add(PutExpiry), MaxBytes: limit}, nil
}

// ReceivePut takes the body of a verified signed PUT for key: it checks the
// bytes (magic bytes, size, dimensions) BEFORE storing them, stores them and
// appends UploadCompleted. A slot declared for a video takes a video, checked
// as it streams to the store (storeVideo); any other takes a photo. body must
// already be capped by the caller (at the larger, video, limit: each check
// applies its own); contentLength (-1 when unknown) refuses a body that
// declares more than its slot takes before a byte is read.
func (s *Service) ReceivePut(ctx context.Context, key string, body io.Reader, contentLength int64) (Upload, error) {
	up, err := s.byKey(ctx, key)
	if err != nil {
		return Upload{}, err
	}
	if up.Completed() {
		return Upload{}, ErrAlreadyReceived
	}
	if contentLength > MaxBytesFor(up.Filename, up.DeclaredType) {
		if up.IsVideo() {
			return Upload{}, ErrVideoTooLarge
		}
		return Upload{}, ErrTooLarge
	}
	if up.IsVideo() {
		meta, err := s.storeVideo(ctx, up.BlobKey, body)
		if err != nil {
			return Upload{}, err
		}
		return s.complete(ctx, up, up.BlobKey, meta, nil, false)
	}
	info, data, err := imagecheck.CheckReader(body)
	if err != nil {
		return Upload{}, CheckFault(err)
	}
	return s.complete(ctx, up, up.BlobKey, photoMeta(info, len(data)), data, true)
}

// UploadContent is the multipart fallback: one request creates the upload,
// checks and stores the bytes, and completes it. The bytes decide whether it
// is a photo or a video (uploadVideoContent).
func (s *Service) UploadContent(ctx context.Context, userID, filename string, body io.Reader) (Upload, error) {
	br := bufio.NewReaderSize(body, 64<<10)
	head, _ := br.Peek(videocheck.SniffLen)
	if format, ok := videocheck.Sniff(head); ok {
		return s.uploadVideoContent(ctx, userID, filename, format, br)
	}
	info, data, err := imagecheck.CheckReader(br)
	if err != nil {
		return Upload{}, CheckFault(err)
	}
	if err := s.checkQuota(ctx, s.db, userID, int64(len(data))); err != nil {
		return Upload{}, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return Upload{}, fmt.Errorf("new upload id: %w", err)
	}
	filename = cleanFilename(filename)
	up := Upload{ID: id.String(), UserID: userID, Filename: filename, Status: StatusPending,
		BlobKey: blobKey(userID, id.String(), info.Format.Extension()), DeclaredSize: int64(len(data)), DeclaredType: info.ContentType}
	if err := s.blobs.Write(ctx, up.BlobKey, info.ContentType, data); err != nil {
		return Upload{}, err
	}
	now := s.now().UTC()
	err = pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		_, err := s.events.Append(ctx, tx, events.Stream{Type: events.StreamUpload, ID: up.ID}, 0,
			events.UploadCreated{UploadID: up.ID, UserID: userID, Filename: filename, ContentType: info.ContentType,
				Size: int64(len(data)), BlobKey: up.BlobKey, At: now},
			completedEvent(up, photoMeta(info, len(data))))
		return err
	})
	if err != nil {
		return Upload{}, fmt.Errorf("record upload: %w", err)
	}
	up.Status, up.ContentType, up.Bytes, up.Width, up.Height, up.CreatedAt =
		StatusCompleted, info.ContentType, int64(len(data)), info.Width, info.Height, now
	return up, nil
}

// complete stores checked bytes (unless they are already in the bucket) and
// appends UploadCompleted, refusing a second completion of the same upload.
func (s *Service) complete(ctx context.Context, up Upload, key string, meta fileMeta, data []byte, write bool) (Upload, error) {
	if write {
		if err := s.blobs.Write(ctx, key, meta.ContentType, data); err != nil {
			return Upload{}, err
		}
	}
	up.BlobKey = key
	err := pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		var status string
		if err := tx.QueryRow(ctx, `SELECT status FROM uploads WHERE id = $1 FOR UPDATE`, up.ID).Scan(&status); err != nil {
			return fmt.Errorf("lock upload: %w", err)
		}
		if status == StatusCompleted {
			return ErrAlreadyReceived
		}
		_, err := s.events.Append(ctx, tx, events.Stream{Type: events.StreamUpload, ID: up.ID}, eventstore.AnyVersion,
			completedEvent(up, meta))
		return err
	})
	if err != nil {
		return Upload{}, err
	}
	up.Status, up.ContentType, up.Bytes, up.Width, up.Height = StatusCompleted, meta.ContentType, meta.Bytes, meta.Width, meta.Height
	return up, nil
}

func completedEvent(up Upload, meta fileMeta) events.UploadCompleted {
	return events.UploadCompleted{UploadID: up.ID, UserID: up.UserID, ContentType: meta.ContentType,
		Bytes: meta.Bytes, Width: meta.Width, Height: meta.Height, BlobKey: up.BlobKey}
}

// PublicURL is the app URL that names an upload: what the browser gets back
// as publicURL/imageURL and sends to POST /jobs. GET on it streams the photo
// to its owner (authenticated).
func (s *Service) PublicURL(uploadID string) string {
	return s.baseURL + "/api/uploads/" + uploadID + "/image"
}

// ParseImageURL extracts the upload id from an image URL this service handed
// out, absolute (on PUBLIC_BASE_URL) or relative. Anything else is ErrNotYours:
// the server never fetches what a user points it at.
func (s *Service) ParseImageURL(imageURL string) (string, error) {
	raw := strings.TrimSpace(imageURL)
	if raw == "" {
		return "", ErrNoImageURL
	}
	u, err := url.Parse(raw)
	if err != nil || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", ErrNotYours
	}
	if u.IsAbs() || u.Host != "" {
		base, err := url.Parse(s.baseURL)
		if err != nil || !strings.EqualFold(u.Scheme, base.Scheme) || !strings.EqualFold(u.Host, base.Host) {
			return "", ErrNotYours
		}
		prefix := strings.TrimRight(base.Path, "/")
		if !strings.HasPrefix(u.Path, prefix+"/") {
			return "", ErrNotYours
		}
		u.Path = strings.TrimPrefix(u.Path, prefix)
	}
	rest, ok := strings.CutPrefix(u.Path, "/api/uploads/")
	if !ok {
		return "", ErrNotYours
	}
	id, ok := strings.CutSuffix(rest, "/image")
	if !ok {
		return "", ErrNotYours
	}
	if _, err := uuid.Parse(id); err != nil || strings.Contains(id, "/") {
		return "", ErrNotYours
	}
	return id, nil
}

// Resolve returns the caller's completed upload named by imageURL. An upload
// whose bytes went straight to a cloud bucket (presigned PUT) is checked and
// completed here, on first use, because nothing saw the bytes on the way in.
func (s *Service) Resolve(ctx context.Context, userID, imageURL string) (Upload, error) {
	id, err := s.ParseImageURL(imageURL)
	if err != nil {
		return Upload{}, err
	}
	up, err := s.Get(ctx, s.db, userID, id)
	if errors.Is(err, ErrNotFound) {
		return Upload{}, ErrNotYours
	}
	if err != nil {
		return Upload{}, err
	}
	if up.Purged {
		return Upload{}, ErrPurged
	}
	if up.Completed() {
		return up, nil
	}
	if s.blobs.ServedLocally() {
		// The api's own PUT handler completes uploads as the bytes arrive.
		return Upload{}, ErrNotReceived
	}
	if up.IsVideo() {
		meta, err := s.checkStoredVideo(ctx, up.BlobKey)
		switch {
		case errors.Is(err, blobstore.ErrNotFound):
			return Upload{}, ErrNotReceived
		case fault.IsKind(err, fault.Invalid), fault.IsKind(err, fault.TooLarge), fault.IsKind(err, fault.UnsupportedMedia):
			_ = s.blobs.Delete(ctx, up.BlobKey)
			return Upload{}, err
		case err != nil:
			return Upload{}, err
		}
		return s.completeOnFirstUse(ctx, userID, up, meta, nil)
	}
	data, err := s.blobs.Read(ctx, up.BlobKey, imagecheck.MaxUploadBytes)
	switch {
	case errors.Is(err, blobstore.ErrNotFound):
		return Upload{}, ErrNotReceived
	case errors.Is(err, blobstore.ErrTooLarge):
		_ = s.blobs.Delete(ctx, up.BlobKey)
		return Upload{}, ErrTooLarge
	case err != nil:
		return Upload{}, err
	}
	info, err := imagecheck.Check(data)
	if err != nil {
		_ = s.blobs.Delete(ctx, up.BlobKey)
		return Upload{}, CheckFault(err)
	}
	return s.completeOnFirstUse(ctx, userID, up, photoMeta(info, len(data)), data)
}

// completeOnFirstUse records a cloud-stored upload checked on first use; a
// request that raced this one and completed it first is not an error. It is
// bookkeeping on the way to the request's own change, not that change, so it
// does not run the request's append hooks: it does not mark an Idempotency-Key
// 'committed', so a build refused after it may be retried with the same key.
func (s *Service) completeOnFirstUse(ctx context.Context, userID string, up Upload, meta fileMeta, data []byte) (Upload, error) {
	ctx = eventstore.WithoutAppendHooks(ctx)
	done, err := s.complete(ctx, up, up.BlobKey, meta, data, false)
	if errors.Is(err, ErrAlreadyReceived) {
		return s.Get(ctx, s.db, userID, up.ID)
	}
	return done, err
}

const uploadColumns = `id, user_id, filename, blob_key, status, content_type, bytes, width, height, created_at, declared_size, declared_type, purged_at IS NOT NULL`

func scanUpload(row pgx.Row) (Upload, error) {
	var u Upload
	err := row.Scan(&u.ID, &u.UserID, &u.Filename, &u.BlobKey, &u.Status, &u.ContentType, &u.Bytes, &u.Width, &u.Height,
		&u.CreatedAt, &u.DeclaredSize, &u.DeclaredType, &u.Purged)
	if errors.Is(err, pgx.ErrNoRows) {
		return Upload{}, ErrNotFound
	}
	if err != nil {
		return Upload{}, fmt.Errorf("read upload: %w", err)
	}
	return u, nil
}

// Get returns the owner's upload; someone else's is ErrNotFound.
func (s *Service) Get(ctx context.Context, q pgdb.Querier, userID, uploadID string) (Upload, error) {
	return lookup(ctx, q, userID, uploadID)
}

func lookup(ctx context.Context, q pgdb.Querier, userID, uploadID string) (Upload, error) {
	if _, err := uuid.Parse(uploadID); err != nil {
		return Upload{}, ErrNotFound
	}
	return scanUpload(q.QueryRow(ctx, `SELECT `+uploadColumns+` FROM uploads WHERE id = $1 AND user_id = $2`, uploadID, userID))
}

func (s *Service) byKey(ctx context.Context, key string) (Upload, error) {
	return scanUpload(s.db.QueryRow(ctx, `SELECT `+uploadColumns+` FROM uploads WHERE blob_key = $1`, key))
}

// blobKey is uploads/{userID}/{uploadID}{ext}: the user prefix makes a
// bucket listing per merchant cheap (exports, deletion on account removal).
func blobKey(userID, uploadID, ext string) string {
	return "uploads/" + userID + "/" + uploadID + ext
}

// extensionFor picks a key extension from what the browser declared; it is
// cosmetic (the served content type comes from the sniffed bytes).
func extensionFor(filename, contentType string) string {
	switch strings.ToLower(path.Ext(filename)) {
	case ".jpg", ".jpeg":
		return ".jpg"
	case ".png":
		return ".png"
	case ".webp":
		return ".webp"
	}
	if ext, ok := videoExtensions[strings.ToLower(path.Ext(filename))]; ok {
		return ext
	}
	switch contentType {
	case "video/mp4", "video/x-m4v":
		return ".mp4"
	case "video/quicktime":
		return ".mov"
	case "video/webm":
		return ".webm"
	case "image/jpeg", "image/jpg", "image/pjpeg":
		return ".jpg"
	case "image/png":
		return ".png"
	case "image/webp":
		return ".webp"
	}
	return ""
}

// cleanFilename keeps a display name: the base name, valid UTF-8, no control
// characters, at most 200 bytes.
func cleanFilename(name string) string {
	name = strings.ReplaceAll(name, "\\", "/")
	name = path.Base(strings.TrimSpace(name))
	if !utf8.ValidString(name) {
		name = strings.ToValidUTF8(name, "")
	}
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, name)
	if name == "." || name == "/" || name == "" {
		name = "photo"
	}
	for len(name) > 200 {
		_, size := utf8.DecodeLastRuneInString(name)
		name = name[:len(name)-size]
	}
	return name
}
