package blobstore

import (
	"context"
	"errors"
	"io"
	"net/url"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/require"
	"gocloud.dev/blob/fileblob"
)

func setup(t *testing.T) *Store {
	t.Helper()
	s, err := OpenFile(t.TempDir(), "http://photo3d.test/blobs", []byte("0123456789abcdef0123456789abcdef"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestSignedURLsVerifyAndCarryTheirMethod(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	for _, method := range []string{"PUT", "GET"} {
		raw, err := s.sign(ctx, "uploads/u/1.png", method, time.Minute)
		require.NoError(t, err)
		u, err := url.Parse(raw)
		require.NoError(t, err)
		require.Equal(t, "/blobs", u.Path)
		key, m, err := s.Verify(ctx, u)
		require.NoError(t, err)
		require.Equal(t, "uploads/u/1.png", key)
		require.Equal(t, method, m)
	}
}

func TestVerifyRefusesTamperedAndExpiredURLs(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	good, err := s.SignedPutURL(ctx, "uploads/u/1.png", time.Minute)
	require.NoError(t, err)
	expired, err := s.SignedPutURL(ctx, "uploads/u/1.png", -time.Second)
	require.NoError(t, err)
	other, err := OpenFile(t.TempDir(), "http://photo3d.test/blobs", []byte("another-secret-another-secret-xx"))
	require.NoError(t, err)
	foreign, err := other.SignedPutURL(ctx, "uploads/u/1.png", time.Minute)
	require.NoError(t, err)
	set := func(raw, k, v string) string {
		u, _ := url.Parse(raw)
		q := u.Query()
		q.Set(k, v)
		u.RawQuery = q.Encode()
		return u.String()
	}
	for name, raw := range map[string]string{
		"object":         set(good, "obj", "uploads/v/2.png"),
		"method":         set(good, "method", "GET"),
		"expiry":         set(good, "expiry", "99999999999"),
		"signature":      set(good, "signature", "x"),
		"expired":        expired,
		"another secret": foreign,
	} {
		u, err := url.Parse(raw)
		require.NoError(t, err)
		_, _, err = s.Verify(ctx, u)
		require.ErrorIs(t, err, ErrBadSignature, name)
	}
}

func TestReadWriteLimitsAndMissing(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	require.NoError(t, s.Write(ctx, "a/b.bin", "application/octet-stream", []byte("12345")))
	b, err := s.Read(ctx, "a/b.bin", 5)
	require.NoError(t, err)
	require.Equal(t, "12345", string(b))
	_, err = s.Read(ctx, "a/b.bin", 4)
	require.ErrorIs(t, err, ErrTooLarge)
	_, err = s.Read(ctx, "a/missing", 0)
	require.ErrorIs(t, err, ErrNotFound)
	require.NoError(t, s.Delete(ctx, "a/missing"))
	require.NoError(t, s.Ping(ctx))
}

// A streamed write whose source fails midway leaves nothing under its key
// (not the bytes read so far), and a whole one is stored as sent.
func TestWriteStreamStoresAllOrNothing(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	failing := io.MultiReader(strings.NewReader("the first half"), iotest.ErrReader(errors.New("the upload was refused")))
	err := s.WriteStream(ctx, "v/1.mp4", "video/mp4", failing)
	require.EqualError(t, err, "the upload was refused")
	ok, err := s.Exists(ctx, "v/1.mp4")
	require.NoError(t, err)
	require.False(t, ok, "a failed streamed write left an object behind")

	require.NoError(t, s.WriteStream(ctx, "v/2.mp4", "video/mp4", strings.NewReader("all of it")))
	rd, err := s.Open(ctx, "v/2.mp4")
	require.NoError(t, err)
	defer rd.Close()
	require.Equal(t, "video/mp4", rd.ContentType())
	b, err := io.ReadAll(rd)
	require.NoError(t, err)
	require.Equal(t, "all of it", string(b))
}

// The file store's URLs are same-origin relative URLs, and a GET URL is the
// same for every call in its window (so the browser's cache works while the
// processing screen polls), valid for at least one window.
func TestSignedGetURLIsRelativeAndStable(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	before := time.Now()
	a, err := s.SignedGetURL(ctx, "models/u/j/model.glb", time.Hour)
	require.NoError(t, err)
	b, err := s.SignedGetURL(ctx, "models/u/j/model.glb", time.Hour)
	require.NoError(t, err)
	after := time.Now()
	require.True(t, strings.HasPrefix(a, "/blobs?"), a)
	if before.Truncate(time.Hour).Equal(after.Truncate(time.Hour)) {
		require.Equal(t, a, b, "two calls in one window sign the same URL")
	}
	exp, ok := SignedURLExpiry(a)
	require.True(t, ok)
	require.Zero(t, exp.Unix()%3600, "the expiry is on a window boundary")
	require.GreaterOrEqual(t, exp.Sub(before), time.Hour)
	require.LessOrEqual(t, exp.Sub(after), 2*time.Hour)
	u, err := url.Parse(a)
	require.NoError(t, err)
	key, method, err := s.Verify(ctx, u)
	require.NoError(t, err)
	require.Equal(t, "models/u/j/model.glb", key)
	require.Equal(t, "GET", method)

	other, err := s.SignedGetURL(ctx, "models/u/j/thumbnail.png", time.Hour)
	require.NoError(t, err)
	require.NotEqual(t, a, other)

	put, err := s.SignedPutURL(ctx, "uploads/u/1.png", time.Minute)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(put, "/blobs?"), put)
}

// A base URL with a path prefix (behind a proxy) keeps it.
func TestSignedURLKeepsTheBasePath(t *testing.T) {
	t.Parallel()
	s, err := OpenFile(t.TempDir(), "https://shop.example/photo3d/blobs", []byte("0123456789abcdef0123456789abcdef"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	u, err := s.SignedGetURL(context.Background(), "a/b.png", time.Hour)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(u, "/photo3d/blobs?"), u)
}

// A store that signs through the bucket (S3, GCS: their URLs embed the
// signing time) hands out the URL signed first in the window, and a new one
// once the window has moved on. The bucket here is a file bucket signing
// through gocloud, standing in for a cloud one.
func TestBucketSignedGetURLStableWithinWindow(t *testing.T) {
	t.Parallel()
	base, _ := url.Parse("https://bucket.example/")
	b, err := fileblob.OpenBucket(t.TempDir(), &fileblob.Options{
		URLSigner: fileblob.NewURLSignerHMAC(base, []byte("0123456789abcdef0123456789abcdef")), CreateDir: true, NoTempDir: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	clock := time.Date(2026, 1, 2, 10, 5, 0, 0, time.UTC)
	s := &Store{Bucket: b, scheme: "s3", now: func() time.Time { return clock }}
	ctx := context.Background()
	first, err := s.SignedGetURL(ctx, "k.glb", time.Hour)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(first, "https://bucket.example/"), first)
	clock = clock.Add(50 * time.Minute)
	again, err := s.SignedGetURL(ctx, "k.glb", time.Hour)
	require.NoError(t, err)
	require.Equal(t, first, again)
	clock = clock.Add(20 * time.Minute) // 11:15: the next window
	next, err := s.SignedGetURL(ctx, "k.glb", time.Hour)
	require.NoError(t, err)
	require.NotEqual(t, first, next)
}
