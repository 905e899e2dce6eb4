package httpapi

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/channels"
)

// Issue 32, item 1: the Channels panel's data. A product's web GLB and,
// per variant, its commerce GLB and Quick Look USDZ, each with its size
// against the channel's budget; another merchant's product is a 404. The
// worker makes the files (security review 3, H1): until it has, they are
// listed as pending and the request queues its job (once).
func TestProductChannelsListsEachFileAgainstItsBudget(t *testing.T) {
	t.Parallel()
	s := newProductPubStack(t)
	user, id := s.readyProduct(t, "Chair")
	s.ok(t, user, "POST", "/api/products/"+id+"/variants", map[string]any{"name": "Black", "material": "matte-black"})

	var got struct {
		ProductID string           `json:"productId"`
		Assets    []channels.Asset `json:"assets"`
	}
	require.NoError(t, json.Unmarshal(s.ok(t, user, "GET", "/api/products/"+id+"/channels", nil), &got))
	require.Equal(t, id, got.ProductID)
	require.Len(t, got.Assets, 5)
	for _, a := range got.Assets {
		require.Equal(t, channels.StatePending, a.State, a.Label)
		require.Zero(t, a.Bytes)
	}
	s.ok(t, user, "GET", "/api/products/"+id+"/channels", nil)
	require.Equal(t, 1, s.count(t, `SELECT count(*) FROM river_job WHERE kind = 'channel_files'`), "asked twice, queued once")

	startModelWorker(t, s.env, s.env.Store)
	deadline := time.Now().Add(time.Minute)
	for pending := true; pending; {
		require.True(t, time.Now().Before(deadline), "channel files still pending")
		time.Sleep(50 * time.Millisecond)
		require.NoError(t, json.Unmarshal(s.ok(t, user, "GET", "/api/products/"+id+"/channels", nil), &got))
		pending = slices.ContainsFunc(got.Assets, func(a channels.Asset) bool { return a.State == channels.StatePending })
	}
	var kinds []string
	for _, a := range got.Assets {
		require.Equal(t, channels.StateReady, a.State, a.Label)
		kinds = append(kinds, a.Channel+"/"+a.VariantID+"/"+a.Format)
		require.Positive(t, a.Bytes)
		require.Equal(t, "green", a.Status, "a small model is within every budget")
		require.NotEmpty(t, a.Source)
	}
	require.Equal(t, []string{"web//glb", "commerce/v1/glb", "quick-look/v1/usdz", "commerce/v2/glb", "quick-look/v2/usdz"}, kinds)
	require.Equal(t, channels.CommerceBudget.MaxBytes, got.Assets[1].MaxBytes)
	require.Equal(t, int64(15<<20), got.Assets[1].MaxBytes)
	require.Equal(t, int64(10<<20), got.Assets[1].WarnBytes)
	require.Equal(t, int64(2<<20), got.Assets[0].MaxBytes)
	require.Contains(t, got.Assets[4].Label, "Black")

	other := s.env.User(t)
	rec, r := s.json(t, other, "GET", "/api/products/"+id+"/channels", nil)
	require.Equal(t, http.StatusNotFound, rec.Code)
	require.Equal(t, "not_found", r.Error.Code)
}
