package catalog

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/eventstore"
)

// Projection keeps the catalogs, products and galleries tables in step with
// the log. It is inline: register it in the api's AND the worker's event
// store (after job.Projection), so a job's completion or failure updates its
// products in the worker's own transaction.
type Projection struct{}

// Apply implements eventstore.Inline. Each relevant event re-folds its
// aggregate from the log (the events of this transaction included) and
// upserts the result.
func (Projection) Apply(ctx context.Context, tx pgx.Tx, e eventstore.Envelope) error {
	switch ev := e.Data.(type) {
	case events.CatalogCreated, events.CatalogRenamed, events.CatalogDescriptionChanged, events.CatalogDeleted:
		return refoldCatalog(ctx, tx, strings.TrimPrefix(e.StreamID, events.StreamCatalog+"-"))
	case events.ProductCreated, events.ProductModelAttached, events.ProductBuildStarted, events.ProductRenamed,
		events.ProductDetailsEdited, events.ProductMoved, events.ProductDeleted,
		events.ProductVariantAdded, events.ProductVariantChanged, events.ProductVariantRemoved,
		events.ProductHotspotPlaced, events.ProductHotspotMoved, events.ProductHotspotRemoved,
		events.ProductLinkAdded, events.ProductLinkRemoved, events.ProductPresetsChanged,
		events.ProductPhotoAttached, events.ProductModelUploaded:
		return refoldProduct(ctx, tx, strings.TrimPrefix(e.StreamID, events.StreamProduct+"-"))
	case events.GalleryCreated, events.GalleryRenamed, events.GalleryDescribed, events.GalleryProductsSet,
		events.GalleryCoverChosen, events.GalleryTagged, events.GalleryColorChosen, events.GalleryDeleted:
		return refoldGallery(ctx, tx, strings.TrimPrefix(e.StreamID, events.StreamGallery+"-"))
	case events.JobCompleted:
		return refoldProductsOfJob(ctx, tx, ev.JobID)
	case events.JobFailed:
		return refoldProductsOfJob(ctx, tx, ev.JobID)
	}
	return nil
}

func refoldCatalog(ctx context.Context, tx pgx.Tx, id string) error {
	les, err := streamEvents(ctx, tx, catalogStream(id))
	if err != nil {
		return err
	}
	if c, ok := FoldCatalog(plain(les)); ok {
		return upsertCatalog(ctx, tx, c)
	}
	return nil
}

func refoldProduct(ctx context.Context, tx pgx.Tx, id string) error {
	les, err := productHistory(ctx, tx, id, false)
	if err != nil {
		return err
	}
	if p, ok := FoldProduct(plain(les)); ok {
		return upsertProduct(ctx, tx, p)
	}
	return nil
}

func refoldGallery(ctx context.Context, tx pgx.Tx, id string) error {
	les, err := streamEvents(ctx, tx, galleryStream(id))
	if err != nil {
		return err
	}
	if g, ok := FoldGallery(plain(les)); ok {
		return upsertGallery(ctx, tx, g)
	}
	return nil
}

func refoldProductsOfJob(ctx context.Context, tx pgx.Tx, jobID string) error {
	ids, err := productsOfJob(ctx, tx, jobID)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := refoldProduct(ctx, tx, id); err != nil {
			return err
		}
	}
	return nil
}

// Refold rewrites one catalog, product or gallery row from its stream as
// the log holds it now, as Rebuild would write it (other streams are
// ignored). The account erasure (internal/privacy) calls it after blanking
// the account's merchant text in the log, so the rows hold no more than
// the log does and a later replay changes nothing.
func Refold(ctx context.Context, tx pgx.Tx, s events.Stream) error {
	switch s.Type {
	case events.StreamCatalog:
		return refoldCatalog(ctx, tx, s.ID)
	case events.StreamProduct:
		return refoldProduct(ctx, tx, s.ID)
	case events.StreamGallery:
		return refoldGallery(ctx, tx, s.ID)
	}
	return nil
}

// LockMerchant takes the lock every catalogue write of the merchant's that
// reads before it appends holds (plan limits, the default catalog, an
// uploaded model being recorded), for the rest of tx: the account erasure
// holds it while it blanks the merchant's text in the log.
func LockMerchant(ctx context.Context, tx pgx.Tx, userID string) error {
	return lockMerchant(ctx, tx, userID)
}

// Rebuild recreates the three read models from the log in tx (`worker
// replay catalogue`): readers keep the old rows until it commits.
func Rebuild(ctx context.Context, tx pgx.Tx) error {
	streams, err := clearAndListStreams(ctx, tx)
	if err != nil {
		return err
	}
	for _, s := range streams {
		id := s.ID
		switch s.Type {
		case events.StreamCatalog:
			err = refoldCatalog(ctx, tx, id)
		case events.StreamProduct:
			err = refoldProduct(ctx, tx, id)
		case events.StreamGallery:
			err = refoldGallery(ctx, tx, id)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
