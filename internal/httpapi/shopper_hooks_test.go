package httpapi

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/analytics"
)

// The public pages made by ShopperPages (as cmd/api makes them) report a
// buy-link redirect and an email captured at the gate to shopper analytics:
// each becomes a shopper event of the product's merchant, tagged with the
// shopper's viewer id, once the buffer is flushed.
func TestShopperPagesRecordBuyClicksAndLeads(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	shoppers := &analytics.Collector{OwnHost: "photo3d.test"}
	s := newProductPubStack(t, shoppers)
	shoppers.Writer = analytics.NewWriter(s.env.DB.Pool, nil, analytics.WriterConfig{})
	user, id := s.readyProduct(t, "Wired chair")
	startTrialFor(t, s.creationStack, user)
	s.ok(t, user, "POST", "/api/products/"+id+"/links", map[string]any{"url": "https://www.etsy.com/listing/42"})
	pub := decodeAs[publishReply](t, s.ok(t, user, "POST", "/api/products/"+id+"/publish", map[string]any{"requireEmail": true}))

	rec := s.shopper(t, "GET", "/v/"+pub.Slug+"/go/l1?vid=viewer-wired-click-0001", "")
	require.Equal(t, http.StatusFound, rec.Code, rec.Body.String())
	rec = s.shopper(t, "POST", "/v/"+pub.Slug+"/lead?vid=viewer-wired-lead-00001", `{"email":"shopper@example.com","consent":true}`)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())

	require.NoError(t, shoppers.Writer.Flush(ctx))
	rows, err := s.env.DB.Pool.Query(ctx, `SELECT kind, viewer, user_id, product_id, platform FROM shopper_events ORDER BY kind`)
	require.NoError(t, err)
	var got [][]string
	for rows.Next() {
		var kind, viewer, owner, product, platform string
		require.NoError(t, rows.Scan(&kind, &viewer, &owner, &product, &platform))
		got = append(got, []string{kind, viewer, owner, product, platform})
	}
	require.NoError(t, rows.Err())
	require.Equal(t, [][]string{
		{"click", "viewer-wired-click-0001", user, id, "Etsy"},
		{"lead", "viewer-wired-lead-00001", user, id, ""},
	}, got)
}
