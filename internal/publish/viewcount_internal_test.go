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
	a := newAddressCeiling(DefaultViewsPerAddress, addressCeilingMaxKeys*2, ViewWindow)
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

// Security review 3, L8: the aggregate ceiling's networks are an IPv6 /48
// and an IPv4 /24, whatever way the address is written.
func TestSecurityViewCeilingNetworks(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]string{
		"2001:db8:2:ffff::1":   "2001:db8:2::/48",
		"2001:db8:2:0:1:2:3:4": "2001:db8:2::/48",
		"fe80::1%eth0":         "fe80::/48",
		"198.51.100.7":         "198.51.100.0/24",
		"::ffff:198.51.100.9":  "198.51.100.0/24",
		"not an address":       "not an address",
	} {
		require.Equal(t, want, networkOf(addr), addr)
	}
	a := newAddressCeiling(2, 5, ViewWindow)
	now := time.Now()
	taken := 0
	for i := range 10 {
		for range 3 {
			if a.allow("owner-1", fmt.Sprintf("2001:db8:2:%x::1", i), now) {
				taken++
			}
		}
	}
	require.Equal(t, 5, taken, "2 per /64, 5 per /48")
	require.True(t, a.allow("owner-2", "2001:db8:2:1::1", now), "another owner's ceiling")
	require.True(t, a.allow("owner-1", "2001:db8:3::1", now), "another /48")
	a.refund("owner-1", "2001:db8:2:0::1") // the balance did not honour one of its views
	require.True(t, a.allow("owner-1", "2001:db8:2:0::1", now), "a refund frees its places in both ceilings")
}
