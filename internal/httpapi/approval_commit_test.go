package httpapi

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/eventstore/committest"
	"github.com/photo3d/photo3d/internal/publish"
	"github.com/photo3d/photo3d/internal/team"
)

// A request for approval, its withdrawal and its approval each answer what
// they committed even when the connection is lost right after the COMMIT
// (committest.CutAfterCommit). Read after the COMMIT, they answered an error
// for a change that was made, and the reviewer's retry was refused as
// "already approved".
func TestApprovalsAnswerWhatTheyCommittedWhenTheConnectionIsLostRightAfter(t *testing.T) {
	t.Parallel()
	s := newTeamStack(t)
	owner, pid := s.readyProduct(t, "Oak chair")
	startTrialFor(t, s.creationStack, owner)
	cut := func() context.Context {
		return committest.CutAfterCommit(eventstore.WithMetadata(context.Background(), eventstore.Metadata{Actor: "user-" + owner}))
	}

	ctx := cut()
	asked, err := s.teams.RequestPublish(ctx, owner, pid, publish.ProductSettings{})
	require.Error(t, ctx.Err(), "the connection was cut after the COMMIT")
	require.NoError(t, err, "the request was made, so it is answered")
	require.Equal(t, team.StatePending, asked.Status)
	require.Equal(t, pid, asked.ProductID)
	require.NotNil(t, asked.Comparison, "with what would go live")

	ctx = cut()
	withdrawn, err := s.teams.Withdraw(ctx, owner, asked.ID)
	require.Error(t, ctx.Err())
	require.NoError(t, err)
	require.Equal(t, team.StateWithdrawn, withdrawn.Status)

	ctx = cut()
	again, err := s.teams.RequestPublish(ctx, owner, pid, publish.ProductSettings{})
	require.Error(t, ctx.Err())
	require.NoError(t, err)
	require.NotEqual(t, asked.ID, again.ID, "a new request")

	ctx = cut()
	approved, err := s.teams.Decide(ctx, owner, again.ID, true, "Looks good")
	require.Error(t, ctx.Err())
	require.NoError(t, err)
	require.Equal(t, team.StateApproved, approved.Status)
	require.Equal(t, "Looks good", approved.Comment)
	require.NotNil(t, approved.DecidedBy)
	require.Equal(t, 1, s.eventCount(t, "publication.created.v1"), "approving published it, once")
}
