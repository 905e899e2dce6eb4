package catalog

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
)

// The timeline's mesh reconstruction step shows the build's fidelity score (the
// spec's "mesh fidelity") and how many photos it used, and nothing for builds
// recorded without them.
func TestTimelineShowsMeshFidelity(t *testing.T) {
	at := time.Date(2026, 11, 23, 4, 0, 0, 0, time.UTC)
	score := 87
	tl := Timeline([]loggedEvent{
		{Position: 1, Data: events.JobCompleted{JobID: "j1", Fidelity: &score, Views: 24, At: at}},
		{Position: 2, Data: events.JobCompleted{JobID: "j2", At: at}},
	}, nil)
	require.Len(t, tl, 4)
	require.Equal(t, TimelineMesh, tl[0].Kind)
	require.Equal(t, "Mesh fidelity 87%", tl[0].Detail)
	require.Equal(t, &score, tl[0].Fidelity, "the score itself, for the page's low mark")
	require.Equal(t, 24, tl[0].Views, "a spin set's photo count, so the page explains its score")
	require.Zero(t, tl[1].Views, "only the mesh entry carries the photo count")
	require.Nil(t, tl[2].Fidelity)
	require.Equal(t, TimelineMesh, tl[2].Kind)
	require.Empty(t, tl[2].Detail)
	require.Zero(t, tl[2].Views, "a build recorded without its photo count")
}
