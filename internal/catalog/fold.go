package catalog

import (
	"time"

	"github.com/photo3d/photo3d/events"
)

// The Fold functions are the one definition of each aggregate's state: the
// inline projection upserts what they return, so incremental processing and
// a rebuild from the log cannot disagree. They are pure: same events, same
// state.

// FoldCatalog folds a catalog-{id} stream; ok is false before CatalogCreated.
func FoldCatalog(evs []events.Event) (c Catalog, ok bool) {
	for _, e := range evs {
		switch ev := e.(type) {
		case events.CatalogCreated:
			c = Catalog{ID: ev.CatalogID, UserID: ev.UserID, Name: ev.Name, Description: ev.Description,
				IsDefault: ev.IsDefault, CreatedAt: ev.At, UpdatedAt: ev.At}
			ok = true
		case events.CatalogRenamed:
			c.Name, c.UpdatedAt = ev.Name, ev.At
		case events.CatalogDescriptionChanged:
			c.Description, c.UpdatedAt = ev.Description, ev.At
		case events.CatalogDeleted:
			at := ev.At
			c.DeletedAt, c.UpdatedAt = &at, ev.At
		}
	}
	return c, ok
}

// FoldProduct folds a product-{id} stream merged (in log order) with the
// queued, completed and failed events of the jobs it references. Status,
// failure reason and model come from the current job (the last one attached
// or started); every job is kept in Builds, oldest first.
func FoldProduct(evs []events.Event) (p Product, ok bool) {
	builds := map[string]*Build{}
	var order []string
	build := func(jobID string, at time.Time) *Build {
		b, seen := builds[jobID]
		if !seen {
			b = &Build{JobID: jobID, Status: StatusProcessing, StartedAt: at}
			builds[jobID] = b
			order = append(order, jobID)
		}
		return b
	}
	keys := map[string][2]string{} // job → model, thumbnail
	current := func() {
		b := builds[p.JobID]
		if b == nil {
			return
		}
		p.Status, p.FailureReason = b.Status, b.Reason
		k := keys[p.JobID]
		p.ModelKey, p.ThumbnailKey = k[0], k[1]
	}
	for _, e := range evs {
		switch ev := e.(type) {
		case events.JobQueued:
			build(ev.JobID, ev.At)
		case events.JobCompleted:
			b := build(ev.JobID, ev.At)
			at := ev.At
			b.Status, b.Reason, b.FinishedAt = StatusReady, "", &at
			keys[ev.JobID] = [2]string{ev.ModelKey, ev.ThumbnailKey}
			if ok && p.JobID == ev.JobID {
				current()
				p.UpdatedAt = ev.At
			}
		case events.JobFailed:
			b := build(ev.JobID, ev.At)
			if b.Status == StatusReady { // terminal states are sticky, as in the jobs model
				continue
			}
			at := ev.At
			b.Status, b.Reason, b.FinishedAt = StatusError, ev.Reason, &at
			if ok && p.JobID == ev.JobID {
				current()
				p.UpdatedAt = ev.At
			}
		case events.ProductCreated:
			p = Product{ID: ev.ProductID, UserID: ev.UserID, CatalogID: ev.CatalogID, Name: ev.Name, Source: ev.Source,
				Status: StatusProcessing, Tags: []string{}, Config: NewConfig(), CreatedAt: ev.At, UpdatedAt: ev.At}
			if ev.Source == events.ProductSourceUpload {
				// Created for the merchant's own model, which has not arrived yet.
				p.Status = StatusDraft
			}
			ok = true
		case events.ProductModelAttached:
			build(ev.JobID, ev.At)
			p.JobID, p.UpdatedAt = ev.JobID, ev.At
			current()
		case events.ProductBuildStarted:
			build(ev.JobID, ev.At)
			p.JobID, p.UpdatedAt = ev.JobID, ev.At
			current()
		case events.ProductRenamed:
			p.Name, p.UpdatedAt = ev.Name, ev.At
		case events.ProductDetailsEdited:
			p.Description, p.ProductURL, p.UpdatedAt = ev.Description, ev.ProductURL, ev.At
			p.Tags = append([]string{}, ev.Tags...)
		case events.ProductMoved:
			p.CatalogID, p.UpdatedAt = ev.CatalogID, ev.At
		case events.ProductDeleted:
			at := ev.At
			p.DeletedAt, p.UpdatedAt = &at, ev.At
		case events.ProductPhotoAttached:
			p.PhotoUploadID, p.PhotoKey, p.UpdatedAt = ev.UploadID, ev.PhotoKey, ev.At
			p.CleanEdges, p.KeepShadow = ev.CleanEdges, ev.KeepShadow
			if p.JobID == "" && p.ModelKey == "" {
				p.Status = StatusDraft
			}
		case events.ProductModelUploaded:
			// The merchant's own model replaces whatever build was current;
			// later completions of older builds no longer touch the product.
			p.JobID, p.Status, p.FailureReason = "", StatusReady, ""
			p.ModelKey, p.ThumbnailKey, p.Source, p.UpdatedAt = ev.ModelKey, ev.ThumbnailKey, events.ProductSourceUpload, ev.At
		default:
			if at, configured := p.Config.apply(e); configured {
				p.UpdatedAt = at
			}
		}
	}
	for _, id := range order {
		p.Builds = append(p.Builds, *builds[id])
	}
	return p, ok
}

// FoldGallery folds a gallery-{id} stream; ok is false before GalleryCreated.
func FoldGallery(evs []events.Event) (g Gallery, ok bool) {
	for _, e := range evs {
		switch ev := e.(type) {
		case events.GalleryCreated:
			g = Gallery{ID: ev.GalleryID, UserID: ev.UserID, Name: ev.Name, Description: ev.Description,
				ProductIDs: []string{}, Tags: append([]string{}, ev.Tags...), ThumbnailColor: ev.ThumbnailColor,
				CreatedAt: ev.At, UpdatedAt: ev.At}
			ok = true
		case events.GalleryRenamed:
			g.Name, g.UpdatedAt = ev.Name, ev.At
		case events.GalleryDescribed:
			g.Description, g.UpdatedAt = ev.Description, ev.At
		case events.GalleryProductsSet:
			g.ProductIDs, g.UpdatedAt = append([]string{}, ev.ProductIDs...), ev.At
			if !contains(g.ProductIDs, g.CoverProductID) {
				g.CoverProductID = ""
			}
		case events.GalleryCoverChosen:
			g.CoverProductID, g.UpdatedAt = ev.ProductID, ev.At
		case events.GalleryTagged:
			g.Tags, g.UpdatedAt = append([]string{}, ev.Tags...), ev.At
		case events.GalleryColorChosen:
			g.ThumbnailColor, g.UpdatedAt = ev.Color, ev.At
		case events.GalleryDeleted:
			at := ev.At
			g.DeletedAt, g.UpdatedAt = &at, ev.At
		}
	}
	return g, ok
}

func contains(ids []string, id string) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}
