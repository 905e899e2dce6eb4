package notify_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	jobpkg "github.com/photo3d/photo3d/internal/job"
	"github.com/photo3d/photo3d/internal/reconstruct"
)

// Merchant walk 4, P15: a failed build's note said the same advice twice
// ("…plain background. No credits were used. Try a photo of the product on a
// plain background."). Each thing is said once: the advice only when the
// reason gives none, "no credits" only when the reason does not say it.
func TestFailedBuildNoteSaysItsAdviceOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.emit(t, usr("u1"), events.UserRegistered{UserID: "u1"})
	reasons := map[string]string{
		"j1": reconstruct.ErrSubjectNotSeparated.Error(),
		"j2": jobpkg.BuildFailedMessage,
		"j3": jobpkg.DeletedWhileBuildingMessage,
		"j4": "We could not find the product in the photo",
	}
	for id, reason := range reasons {
		b.emit(t, job(id), events.JobQueued{JobID: id, UserID: "u1", Name: "Cup " + id})
		b.emit(t, job(id), events.JobFailed{JobID: id, Reason: reason})
	}
	b.drain(t)
	got := map[string]string{}
	for _, n := range b.list(t, "u1").Items {
		if n.Link != nil && strings.HasPrefix(*n.Link, "/processing/") {
			got[strings.TrimPrefix(*n.Link, "/processing/")] = n.Message
		}
	}
	require.Equal(t, map[string]string{
		"j1": "“Cup j1” could not be built: We could not separate the product from its background. Use a photo of the product alone on a plain background, or standing clear on a table or floor with nothing else in view. No credits were used.",
		"j2": "“Cup j2” could not be built: The build stopped. Try a different angle or hit retry to run it again. No credits were used.",
		"j3": "“Cup j3” could not be built: This blueprint was deleted while it was building. No credit was used.",
		"j4": "“Cup j4” could not be built: We could not find the product in the photo. No credits were used. Try a photo of the product on a plain background.",
	}, got)
	for _, m := range got {
		require.LessOrEqual(t, strings.Count(strings.ToLower(m), "plain background"), 1, m)
		require.LessOrEqual(t, strings.Count(strings.ToLower(m), "credit"), 1, m)
	}
}
