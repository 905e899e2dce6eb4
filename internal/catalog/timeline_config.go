package catalog

import (
	"time"

	"github.com/photo3d/photo3d/events"
)

// TimelineConfigured is the "configure" step of the Blueprint Timeline.
const TimelineConfigured = "configured"

// configuredAt tells whether ev edits the product's configuration (variants,
// hotspots, purchase links, viewer presets) and when. A merchant configures
// in bursts of many small edits, so the timeline shows one "Configured" step
// per uninterrupted run of them, dated by the last edit.
func configuredAt(ev events.Event) (time.Time, bool) {
	switch e := ev.(type) {
	case events.ProductVariantAdded:
		return e.At, true
	case events.ProductVariantChanged:
		return e.At, true
	case events.ProductVariantRemoved:
		return e.At, true
	case events.ProductHotspotPlaced:
		return e.At, true
	case events.ProductHotspotMoved:
		return e.At, true
	case events.ProductHotspotRemoved:
		return e.At, true
	case events.ProductLinkAdded:
		return e.At, true
	case events.ProductLinkRemoved:
		return e.At, true
	case events.ProductPresetsChanged:
		return e.At, true
	}
	return time.Time{}, false
}

// addConfigured appends a "Configured" step, or moves the date of the step
// just before when it is one (the same burst of edits).
func addConfigured(out []TimelineEntry, at time.Time) []TimelineEntry {
	if n := len(out); n > 0 && out[n-1].Kind == TimelineConfigured {
		out[n-1].At = at
		return out
	}
	return append(out, TimelineEntry{Kind: TimelineConfigured, Label: "Configured", At: at})
}
