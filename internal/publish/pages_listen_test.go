package publish_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/publish/publishtest"
)

// Another api instance must stop serving an unpublished link as soon as the
// publication's NOTIFY arrives, not when its page cache expires: the cache
// here lives an hour, so only the notification can take the page down.
func TestUnpublishReachesAnotherInstanceThroughNotify(t *testing.T) {
	t.Parallel()
	e := setup(t, publishtest.WithCacheTTL(time.Hour))
	owner := e.Owner(t, "pro")
	p := e.Publish(t, owner, e.Blueprint(t, owner, "Lamp"))

	ctx, cancel := context.WithCancel(e.Ctx)
	defer cancel()
	done := make(chan struct{})
	go func() { defer close(done); e.Pages.Listen(ctx) }()
	defer func() { cancel(); <-done }()

	status := func() int {
		rec := httptest.NewRecorder()
		e.Pages.ServeViewer(rec, httptest.NewRequest(http.MethodGet, "/v/"+p.Slug, nil), p.Slug, false)
		return rec.Code
	}
	require.Equal(t, http.StatusOK, status(), "the live link is served (and now cached for an hour)")

	_, err := e.Service.Unpublish(e.Ctx, owner, p.ID)
	require.NoError(t, err)
	// A bound on waiting for the listener, not a timing assertion.
	require.Eventually(t, func() bool { return status() == http.StatusNotFound }, 30*time.Second, 20*time.Millisecond,
		"the unpublished link is still served from the cache: the change notification never arrived")
}
