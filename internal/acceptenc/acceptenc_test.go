package acceptenc_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/acceptenc"
)

func TestAllows(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		header, coding string
		want           bool
	}{
		{"gzip, deflate, br, zstd", "br", true}, // Chromium
		{"gzip, deflate, br, zstd", "gzip", true},
		{"gzip, deflate", "br", false}, // plain http:// on some browsers
		{"", "gzip", false},
		{"identity", "gzip", false},
		{"*", "br", true},
		{"*;q=0", "br", false},
		{"br;q=0, *", "br", false}, // an explicit refusal beats the wildcard
		{"BR;Q=0.5", "br", true},
		{"gzip;q=0.000", "gzip", false},
		{"gzip;q=junk", "gzip", false},
	} {
		require.Equal(t, tc.want, acceptenc.Allows(tc.header, tc.coding), "%q %s", tc.header, tc.coding)
	}
}
