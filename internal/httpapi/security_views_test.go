package httpapi_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/publish"
)

// Item 10 of the security review, second half: view counting is the viewer's
// view beacon, deduplicated on (client address + first-party viewer id) with
// a ceiling of counted views per address per owner per window. One address
// rotating its User-Agent, its viewer id, or both, cannot drain the
// merchant's balance; the page GET alone costs nothing.
func TestSecurityRotatingIdentitiesCannotDrainViews(t *testing.T) {
	t.Parallel()
	b := pubSetup(t, 0)
	owner := b.Owner(t, "trial")
	p := b.Publish(t, owner, b.Blueprint(t, owner, "Armchair"))
	b.Downgrade(t, owner)
	b.SetViewBalance(t, owner, 1000)
	attacker := "203.0.113.66"

	// Page loads with fresh User-Agents: free.
	for i := range 50 {
		b.view(t, "GET", "/v/"+p.Slug, attacker, fmt.Sprintf("%s attacker/%d", browserUA, i))
	}
	require.EqualValues(t, 0, b.used(t, owner), "a page GET is not a counted view")

	// One viewer id, rotating User-Agents: one view.
	for i := range 50 {
		require.Equal(t, http.StatusNoContent, b.beacon(t, p.Slug, attacker, fmt.Sprintf("%s rot/%d", browserUA, i), "viewer-attacker-000000").Code)
	}
	require.EqualValues(t, 1, b.used(t, owner))

	// Rotating viewer ids (and User-Agents): capped at the per-address ceiling.
	for i := range 200 {
		b.beacon(t, p.Slug, attacker, fmt.Sprintf("%s rot/%d", browserUA, i), fmt.Sprintf("viewer-rotating-%06d", i))
	}
	require.EqualValues(t, publish.DefaultViewsPerAddress, b.used(t, owner),
		"one address counts at most %d views per window, whatever ids it invents", publish.DefaultViewsPerAddress)

	// Shoppers elsewhere are unaffected.
	for i := range 5 {
		b.beacon(t, p.Slug, fmt.Sprintf("198.51.100.%d", 100+i), browserUA, fmt.Sprintf("viewer-honest-%06d", i))
	}
	require.EqualValues(t, publish.DefaultViewsPerAddress+5, b.used(t, owner))
}

// Security review 2, item 3: the per-address ceiling keyed on the whole IPv6
// address, so one /64 (one subscriber's network) counted 30 of 30 views.
// It now keys on the /64, as the rate limiters do.
func TestSecurityViewCeilingKeysIPv6On64(t *testing.T) {
	t.Parallel()
	b := pubSetup(t, 0)
	owner := b.Owner(t, "trial")
	p := b.Publish(t, owner, b.Blueprint(t, owner, "Stool"))
	b.Downgrade(t, owner)
	b.SetViewBalance(t, owner, 1000)
	for i := range 30 {
		b.beacon(t, p.Slug, fmt.Sprintf("2001:db8:abcd:12::%x", i+1), browserUA, fmt.Sprintf("viewer-v6-rotating-%04d", i))
	}
	require.EqualValues(t, publish.DefaultViewsPerAddress, b.used(t, owner), "one /64 counts as one address")
	b.beacon(t, p.Slug, "2001:db8:abcd:13::1", browserUA, "viewer-v6-neighbour-0001")
	require.EqualValues(t, publish.DefaultViewsPerAddress+1, b.used(t, owner), "another /64 is another shopper")
}

// Security review 3, L8: the ceiling keyed on the /64, so one routed IPv6
// /48 (65,536 /64s) counted 20 views per /64 per window: 10 /64s gave 200,
// the whole /48 about 1.3 M per 30 minutes. Counted views now also have an
// aggregate ceiling per /48 and, for IPv4, per /24.
func TestSecurityViewsFromOneNetworkAreCapped(t *testing.T) {
	t.Parallel()
	b := pubSetup(t, 0)
	owner := b.Owner(t, "trial")
	p := b.Publish(t, owner, b.Blueprint(t, owner, "Bench"))
	b.Downgrade(t, owner)
	b.SetViewBalance(t, owner, 10_000)

	// 25 viewers in each of 15 /64s of 2001:db8:2::/48.
	for n := range 15 {
		for i := range 25 {
			b.beacon(t, p.Slug, fmt.Sprintf("2001:db8:2:%x::%x", n, i+1), browserUA, fmt.Sprintf("viewer-v6-net-%02d-%04d", n, i))
		}
	}
	require.EqualValues(t, publish.DefaultViewsPerNetwork, b.used(t, owner), "one /48 counts at most %d views per window", publish.DefaultViewsPerNetwork)
	b.beacon(t, p.Slug, "2001:db8:3::1", browserUA, "viewer-v6-other-net-01")
	require.EqualValues(t, publish.DefaultViewsPerNetwork+1, b.used(t, owner), "another /48 is another network")

	// The same from 15 addresses of one IPv4 /24.
	for n := range 15 {
		for i := range 25 {
			b.beacon(t, p.Slug, fmt.Sprintf("198.51.100.%d", n+1), browserUA, fmt.Sprintf("viewer-v4-net-%02d-%04d", n, i))
		}
	}
	require.EqualValues(t, 2*publish.DefaultViewsPerNetwork+1, b.used(t, owner), "one /24 counts at most %d views per window", publish.DefaultViewsPerNetwork)
	b.beacon(t, p.Slug, "198.51.101.1", browserUA, "viewer-v4-other-net-01")
	require.EqualValues(t, 2*publish.DefaultViewsPerNetwork+2, b.used(t, owner), "another /24 is another network")
}
