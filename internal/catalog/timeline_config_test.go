package catalog

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
)

// The Blueprint Timeline shows the configure step (issue 12): a burst of
// configuration edits is one "Configured" step dated by its last edit; an
// edit after another kind of step starts a new one.
func TestTimelineShowsConfiguredOncePerBurst(t *testing.T) {
	at := func(m int) time.Time { return time.Date(2026, 3, 1, 10, m, 0, 0, time.UTC) }
	history := []loggedEvent{
		{Position: 1, Data: events.ProductCreated{ProductID: "p", Name: "Chair", At: at(0)}},
		{Position: 2, Data: events.ProductVariantAdded{ProductID: "p", VariantID: "v2", At: at(1)}},
		{Position: 3, Data: events.ProductHotspotPlaced{ProductID: "p", HotspotID: "h1", At: at(2)}},
		{Position: 4, Data: events.ProductLinkAdded{ProductID: "p", At: at(3)}},
		{Position: 5, Data: events.ProductRenamed{ProductID: "p", Name: "Oak chair", At: at(4)}},
		{Position: 6, Data: events.ProductPresetsChanged{ProductID: "p", At: at(5)}},
	}
	got := Timeline(history, nil)
	type step struct {
		Kind string
		At   time.Time
	}
	var steps []step
	for _, e := range got {
		steps = append(steps, step{e.Kind, e.At})
	}
	require.Equal(t, []step{{TimelineCreated, at(0)}, {TimelineConfigured, at(3)}, {TimelineDetails, at(4)}, {TimelineConfigured, at(5)}}, steps)
	require.Equal(t, "Configured", got[1].Label)
}
