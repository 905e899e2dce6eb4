package publish

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// Product pages (issue 13): a publication whose subject is a product. Its
// versions freeze the product's model and whole configuration, so a locked
// link keeps showing exactly the variants, hotspots and buy links that were
// published while the merchant keeps editing; an unlocked one follows the
// product live.

var (
	errProductNotFound = fault.New(fault.NotFound, "not_found", "Product not found.")
	errProductNotReady = fault.New(fault.Conflict, "product_not_ready",
		"This product's 3D model is not ready yet. Publish it when the build has finished.")
)

// ProductSettings are the publish step's toggles.
type ProductSettings struct {
	RequireEmail   bool
	AllowDeepLinks bool
}

// productSnapshot freezes a product of userID as a version's snapshot.
func productSnapshot(ctx context.Context, q pgdb.Querier, userID, productID string) (Snapshot, error) {
	p, ok, err := catalog.LoadProduct(ctx, q, productID)
	if err != nil {
		return Snapshot{}, err
	}
	if !ok || p.UserID != userID || p.DeletedAt != nil {
		return Snapshot{}, errProductNotFound
	}
	if p.Status != catalog.StatusReady || p.ModelKey == "" {
		return Snapshot{}, errProductNotReady
	}
	cfg := p.Config
	return Snapshot{ProductID: p.ID, Name: p.Name, ModelKey: p.ModelKey, ThumbnailKey: p.ThumbnailKey, Config: &cfg}, nil
}

// PublishProduct publishes a product behind a new unguessable link (version
// 1), or, when it already has a live one, keeps that link and applies the
// settings (created=false). Sharing follows the blueprint rules: a plan that
// can share publicly (Pro or trial).
func (s *Service) PublishProduct(ctx context.Context, userID, productID string, set ProductSettings) (Publication, bool, error) {
	// Another merchant's product is not found, whatever the caller's plan.
	if p, ok, err := catalog.LoadProduct(ctx, s.db, productID); err != nil {
		return Publication{}, false, err
	} else if !ok || p.UserID != userID || p.DeletedAt != nil {
		return Publication{}, false, errProductNotFound
	}
	if err := s.requireSharing(ctx, userID); err != nil {
		return Publication{}, false, err
	}
	var id string
	created := false
	p, err := s.withTxThenGet(ctx, userID, &id, func(tx pgx.Tx) error {
		var err error
		id, created, err = s.publishProductTx(ctx, tx, userID, productID, set)
		return err
	})
	if pgdb.IsUniqueViolation(err, "publications_live_product") {
		return s.PublishProduct(ctx, userID, productID, set) // a concurrent first publish won: apply to its link
	}
	if err != nil {
		return Publication{}, false, err
	}
	return p, created, nil
}

// publishProductTx is PublishProduct's change in the caller's transaction:
// the product's live link gets the settings, or a new link is created with
// version 1.
func (s *Service) publishProductTx(ctx context.Context, tx pgx.Tx, userID, productID string, set ProductSettings) (id string, created bool, err error) {
	now := s.now().UTC()
	settings := events.PublicationSettingsChanged{RequireEmail: set.RequireEmail, AllowDeepLinks: set.AllowDeepLinks, At: now}
	existing, err := liveByProduct(ctx, tx, productID)
	switch {
	case err == nil && existing.UserID == userID:
		id = existing.ID
		r, err := s.live(ctx, tx, userID, id)
		if err != nil {
			return "", false, err
		}
		if r.RequireEmail == set.RequireEmail && r.AllowDeepLinks == set.AllowDeepLinks {
			return id, false, nil
		}
		settings.PublicationID = id
		return id, false, s.append(ctx, tx, r, settings)
	case err == nil:
		return "", false, errProductNotFound
	case !errors.Is(err, errNoRow):
		return "", false, err
	}
	snap, err := productSnapshot(ctx, tx, userID, productID)
	if err != nil {
		return "", false, err
	}
	id, err = s.createLink(ctx, tx, events.PublicationCreated{UserID: userID, ProductID: productID}, snap,
		func(id string, at time.Time) events.Event {
			settings.PublicationID, settings.At = id, at
			return settings
		})
	return id, err == nil, err
}

// ForProduct returns the product's live publication, or nil when it has none
// (the product detail's "publication").
func (s *Service) ForProduct(ctx context.Context, userID, productID string) (*Publication, error) {
	r, err := liveByProduct(ctx, s.db, productID)
	if errors.Is(err, errNoRow) || (err == nil && r.UserID != userID) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read product publication: %w", err)
	}
	vs, err := versionsOf(ctx, s.db, r.ID)
	if err != nil {
		return nil, err
	}
	p := s.view(ctx, r, vs)
	if p.PendingEdits, err = s.pendingEdits(ctx, s.db, r, vs); err != nil {
		return nil, err
	}
	return &p, nil
}
