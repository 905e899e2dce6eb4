package catalog

import (
	"fmt"
	"sort"
	"time"

	"github.com/photo3d/photo3d/events"
)

// TimelineEntry is one step of the Blueprint Timeline on the product page
// (spec §2: upload, mesh reconstruction, materials mapped, configure and
// publish), taken from the product's real events and its builds' events.
type TimelineEntry struct {
	Kind   string    `json:"kind"`
	Label  string    `json:"label"`
	Detail string    `json:"detail,omitempty"`
	At     time.Time `json:"at"`
	JobID  string    `json:"jobId,omitempty"`
	// Fidelity is the mesh reconstruction's score (0–100), so the page can mark
	// a low one; absent for other entries and builds recorded without one.
	Fidelity *int `json:"fidelity,omitempty"`
	// Views is how many photos the mesh reconstruction used, so the page can tell
	// a spin set's score (more than one photo) from a single photo's; absent for
	// other entries and builds recorded without it.
	Views int `json:"views,omitempty"`
}

// Timeline kinds.
const (
	TimelineUploaded      = "upload"
	TimelineMeshStarted   = "mesh_reconstruction_started"
	TimelineMesh          = "mesh_reconstruction"
	TimelineMaterials     = "materials_mapped"
	TimelineBuildFailed   = "build_failed"
	TimelineCreated       = "product_created"
	TimelineModelAttached = "model_attached"
	TimelineRebuild       = "rebuild_started"
	TimelineDetails       = "details_edited"
	TimelineMoved         = "moved"
	TimelinePublished     = "published"
	TimelinePhoto         = "photo_added"
	TimelineModelUploaded = "model_uploaded"
)

// Timeline turns a product's history (productHistory with job starts) and
// the publications of its builds into entries, oldest first. Only the first
// start of each build is shown; retried attempts are not news to a merchant.
func Timeline(history, publications []loggedEvent) []TimelineEntry {
	out := []TimelineEntry{}
	started := map[string]bool{}
	all := append(append([]loggedEvent{}, history...), publications...)
	sort.SliceStable(all, func(i, j int) bool { return all[i].Position < all[j].Position })
	for _, le := range all {
		switch ev := le.Data.(type) {
		case events.JobQueued:
			out = append(out, TimelineEntry{Kind: TimelineUploaded, Label: "Photo uploaded", At: ev.At, JobID: ev.JobID})
		case events.JobStarted:
			if started[ev.JobID] {
				continue
			}
			started[ev.JobID] = true
			out = append(out, TimelineEntry{Kind: TimelineMeshStarted, Label: "Mesh reconstruction started", At: ev.At, JobID: ev.JobID})
		case events.JobCompleted:
			out = append(out,
				TimelineEntry{Kind: TimelineMesh, Label: "Mesh reconstruction complete", Detail: fidelityText(ev.Fidelity), At: ev.At, JobID: ev.JobID, Fidelity: ev.Fidelity, Views: ev.Views},
				TimelineEntry{Kind: TimelineMaterials, Label: "Materials mapped", Detail: partsText(len(ev.Parts)), At: ev.At, JobID: ev.JobID})
		case events.JobFailed:
			out = append(out, TimelineEntry{Kind: TimelineBuildFailed, Label: "Build failed", Detail: ev.Reason, At: ev.At, JobID: ev.JobID})
		case events.ProductCreated:
			out = append(out, TimelineEntry{Kind: TimelineCreated, Label: "Product created", At: ev.At})
		case events.ProductModelAttached:
			out = append(out, TimelineEntry{Kind: TimelineModelAttached, Label: "Model attached from blueprint", At: ev.At, JobID: ev.JobID})
		case events.ProductBuildStarted:
			out = append(out, TimelineEntry{Kind: TimelineRebuild, Label: "New build started", At: ev.At, JobID: ev.JobID})
		case events.ProductRenamed:
			out = append(out, TimelineEntry{Kind: TimelineDetails, Label: "Renamed", Detail: ev.Name, At: ev.At})
		case events.ProductDetailsEdited:
			out = append(out, TimelineEntry{Kind: TimelineDetails, Label: "Details edited", At: ev.At})
		case events.ProductMoved:
			out = append(out, TimelineEntry{Kind: TimelineMoved, Label: "Moved to another catalog", At: ev.At})
		case events.ProductPhotoAttached:
			out = append(out, TimelineEntry{Kind: TimelinePhoto, Label: "Photo added", At: ev.At})
		case events.ProductModelUploaded:
			out = append(out, TimelineEntry{Kind: TimelineModelUploaded, Label: "Own model uploaded", Detail: ev.Filename, At: ev.At})
		case events.PublicationCreated:
			out = append(out, TimelineEntry{Kind: TimelinePublished, Label: "Published", Detail: "/v/" + ev.Slug, At: ev.At, JobID: ev.BlueprintID})
		default:
			if at, ok := configuredAt(le.Data); ok {
				out = addConfigured(out, at)
			}
		}
	}
	return out
}

func partsText(n int) string {
	if n == 1 {
		return "1 part"
	}
	return fmt.Sprintf("%d parts", n)
}

// fidelityText is the spec's "mesh fidelity" figure, empty for builds without one.
func fidelityText(f *int) string {
	if f == nil {
		return ""
	}
	return fmt.Sprintf("Mesh fidelity %d%%", *f)
}
