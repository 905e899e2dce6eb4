package shopify_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/channels/shopify"
	"github.com/photo3d/photo3d/internal/channels/shopify/shopifytest"
)

// A store that keeps answering THROTTLED is given up on after MaxRetries
// waits, with a message the merchant can act on; a wrong token is told
// apart from an outage.
func TestClientGivesUpOnEndlessThrottlingAndNamesABadToken(t *testing.T) {
	t.Parallel()
	fake := shopifytest.New(t, "shpat_ok", map[string]string{})
	var waits int
	c := shopify.NewClient("my-store.myshopify.com", "shpat_ok", fake.Server.URL)
	c.MaxRetries = 2
	c.Sleep = func(context.Context, time.Duration) error { waits++; return nil }
	fake.ThrottleNext = 10
	_, err := c.ShopName(context.Background())
	require.ErrorIs(t, err, shopify.ErrThrottled)
	require.Equal(t, 2, waits)
	require.Equal(t, []string{"shop", "shop", "shop"}, fake.Calls)

	bad := shopify.NewClient("my-store.myshopify.com", "shpat_wrong", fake.Server.URL)
	_, err = bad.ShopName(context.Background())
	require.ErrorIs(t, err, shopify.ErrBadToken)

	fake.ThrottleNext = 0
	name, err := c.ShopName(context.Background())
	require.NoError(t, err)
	require.Equal(t, "Fake Store", name)
}
