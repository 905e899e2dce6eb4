package catalog

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/fault"
)

// MaxMoveProducts bounds one "Add products" pick (Pro allows 50 products).
const MaxMoveProducts = 100

// Moved is one product that an "Add products" pick took from another
// catalog: a product belongs to exactly one catalog, so adding it here takes
// it out of where it was, and the merchant is told so.
type Moved struct {
	ProductID       string
	Name            string
	FromCatalogID   string
	FromCatalogName string
}

// MoveProducts moves the merchant's products into catalogID in one
// transaction (merchant walk 4, P13: "Add products" on a catalog page).
// Products already there are left alone; any product that is not the
// merchant's live product refuses the whole pick.
func (s *Service) MoveProducts(ctx context.Context, userID, catalogID string, productIDs []string) (Catalog, []Moved, error) {
	if len(productIDs) == 0 {
		return Catalog{}, nil, fault.New(fault.Invalid, "no_products", "Choose at least one product to add.")
	}
	if len(productIDs) > MaxMoveProducts {
		return Catalog{}, nil, fault.Invalidf("too_many_products", "Add at most %d products at a time.", MaxMoveProducts)
	}
	moved := []Moved{}
	err := s.write(ctx, userID, func(tx pgx.Tx) error {
		moved = moved[:0]
		if _, err := getCatalog(ctx, tx, userID, catalogID); err != nil {
			return err
		}
		cs, err := listCatalogs(ctx, tx, userID)
		if err != nil {
			return err
		}
		names := map[string]string{}
		for _, c := range cs {
			names[c.ID] = c.Name
		}
		seen := map[string]bool{}
		at := s.at()
		for _, id := range productIDs {
			if seen[id] {
				continue
			}
			seen[id] = true
			p, err := getProduct(ctx, tx, userID, id)
			if err != nil {
				return err
			}
			if p.CatalogID == catalogID {
				continue
			}
			if _, err := s.store.Append(ctx, tx, productStream(id), eventstore.AnyVersion,
				events.ProductMoved{ProductID: id, CatalogID: catalogID, FromCatalogID: p.CatalogID, At: at}); err != nil {
				return err
			}
			moved = append(moved, Moved{ProductID: id, Name: p.Name, FromCatalogID: p.CatalogID, FromCatalogName: names[p.CatalogID]})
		}
		return nil
	})
	if err != nil {
		return Catalog{}, nil, err
	}
	c, err := s.Catalog(ctx, userID, catalogID)
	return c, moved, err
}
