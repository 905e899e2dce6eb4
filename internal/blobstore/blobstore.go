// Package blobstore is where photos, models and thumbnails live: a
// gocloud.dev/blob bucket plus the signed URLs that let a browser PUT a photo
// or GET a model without an Authorization header (model-viewer and <img>
// cannot send one).
//
// Locally the bucket is a directory (fileblob) and the api itself serves the
// signed URLs under /blobs, verifying the HMAC signature that fileblob's
// URLSignerHMAC produced (see Handler). In production the bucket is S3 or GCS
// and bucket.SignedURL returns the cloud provider's presigned URL, so the
// bytes never pass through the api.
//
// The fileblob, memblob and s3blob drivers are linked in (s3.go); gcsblob
// adds about 50 MB more, so for GCS add a blank import of
// gocloud.dev/blob/gcsblob. On S3 set BLOB_URL=s3://bucket?region=… ;
// nothing else changes. A PUT presigned by
// S3 cannot be checked on the way in, so upload.Service checks the bytes when
// the photo is first used (Service.Complete).
package blobstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/driver"
	"gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/memblob" // mem:// buckets for tests and throwaway runs
	"gocloud.dev/gcerrors"
)

// ErrNotFound is returned when a key holds no blob.
var ErrNotFound = errors.New("blob not found")

// ErrTooLarge is returned by Read when a blob exceeds the caller's limit.
var ErrTooLarge = errors.New("blob over the size limit")

// ErrBadSignature covers every reason a signed URL is refused: forged or
// tampered signature, expired, or missing parameters.
var ErrBadSignature = errors.New("invalid or expired signed URL")

// Store is the bucket plus the way its URLs are signed.
type Store struct {
	// Bucket is exposed so callers can stream large blobs themselves.
	Bucket *blob.Bucket
	// signer is set for file:// buckets, whose URLs the api serves itself.
	signer *fileblob.URLSignerHMAC
	scheme string
	// getURLs remembers cloud-signed GET URLs per window (see SignedGetURL).
	getURLs urlCache
	now     func() time.Time
}

// urlCache keeps the GET URLs signed in the current window, so a cloud store
// (whose presigned URLs embed the signing second) also hands out the same URL
// for the same object until the window ends. Bounded: it starts afresh when
// full or when the window moves on.
type urlCache struct {
	mu     sync.Mutex
	window time.Time
	urls   map[string]string
}

const maxCachedURLs = 50_000

func (c *urlCache) get(window time.Time, key string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.window.Equal(window) {
		return "", false
	}
	u, ok := c.urls[key]
	return u, ok
}

func (c *urlCache) put(window time.Time, key, u string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.window.Equal(window) || len(c.urls) >= maxCachedURLs {
		c.window, c.urls = window, map[string]string{}
	}
	c.urls[key] = u
}

// Open opens the bucket named by blobURL (gocloud.dev URL syntax). For a
// file:// bucket with base_url and secret_key_path, the same HMAC key that
// fileblob signs with is loaded so Handler can verify the URLs it hands out.
func Open(ctx context.Context, blobURL string) (*Store, error) {
	u, err := url.Parse(blobURL)
	if err != nil {
		return nil, fmt.Errorf("parse BLOB_URL: %w", err)
	}
	b, err := blob.OpenBucket(ctx, blobURL)
	if err != nil {
		return nil, fmt.Errorf("open bucket %s://: %w", u.Scheme, err)
	}
	s := &Store{Bucket: b, scheme: u.Scheme, now: time.Now}
	if u.Scheme == "file" {
		q := u.Query()
		if base, keyPath := q.Get("base_url"), q.Get("secret_key_path"); base != "" && keyPath != "" {
			bu, err := url.Parse(base)
			if err != nil {
				_ = b.Close()
				return nil, fmt.Errorf("parse base_url of BLOB_URL: %w", err)
			}
			// fileblob reads the key file verbatim; so must we, or the two
			// signers would disagree.
			secret, err := os.ReadFile(keyPath)
			if err != nil {
				_ = b.Close()
				return nil, fmt.Errorf("read blob secret: %w", err)
			}
			s.signer = fileblob.NewURLSignerHMAC(bu, secret)
		}
	}
	return s, nil
}

// OpenFile opens a signed file store in dir whose URLs start with baseURL
// (PUBLIC_BASE_URL + "/blobs"), signing with secret. Tests use it with
// t.TempDir(); production uses Open with the configured BLOB_URL.
func OpenFile(dir, baseURL string, secret []byte) (*Store, error) {
	bu, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("parse blob base URL: %w", err)
	}
	signer := fileblob.NewURLSignerHMAC(bu, secret)
	b, err := fileblob.OpenBucket(dir, &fileblob.Options{URLSigner: signer, CreateDir: true, NoTempDir: true})
	if err != nil {
		return nil, fmt.Errorf("open file bucket %s: %w", dir, err)
	}
	return &Store{Bucket: b, signer: signer, scheme: "file", now: time.Now}, nil
}

// Close releases the bucket.
func (s *Store) Close() error { return s.Bucket.Close() }

// ServedLocally reports whether signed URLs point at the api's own /blobs
// handler (file store) rather than at a cloud provider.
func (s *Store) ServedLocally() bool { return s.signer != nil }

// SignedPutURL returns a URL the browser can PUT one object to until expiry.
// For the file store it is a same-origin relative URL (/blobs?...), so it
// works from whatever host the user reached the api on.
func (s *Store) SignedPutURL(ctx context.Context, key string, expiry time.Duration) (string, error) {
	return s.sign(ctx, key, "PUT", expiry)
}

// SignedGetURL returns a URL anyone holding it can GET the object from;
// JSON answers hand these out for models, thumbnails and photos, and the
// browser polls them every 2 s. So that its cache works, the URL is stable:
// every call within the same window (expiry long, aligned to the clock)
// returns the same URL, which stays valid until the end of the following
// window, i.e. for at least expiry and at most twice that. For the file store
// it is a same-origin relative URL (/blobs?...).
func (s *Store) SignedGetURL(ctx context.Context, key string, expiry time.Duration) (string, error) {
	if expiry <= 0 {
		return "", fmt.Errorf("sign GET %s: expiry must be positive", key)
	}
	now := s.now()
	window := now.Truncate(expiry)
	until := window.Add(2 * expiry)
	if s.signer != nil {
		// fileblob writes now+Expiry in whole seconds; until is a whole
		// second, so every call in the window signs the same expiry.
		return s.sign(ctx, key, "GET", until.Sub(now))
	}
	if u, ok := s.getURLs.get(window, key); ok {
		return u, nil
	}
	u, err := s.sign(ctx, key, "GET", until.Sub(now))
	if err != nil {
		return "", err
	}
	s.getURLs.put(window, key, u)
	return u, nil
}

// SignedURLExpiry reads the expiry (Unix seconds) out of a file-store signed
// URL; ok is false for other URLs. Tests use it to check the window.
func SignedURLExpiry(signed string) (time.Time, bool) {
	u, err := url.Parse(signed)
	if err != nil {
		return time.Time{}, false
	}
	sec, err := strconv.ParseInt(u.Query().Get("expiry"), 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(sec, 0), true
}

func (s *Store) sign(ctx context.Context, key, method string, expiry time.Duration) (string, error) {
	if s.signer != nil {
		u, err := s.signer.URLFromKey(ctx, key, &driver.SignedURLOptions{Method: method, Expiry: expiry})
		if err != nil {
			return "", fmt.Errorf("sign %s %s: %w", method, key, err)
		}
		// The api serves these itself: a relative URL keeps them on the
		// origin the browser is on (127.0.0.1, a LAN address, a proxy),
		// whatever PUBLIC_BASE_URL says. The path keeps base_url's prefix.
		return u.RequestURI(), nil
	}
	u, err := s.Bucket.SignedURL(ctx, key, &blob.SignedURLOptions{Method: method, Expiry: expiry})
	if err != nil {
		return "", fmt.Errorf("sign %s %s on %s://: %w", method, key, s.scheme, err)
	}
	return u, nil
}

// Verify checks a signed URL served by the api (file store) and returns the
// object key and the method it was signed for. Callers must compare that
// method with the request's: a GET URL must never allow a PUT.
func (s *Store) Verify(ctx context.Context, u *url.URL) (key, method string, err error) {
	if s.signer == nil {
		return "", "", fmt.Errorf("%w: this store does not serve its own URLs", ErrBadSignature)
	}
	key, err = s.signer.KeyFromURL(ctx, u)
	if err != nil || key == "" {
		return "", "", ErrBadSignature
	}
	return key, u.Query().Get("method"), nil
}

// Write stores data under key with its content type, replacing any object
// there (keys are deterministic, so a retried job overwrites its own files).
func (s *Store) Write(ctx context.Context, key, contentType string, data []byte) error {
	if err := s.Bucket.WriteAll(ctx, key, data, &blob.WriterOptions{ContentType: contentType}); err != nil {
		return fmt.Errorf("write blob %s: %w", key, err)
	}
	return nil
}

// WriteStream stores what r yields under key without holding it in memory
// (a 150 MB video). When r fails, the write is aborted (gocloud discards a
// writer whose context ends before Close), so no partial object is left under
// key; the error comes back as r returned it.
func (s *Store) WriteStream(ctx context.Context, key, contentType string, r io.Reader) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := s.Bucket.NewWriter(ctx, key, &blob.WriterOptions{ContentType: contentType})
	if err != nil {
		return fmt.Errorf("write blob %s: %w", key, err)
	}
	if _, err := io.Copy(w, r); err != nil {
		cancel()
		_ = w.Close()
		return err
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("write blob %s: %w", key, err)
	}
	return nil
}

// Read returns a blob's bytes, refusing blobs larger than limit (when > 0) so
// a corrupted or hostile object cannot exhaust memory.
func (s *Store) Read(ctx context.Context, key string, limit int64) ([]byte, error) {
	r, err := s.Bucket.NewReader(ctx, key, nil)
	if err != nil {
		return nil, mapErr(key, err)
	}
	defer r.Close()
	if limit > 0 && r.Size() > limit {
		return nil, fmt.Errorf("blob %s is %d bytes, over %d: %w", key, r.Size(), limit, ErrTooLarge)
	}
	src := io.Reader(r)
	if limit > 0 {
		src = io.LimitReader(r, limit+1)
	}
	b, err := io.ReadAll(src)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", key, err)
	}
	if limit > 0 && int64(len(b)) > limit {
		return nil, fmt.Errorf("blob %s is over %d: %w", key, limit, ErrTooLarge)
	}
	return b, nil
}

// Open returns a reader for streaming a blob (size, content type and
// modification time included); the caller closes it.
func (s *Store) Open(ctx context.Context, key string) (*blob.Reader, error) {
	r, err := s.Bucket.NewReader(ctx, key, nil)
	if err != nil {
		return nil, mapErr(key, err)
	}
	return r, nil
}

// Exists reports whether key holds a blob.
func (s *Store) Exists(ctx context.Context, key string) (bool, error) {
	ok, err := s.Bucket.Exists(ctx, key)
	if err != nil {
		return false, fmt.Errorf("check blob %s: %w", key, err)
	}
	return ok, nil
}

// Delete removes a blob; a missing blob is not an error.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := s.Bucket.Delete(ctx, key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return fmt.Errorf("delete blob %s: %w", key, err)
	}
	return nil
}

// Ping writes, reads back and deletes a small object: the health check of
// the debug endpoint.
func (s *Store) Ping(ctx context.Context) error {
	key := "health/ping-" + strings.ReplaceAll(time.Now().UTC().Format("20060102T150405.000000000"), ".", "")
	if err := s.Write(ctx, key, "text/plain", []byte("ok")); err != nil {
		return err
	}
	if _, err := s.Read(ctx, key, 16); err != nil {
		return err
	}
	return s.Delete(ctx, key)
}

func mapErr(key string, err error) error {
	if gcerrors.Code(err) == gcerrors.NotFound {
		return fmt.Errorf("blob %s: %w", key, ErrNotFound)
	}
	return fmt.Errorf("open blob %s: %w", key, err)
}
