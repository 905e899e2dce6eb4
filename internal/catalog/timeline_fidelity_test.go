package catalog

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
)

// The timeline's mesh reconstruction step shows the build's fidelity score (the
// spec's "mesh fidelity"), and nothing for builds recorded without one.
func TestTimelineShowsMeshFidelity(t *testing.T) {
	at := time.Date(2026, 11, 23, 4, 0, 0, 0, time.UTC)
	score := 87
	tl := Timeline([]loggedEvent{
		{Position: 1, Data: events.JobCompleted{JobID: "j1", Fidelity: &score, At: at}},
		{Position: 2, Data: events.JobCompleted{JobID: "j2", At: at}},
	}, nil)
	require.Len(t, tl, 4)
	require.Equal(t, TimelineMesh, tl[0].Kind)
	require.Equal(t, "Mesh fidelity 87%", tl[0].Detail)
	require.Equal(t, &score, tl[0].Fidelity, "the score itself, for the page's low mark")
	require.Nil(t, tl[2].Fidelity)
	require.Equal(t, TimelineMesh, tl[2].Kind)
	require.Empty(t, tl[2].Detail)
}
