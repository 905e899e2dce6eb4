package publish

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Security review 2, item 3 (memory half): the per-address ceiling keeps at
// most addressCeilingMaxKeys (owner, address) pairs however many addresses
// arrive inside one window (before, every address stayed for the window).
func TestSecurityViewCeilingMemoryIsBounded(t *testing.T) {
	t.Parallel()
	a := newAddressCeiling(DefaultViewsPerAddress, ViewWindow)
	now := time.Now()
	for i := range addressCeilingMaxKeys + 50_000 {
		a.allow("owner-1", fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255), now)
	}
	require.Equal(t, addressCeilingMaxKeys, a.remembered())
	// IPv6 addresses of one /64 are one address.
	for i := range 40 {
		a.allow("owner-2", fmt.Sprintf("2001:db8:7:9::%x", i+1), now)
	}
	require.False(t, a.allow("owner-2", "2001:db8:7:9:ffff::1", now), "the /64 is at its ceiling")
	require.True(t, a.allow("owner-2", "2001:db8:7:a::1", now), "the next /64 is another subscriber")
}
