package publish_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/eventstore/committest"
	"github.com/photo3d/photo3d/internal/publish"
)

// Publishing answers what it committed even when the connection is lost
// right after its COMMIT (committest.CutAfterCommit): the new link, a new
// version, the lock, and taking the link down. Read back after the COMMIT,
// each answered an error for a change that was made, and a retried new
// version made a second one.
func TestPublishingAnswersWhatItCommittedWhenTheConnectionIsLostRightAfter(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner := e.Owner(t, "pro")
	bp := e.Blueprint(t, owner, "Vase")
	// cut runs one write under a context cut after its COMMIT.
	cut := func(name string, write func(ctx context.Context) error) {
		t.Helper()
		c := committest.CutAfterCommit(e.Ctx)
		require.NoError(t, write(c), "%s: made, so answered", name)
		require.Error(t, c.Err(), "%s: the connection was cut after the COMMIT", name)
	}

	var p publish.Publication
	var created bool
	cut("a new link", func(c context.Context) (err error) {
		p, created, err = e.Service.Create(c, owner, bp)
		return err
	})
	require.True(t, created)
	require.Equal(t, 1, p.Version)
	require.Equal(t, "live", p.Status)

	e.Rename(t, bp, "Tall vase")
	cut("a new version", func(c context.Context) (err error) {
		p, err = e.Service.NewVersion(c, owner, p.ID)
		return err
	})
	require.Equal(t, 2, p.Version)
	require.Len(t, p.Versions, 2)
	require.Equal(t, "Tall vase", p.Versions[1].Name)

	cut("the lock", func(c context.Context) (err error) {
		p, err = e.Service.Lock(c, owner, p.ID, 1)
		return err
	})
	require.Equal(t, 1, p.LockedVersion)

	cut("taking it down", func(c context.Context) (err error) {
		p, err = e.Service.Unpublish(c, owner, p.ID)
		return err
	})
	require.Equal(t, "unpublished", p.Status)

	again, err := e.Service.Get(e.Ctx, owner, p.ID)
	require.NoError(t, err)
	require.Len(t, again.Versions, 2, "one new version, not two")
}
