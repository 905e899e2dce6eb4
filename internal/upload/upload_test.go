package upload

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/imagecheck"
)

func TestParseImageURL(t *testing.T) {
	t.Parallel()
	s := &Service{baseURL: "https://app.photo3d.test"}
	id := "0190aaaa-0000-7000-8000-000000000000"
	cases := []struct {
		in   string
		want string
		err  error
	}{
		{"https://app.photo3d.test/api/uploads/" + id + "/image", id, nil},
		{"HTTPS://APP.photo3d.test/api/uploads/" + id + "/image", id, nil},
		{"/api/uploads/" + id + "/image", id, nil},
		{"", "", ErrNoImageURL},
		{"http://app.photo3d.test/api/uploads/" + id + "/image", "", ErrNotYours},
		{"https://evil.test/api/uploads/" + id + "/image", "", ErrNotYours},
		{"//evil.test/api/uploads/" + id + "/image", "", ErrNotYours},
		{"https://user@app.photo3d.test/api/uploads/" + id + "/image", "", ErrNotYours},
		{"/api/uploads/" + id + "/image?x=1", "", ErrNotYours},
		{"/api/uploads/" + id + "/image#x", "", ErrNotYours},
		{"/api/uploads/not-a-uuid/image", "", ErrNotYours},
		{"/api/uploads/" + id, "", ErrNotYours},
		{"/blobs?obj=uploads/x", "", ErrNotYours},
		{"data:image/png;base64,AAAA", "", ErrNotYours},
		{"file:///etc/passwd", "", ErrNotYours},
	}
	for _, c := range cases {
		got, err := s.ParseImageURL(c.in)
		if c.err != nil {
			require.ErrorIs(t, err, c.err, c.in)
			continue
		}
		require.NoError(t, err, c.in)
		require.Equal(t, c.want, got)
	}
}

func TestCheckFaultKeepsTheSpecMessages(t *testing.T) {
	t.Parallel()
	for sentinel, kind := range map[error]fault.Kind{
		imagecheck.ErrTooLarge:    fault.TooLarge,
		imagecheck.ErrInvalidType: fault.UnsupportedMedia,
		imagecheck.ErrDimensions:  fault.Invalid,
		imagecheck.ErrUnreadable:  fault.Invalid,
	} {
		fe, ok := fault.As(CheckFault(sentinel))
		require.True(t, ok)
		require.Equal(t, kind, fe.Kind)
		require.Equal(t, sentinel.Error(), fe.Message)
	}
	other := errors.New("disk full")
	require.Equal(t, other, CheckFault(other))
}

func TestCleanFilename(t *testing.T) {
	t.Parallel()
	require.Equal(t, "vase.png", cleanFilename(`C:\Users\me\vase.png`))
	require.Equal(t, "vase.png", cleanFilename("../../vase.png"))
	require.Equal(t, "photo", cleanFilename(""))
	require.Equal(t, "ab.jpg", cleanFilename("a\x00b.jpg"))
	require.Len(t, cleanFilename(strings.Repeat("é", 300)), 200)
}
