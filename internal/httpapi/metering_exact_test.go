package httpapi_test

import (
	"io"
	"log/slog"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/analytics"
	"github.com/photo3d/photo3d/internal/httpapi"
	"github.com/photo3d/photo3d/internal/publish/publishtest"
)

// A view beacon refused because the event buffer is full (503) must not
// cost the merchant a view, and every view that was counted must be stored:
// the counted views in the database are exactly the views the balance paid
// for, never fewer.
func TestBeaconBufferFullBillsNothing(t *testing.T) {
	t.Parallel()
	env := publishtest.New(t)
	w := analytics.NewWriter(env.DB.Pool, nil, analytics.WriterConfig{MaxBuffer: 2})
	c := &analytics.Collector{Writer: w, Pubs: httpapi.PublicationsOf(env.Pages), OwnHost: "photo3d.test"}
	b := pubBundle{Env: env, h: httpapi.NewRouter(httpapi.Deps{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		DB: env.DB.Pool, Publications: env.Service, PublicPages: env.Pages, Shoppers: c})}
	owner := env.Merchant(t)
	env.SetViewBalance(t, owner, 2)
	p := env.Publish(t, owner, env.Blueprint(t, owner, "Lamp"))
	post := func(viewer, ip string, events ...string) int {
		return b.postBeacon(batch(p.Slug, viewer, "", events...), ip, browserUA).Code
	}

	require.Equal(t, http.StatusNoContent, post("viewer-exact-a-000001", "192.0.2.10", evt("view"), evt("interact")))
	// The buffer holds its two rows: refused whole, before the view is counted.
	require.Equal(t, http.StatusServiceUnavailable, post("viewer-exact-b-000001", "192.0.2.11", evt("view")))
	require.NoError(t, w.Flush(env.Ctx))
	require.Equal(t, http.StatusNoContent, post("viewer-exact-c-000001", "192.0.2.12", evt("view")))
	require.Equal(t, http.StatusNoContent, post("viewer-exact-d-000001", "192.0.2.13", evt("view")))
	require.NoError(t, w.Flush(env.Ctx))

	var views, counted int
	require.NoError(t, env.DB.Pool.QueryRow(env.Ctx, `SELECT count(*), count(*) FILTER (WHERE counted)
		FROM shopper_events WHERE kind = 'view'`).Scan(&views, &counted))
	require.Equal(t, 3, views, "a, c and d are stored; b was refused")
	require.Equal(t, 2, counted, "the balance of 2 paid for a and c; d came after it ran out")
}
