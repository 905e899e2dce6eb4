package workspace

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/eventstore"
)

// ProductPath and GalleryPath are where the dashboard's "Resume where you
// left off…" cards and search hits open (accounts-and-workspace.md §2).
func ProductPath(id string) string { return "/workspace/product/" + id }

// GalleryPath is a gallery's page.
func GalleryPath(id string) string { return "/workspace/gallery/" + id }

// handleCatalogue folds product and gallery events into workspace_items. A
// product's status is its current build's: taken from the blueprint item
// when a build is attached, and set again when that job ends; until one is,
// it is a draft (a photo saved without Generate 3D). Galleries
// show as ready (their status is derived from products when listed).
func handleCatalogue(ctx context.Context, tx pgx.Tx, e eventstore.Envelope) (bool, error) {
	at := e.OccurredAt
	switch ev := e.Data.(type) {
	case events.ProductCreated:
		return true, addItem(ctx, tx, Item{ID: ev.ProductID, Type: KindProduct, Label: label(ev.Name), Status: StatusDraft,
			UpdatedAt: at, Path: ProductPath(ev.ProductID)}, ev.UserID)
	case events.ProductModelAttached:
		return true, followBuild(ctx, tx, ev.ProductID, ev.JobID, at)
	case events.ProductBuildStarted:
		return true, followBuild(ctx, tx, ev.ProductID, ev.JobID, at)
	case events.ProductRenamed:
		return true, relabel(ctx, tx, KindProduct, ev.ProductID, label(ev.Name), at)
	case events.ProductDetailsEdited:
		return true, touch(ctx, tx, KindProduct, ev.ProductID, at)
	case events.ProductMoved:
		return true, touch(ctx, tx, KindProduct, ev.ProductID, at)
	case events.ProductDeleted:
		return true, markDeleted(ctx, tx, KindProduct, ev.ProductID, at)
	case events.GalleryCreated:
		return true, addItem(ctx, tx, Item{ID: ev.GalleryID, Type: KindGallery, Label: label(ev.Name), Status: StatusReady,
			UpdatedAt: at, Path: GalleryPath(ev.GalleryID)}, ev.UserID)
	case events.GalleryRenamed:
		return true, relabel(ctx, tx, KindGallery, ev.GalleryID, label(ev.Name), at)
	case events.GalleryDescribed, events.GalleryProductsSet, events.GalleryCoverChosen, events.GalleryTagged, events.GalleryColorChosen:
		return true, touch(ctx, tx, KindGallery, strings.TrimPrefix(e.StreamID, events.StreamGallery+"-"), at)
	case events.GalleryDeleted:
		return true, markDeleted(ctx, tx, KindGallery, ev.GalleryID, at)
	}
	return false, nil
}

// followBuild gives a product its new build's current status.
func followBuild(ctx context.Context, tx pgx.Tx, productID, jobID string, at time.Time) error {
	status, err := blueprintStatus(ctx, tx, jobID)
	if err != nil {
		return err
	}
	return setStatus(ctx, tx, KindProduct, productID, status, ProductPath(productID), at)
}

// setProductsOfJob marks the live products whose current build is jobID.
func setProductsOfJob(ctx context.Context, tx pgx.Tx, jobID, status string, position int64, at time.Time) error {
	refs, err := ProductsBuiltBy(ctx, tx, jobID, position)
	if err != nil {
		return err
	}
	for _, r := range refs {
		if err := setStatus(ctx, tx, KindProduct, r.ID, status, ProductPath(r.ID), at); err != nil {
			return err
		}
	}
	return nil
}
