package publish_test

import (
	"regexp"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/publish"
	"github.com/photo3d/photo3d/internal/publish/publishtest"
)

func setup(t *testing.T, opts ...publishtest.Option) *publishtest.Env {
	t.Helper()
	return publishtest.New(t, opts...)
}

func TestCreateFollowsThePlan(t *testing.T) {
	t.Parallel()
	e := setup(t)
	for plan, allowed := range map[string]bool{"free": false, "trial": true, "pro": true} {
		owner := e.Owner(t, plan)
		bp := e.Blueprint(t, owner, "Chair")
		p, created, err := e.Service.Create(e.Ctx, owner, bp)
		if !allowed {
			require.ErrorIs(t, err, publish.ErrUpgradeRequired, plan)
			fe, _ := fault.As(err)
			require.Equal(t, "Public sharing is a Pro feature. Upgrade to Pro or start a free trial to share links and embeds.", fe.Message)
			continue
		}
		require.NoError(t, err, plan)
		require.True(t, created)
		require.Equal(t, 1, p.Version)
		require.Equal(t, "live", p.Status)
	}
}

func TestCreateTwiceReturnsTheSameLink(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner := e.Owner(t, "trial")
	bp := e.Blueprint(t, owner, "Lamp")

	var wg sync.WaitGroup
	ids := make([]string, 8)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, _, err := e.Service.Create(e.Ctx, owner, bp)
			require.NoError(t, err)
			ids[i] = p.ID
		}()
	}
	wg.Wait()
	for _, id := range ids {
		require.Equal(t, ids[0], id)
	}
	list, err := e.Service.List(e.Ctx, owner, bp)
	require.NoError(t, err)
	require.Len(t, list, 1)
}

func TestLinksAreUnguessableAndComplete(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner := e.Owner(t, "pro")
	seen := map[string]bool{}
	for range 5 {
		p := e.Publish(t, owner, e.Blueprint(t, owner, `Sofa "Deluxe" <b>`))
		require.Regexp(t, regexp.MustCompile(`^[A-Za-z0-9_-]{16}$`), p.Slug) // 96 random bits
		require.False(t, seen[p.Slug])
		seen[p.Slug] = true
		require.Equal(t, publishtest.BaseURL+"/v/"+p.Slug, p.ShareURL)
		require.Equal(t, publishtest.BaseURL+"/v/"+p.Slug+"/qr.png", p.QRURL)
		require.Equal(t, `<iframe src="`+publishtest.BaseURL+`/embed/`+p.Slug+`" title="Sofa &#34;Deluxe&#34; &lt;b&gt; in 3D" width="800" height="600" style="display:block;width:100%;max-width:800px;height:auto;aspect-ratio:800/600;border:0" loading="lazy" allow="fullscreen; xr-spatial-tracking" allowfullscreen></iframe>`, p.EmbedCode)
	}
}

func TestCreateRefusesWhatCannotBePublished(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, other := e.Owner(t, "pro"), e.Owner(t, "pro")
	cases := map[string]struct {
		blueprint string
		code      string
	}{
		"missing":        {"4b1c3c0e-0000-4000-8000-000000000000", "not_found"},
		"someone else's": {e.Blueprint(t, other, "Theirs"), "not_found"},
		"still building": {e.QueuedBlueprint(t, owner, "Soon"), "blueprint_not_ready"},
		"no id":          {"", "invalid_blueprint_id"},
	}
	deleted := e.Blueprint(t, owner, "Gone")
	e.Delete(t, deleted)
	cases["deleted"] = struct{ blueprint, code string }{deleted, "not_found"}
	for name, c := range cases {
		_, _, err := e.Service.Create(e.Ctx, owner, c.blueprint)
		fe, ok := fault.As(err)
		require.True(t, ok, "%s: %v", name, err)
		require.Equal(t, c.code, fe.Code, name)
	}
}

func TestVersionsLockAndUnpublish(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, other := e.Owner(t, "pro"), e.Owner(t, "pro")
	bp := e.Blueprint(t, owner, "Vase")
	p := e.Publish(t, owner, bp)

	e.Rename(t, bp, "Tall vase")
	p2, err := e.Service.NewVersion(e.Ctx, owner, p.ID)
	require.NoError(t, err)
	require.Equal(t, 2, p2.Version)
	require.Equal(t, []publish.VersionInfo{{Version: 1, Name: "Vase", CreatedAt: p2.Versions[0].CreatedAt},
		{Version: 2, Name: "Tall vase", CreatedAt: p2.Versions[1].CreatedAt}}, p2.Versions)

	locked, err := e.Service.Lock(e.Ctx, owner, p.ID, 1)
	require.NoError(t, err)
	require.Equal(t, 1, locked.LockedVersion)
	require.Equal(t, "Vase", locked.Name)

	_, err = e.Service.Lock(e.Ctx, owner, p.ID, 3)
	fe, _ := fault.As(err)
	require.Equal(t, "invalid_version", fe.Code)

	_, err = e.Service.Get(e.Ctx, other, p.ID)
	require.True(t, fault.IsKind(err, fault.NotFound))
	_, err = e.Service.Unpublish(e.Ctx, other, p.ID)
	require.True(t, fault.IsKind(err, fault.NotFound))

	gone, err := e.Service.Unpublish(e.Ctx, owner, p.ID)
	require.NoError(t, err)
	require.Equal(t, "unpublished", gone.Status)
	_, err = e.Service.Unpublish(e.Ctx, owner, p.ID) // idempotent
	require.NoError(t, err)
	_, err = e.Service.NewVersion(e.Ctx, owner, p.ID)
	require.True(t, fault.IsKind(err, fault.Conflict))

	// Publishing again after unpublishing makes a new link; the old one stays dead.
	again := e.Publish(t, owner, bp)
	require.NotEqual(t, p.Slug, again.Slug)

	require.Equal(t, []string{"publication.created.v1", "publication.versioned.v1", "publication.versioned.v1",
		"publication.locked.v1", "publication.unpublished.v1"},
		e.EventTypes(t, events.Stream{Type: events.StreamPublication, ID: p.ID}))
}

// Issue 50 item 1: LockLive pins what shoppers see now. A rename after
// publishing shows on the unlocked page at once; locking live freezes it as
// a new version (pinning version 1 would have brought the old name back),
// a rename while locked waits and is reported as pending, and locking live
// again with nothing new adds no version.
func TestLockLivePinsTheCurrentState(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner := e.Owner(t, "pro")
	bp := e.Blueprint(t, owner, "Vase")
	p := e.Publish(t, owner, bp)
	e.Rename(t, bp, "Tall vase")

	locked, err := e.Service.LockLive(e.Ctx, owner, p.ID)
	require.NoError(t, err)
	require.Equal(t, 2, locked.Version)
	require.Equal(t, 2, locked.LockedVersion)
	require.Equal(t, "Tall vase", locked.Name)
	require.False(t, locked.PendingEdits)

	same, err := e.Service.LockLive(e.Ctx, owner, p.ID)
	require.NoError(t, err)
	require.Equal(t, 2, same.Version, "nothing changed: no new version")

	e.Rename(t, bp, "Short vase")
	got, err := e.Service.Get(e.Ctx, owner, p.ID)
	require.NoError(t, err)
	require.True(t, got.PendingEdits)
	require.Equal(t, "Tall vase", got.Name, "the page keeps the locked name")
	list, err := e.Service.List(e.Ctx, owner, bp)
	require.NoError(t, err)
	require.True(t, list[0].PendingEdits)

	again, err := e.Service.LockLive(e.Ctx, owner, p.ID)
	require.NoError(t, err)
	require.Equal(t, 3, again.LockedVersion)
	require.Equal(t, "Short vase", again.Name)
	require.False(t, again.PendingEdits)

	_, err = e.Service.LockLive(e.Ctx, e.Owner(t, "pro"), p.ID)
	require.True(t, fault.IsKind(err, fault.NotFound), "someone else's link")

	require.Equal(t, []string{"publication.created.v1", "publication.versioned.v1", "publication.versioned.v1",
		"publication.locked.v1", "publication.versioned.v1", "publication.locked.v1"},
		e.EventTypes(t, events.Stream{Type: events.StreamPublication, ID: p.ID}))
}
