package catalog

import (
	"context"
	"fmt"
	"maps"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/fault"
)

// Configuration writes (issue 13). Each runs under the merchant's catalogue
// lock: it reads the folded configuration, validates against it (ids, counts,
// the variant rule) and appends one event; the inline projection re-folds
// the row in the same transaction.

// VariantInput is POST /products/{id}/variants and, with nil = unchanged,
// PATCH /products/{id}/variants/{variantId}. Price is tri-state on PATCH:
// PriceSet false = unchanged, PriceSet with nil Price = cleared.
type VariantInput struct {
	Name, Material, SKU, Currency *string
	Parts                         *map[string]string
	Price                         *float64
	PriceSet                      bool
}

func (in VariantInput) applyTo(v Variant) Variant {
	if in.Name != nil {
		v.Name = *in.Name
	}
	if in.Material != nil {
		v.Material = *in.Material
	}
	if in.Parts != nil {
		v.Parts = map[string]string{}
		maps.Copy(v.Parts, *in.Parts)
	}
	if in.SKU != nil {
		v.SKU = *in.SKU
	}
	if in.PriceSet {
		v.Price = in.Price
	}
	if in.Currency != nil {
		v.Currency = *in.Currency
	}
	return v
}

// configure runs fn on the owner's live product under the lock and appends
// what it returns to the product stream.
func (s *Service) configure(ctx context.Context, userID, productID string, fn func(p Product) (events.Event, error)) (Product, error) {
	return s.configureTx(ctx, userID, productID, func(_ pgx.Tx, p Product) (events.Event, error) { return fn(p) })
}

// configureTx is configure for checks that read in the transaction (plans).
func (s *Service) configureTx(ctx context.Context, userID, productID string, fn func(tx pgx.Tx, p Product) (events.Event, error)) (Product, error) {
	var out Product
	err := s.write(ctx, userID, func(tx pgx.Tx) error {
		p, err := getProductConfig(ctx, tx, userID, productID)
		if err != nil {
			return err
		}
		ev, err := fn(tx, p)
		if err != nil {
			return err
		}
		if ev != nil {
			if _, err = s.store.Append(ctx, tx, productStream(productID), eventstore.AnyVersion, ev); err != nil {
				return err
			}
		}
		out, err = getProductConfig(ctx, tx, userID, productID) // before the COMMIT: see writeProduct
		return err
	})
	if err != nil {
		return Product{}, err
	}
	return out, nil
}

// ProductConfig returns the owner's product with its configuration.
func (s *Service) ProductConfig(ctx context.Context, userID, id string) (Product, error) {
	return getProductConfig(ctx, s.db, userID, id)
}

// AddVariant adds "Variant N" (or the given name); the material defaults to
// Original.
func (s *Service) AddVariant(ctx context.Context, userID, productID string, in VariantInput) (Product, string, error) {
	var id string
	p, err := s.configureTx(ctx, userID, productID, func(tx pgx.Tx, p Product) (events.Event, error) {
		c := p.Config
		if err := s.checkParts(ctx, tx, userID, in); err != nil {
			return nil, err
		}
		if len(c.Variants) >= MaxVariants {
			return nil, fault.New(fault.Invalid, "too_many_variants", fmt.Sprintf("A product can have at most %d variants.", MaxVariants))
		}
		id = fmt.Sprintf("v%d", c.NextVariant)
		v, err := CheckVariant(in.applyTo(Variant{ID: id, Name: fmt.Sprintf("Variant %d", c.NextVariant), Material: MaterialOriginal,
			Parts: map[string]string{}}))
		if err != nil {
			return nil, err
		}
		return events.ProductVariantAdded{ProductID: p.ID, VariantID: id, VariantSpec: v.spec(), At: s.at()}, nil
	})
	return p, id, err
}

// ChangeVariant applies a patch to a variant (the Default one included).
func (s *Service) ChangeVariant(ctx context.Context, userID, productID, variantID string, in VariantInput) (Product, error) {
	return s.configureTx(ctx, userID, productID, func(tx pgx.Tx, p Product) (events.Event, error) {
		cur, ok := p.Config.Variant(variantID)
		if !ok {
			return nil, ErrVariantNotFound
		}
		if err := s.checkParts(ctx, tx, userID, in); err != nil {
			return nil, err
		}
		v, err := checkVariant(in.applyTo(cur), cur.Currency)
		if err != nil {
			return nil, err
		}
		return events.ProductVariantChanged{ProductID: p.ID, VariantID: variantID, VariantSpec: v.spec(), At: s.at()}, nil
	})
}

// checkParts refuses per-part materials without the part-type option
// (Pro; spec §6). Parts set while a trial ran stay readable afterwards.
func (s *Service) checkParts(ctx context.Context, tx pgx.Tx, userID string, in VariantInput) error {
	if in.Parts == nil || len(*in.Parts) == 0 {
		return nil
	}
	ok, err := s.plans.PartTypeOption(ctx, tx, userID)
	if err != nil {
		return err
	}
	if !ok {
		return ErrPartTypesPro
	}
	return nil
}

// RemoveVariant deletes a variant and its own links; Default cannot go.
func (s *Service) RemoveVariant(ctx context.Context, userID, productID, variantID string) (Product, error) {
	return s.configure(ctx, userID, productID, func(p Product) (events.Event, error) {
		if _, ok := p.Config.Variant(variantID); !ok {
			return nil, ErrVariantNotFound
		}
		if variantID == DefaultVariantID {
			return nil, ErrDefaultVariant
		}
		return events.ProductVariantRemoved{ProductID: p.ID, VariantID: variantID, At: s.at()}, nil
	})
}

// HotspotInput is POST /products/{id}/hotspots and (nil = unchanged) PATCH.
type HotspotInput struct {
	Position, Normal *[3]float64
	X, Y             *float64
	Title, Text      *string
}

func (in HotspotInput) applyTo(h Hotspot) Hotspot {
	if in.Position != nil {
		h.Position = *in.Position
	}
	if in.Normal != nil {
		h.Normal = *in.Normal
	}
	if in.X != nil {
		h.X = *in.X
	}
	if in.Y != nil {
		h.Y = *in.Y
	}
	if in.Title != nil {
		h.Title = *in.Title
	}
	if in.Text != nil {
		h.Text = *in.Text
	}
	return h
}

// ErrHotspotPointRequired: a new hotspot needs its point and normal.
var ErrHotspotPointRequired = fault.New(fault.Invalid, "hotspot_point_required",
	"Place the hotspot on the model: position [x, y, z] and normal [x, y, z] are required.")

// PlaceHotspot pins a hotspot; title defaults to "Point N", x/y to 0.5.
func (s *Service) PlaceHotspot(ctx context.Context, userID, productID string, in HotspotInput) (Product, string, error) {
	var id string
	p, err := s.configure(ctx, userID, productID, func(p Product) (events.Event, error) {
		c := p.Config
		if len(c.Hotspots) >= MaxHotspots {
			return nil, fault.New(fault.Invalid, "too_many_hotspots", fmt.Sprintf("A product can have at most %d hotspots.", MaxHotspots))
		}
		if in.Position == nil || in.Normal == nil {
			return nil, ErrHotspotPointRequired
		}
		id = fmt.Sprintf("h%d", c.NextHotspot)
		h, err := CheckHotspot(in.applyTo(Hotspot{ID: id, X: 0.5, Y: 0.5, Title: fmt.Sprintf("Point %d", c.NextHotspot)}))
		if err != nil {
			return nil, err
		}
		return events.ProductHotspotPlaced{ProductID: p.ID, HotspotID: id, HotspotSpec: h.spec(), At: s.at()}, nil
	})
	return p, id, err
}

// MoveHotspot moves a hotspot and/or edits its title and text.
func (s *Service) MoveHotspot(ctx context.Context, userID, productID, hotspotID string, in HotspotInput) (Product, error) {
	return s.configure(ctx, userID, productID, func(p Product) (events.Event, error) {
		cur, ok := p.Config.Hotspot(hotspotID)
		if !ok {
			return nil, ErrHotspotNotFound
		}
		h, err := CheckHotspot(in.applyTo(cur))
		if err != nil {
			return nil, err
		}
		return events.ProductHotspotMoved{ProductID: p.ID, HotspotID: hotspotID, HotspotSpec: h.spec(), At: s.at()}, nil
	})
}

// RemoveHotspot deletes a hotspot.
func (s *Service) RemoveHotspot(ctx context.Context, userID, productID, hotspotID string) (Product, error) {
	return s.configure(ctx, userID, productID, func(p Product) (events.Event, error) {
		if _, ok := p.Config.Hotspot(hotspotID); !ok {
			return nil, ErrHotspotNotFound
		}
		return events.ProductHotspotRemoved{ProductID: p.ID, HotspotID: hotspotID, At: s.at()}, nil
	})
}

// AddLink adds a purchase link for the product or one of its variants.
func (s *Service) AddLink(ctx context.Context, userID, productID, rawURL, variantID string) (Product, string, error) {
	var id string
	p, err := s.configure(ctx, userID, productID, func(p Product) (events.Event, error) {
		c := p.Config
		if len(c.Links) >= MaxLinks {
			return nil, fault.New(fault.Invalid, "too_many_links", fmt.Sprintf("A product can have at most %d links.", MaxLinks))
		}
		u, err := CleanLinkURL(rawURL)
		if err != nil {
			return nil, err
		}
		if variantID != "" {
			if _, ok := c.Variant(variantID); !ok {
				return nil, ErrVariantNotFound
			}
		}
		id = fmt.Sprintf("l%d", c.NextLink)
		return events.ProductLinkAdded{ProductID: p.ID, LinkID: id, URL: u, VariantID: variantID, At: s.at()}, nil
	})
	return p, id, err
}

// RemoveLink deletes a purchase link.
func (s *Service) RemoveLink(ctx context.Context, userID, productID, linkID string) (Product, error) {
	return s.configure(ctx, userID, productID, func(p Product) (events.Event, error) {
		if !p.Config.HasLink(linkID) {
			return nil, ErrLinkNotFound
		}
		return events.ProductLinkRemoved{ProductID: p.ID, LinkID: linkID, At: s.at()}, nil
	})
}

// SetPresets replaces the viewer presets; nothing is appended when they
// are unchanged.
func (s *Service) SetPresets(ctx context.Context, userID, productID string, in Presets) (Product, error) {
	return s.configure(ctx, userID, productID, func(p Product) (events.Event, error) {
		v, err := CheckPresets(in)
		if err == nil {
			err = CheckDefaultVariant(p.Config, v.DefaultVariantID)
		}
		if err != nil || v == p.Config.Presets {
			return nil, err
		}
		return PresetsChanged(p.ID, v, s.at()), nil
	})
}
