package blobstore

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
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
