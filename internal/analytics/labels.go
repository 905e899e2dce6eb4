package analytics

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Shopper events carry ids (a hotspot's "h1", a variant's "v2"); the
// merchant reads titles and names. The Reader resolves them here, on the
// server, from the products' configuration as it stands now, so every client
// shows the same words. An id no product of the owner has any more (the
// hotspot or variant was deleted since) reads as DeletedHotspot or
// DeletedVariant rather than as an id.
const (
	DeletedHotspot = "Deleted hotspot"
	DeletedVariant = "Deleted variant"
)

// productLabels is what labelling needs of one product.
type productLabels struct {
	name     string
	deleted  bool
	variants map[string]string // id → name
	hotspots map[string]string // id → title
}

// loadLabels reads the names of userID's products (deleted ones too: their
// shoppers are still in the range) with their variants' names and hotspots'
// titles.
func (r *Reader) loadLabels(ctx context.Context, userID string) (map[string]productLabels, error) {
	rows, err := r.DB.Query(ctx, `SELECT id, name, deleted_at IS NOT NULL,
		COALESCE(config->'variants', '[]'::jsonb), COALESCE(config->'hotspots', '[]'::jsonb)
		FROM products WHERE user_id = $1`, userID)
	if err != nil {
		return nil, fmt.Errorf("read analytics labels: %w", err)
	}
	defer rows.Close()
	out := map[string]productLabels{}
	for rows.Next() {
		var id string
		var pl productLabels
		var vj, hj []byte
		if err := rows.Scan(&id, &pl.name, &pl.deleted, &vj, &hj); err != nil {
			return nil, fmt.Errorf("read analytics labels: %w", err)
		}
		var vs []struct{ ID, Name string }
		var hs []struct{ ID, Title string }
		// A configuration that does not parse labels nothing: the fallbacks apply.
		_ = json.Unmarshal(vj, &vs)
		_ = json.Unmarshal(hj, &hs)
		pl.variants, pl.hotspots = map[string]string{}, map[string]string{}
		for _, v := range vs {
			pl.variants[v.ID] = strings.TrimSpace(v.Name)
		}
		for _, h := range hs {
			pl.hotspots[h.ID] = strings.TrimSpace(h.Title)
		}
		out[id] = pl
	}
	return out, rows.Err()
}

// label fills the payload's labels: the best variant's "name · product" and
// each Top Features hotspot's title. Hotspot ids are numbered per product,
// so an id is looked up in the filtered product (sku) when there is one,
// else in every product of the owner; different titles under one id are all
// named.
func (r *Reader) label(ctx context.Context, userID, sku string, p *Payload) error {
	v := p.KPIs.BestVariantUplift
	hasHotspot := slices.ContainsFunc(p.Charts.Snapshot.TopFeaturesAdding, func(f FeatureStat) bool {
		return strings.HasPrefix(f.Feature, "hotspot:")
	})
	if v == nil && !hasHotspot {
		return nil
	}
	products, err := r.loadLabels(ctx, userID)
	if err != nil {
		return err
	}
	if v != nil {
		v.Label = variantLabel(products, v.ProductID, v.Option)
	}
	for i, f := range p.Charts.Snapshot.TopFeaturesAdding {
		if id, ok := strings.CutPrefix(f.Feature, "hotspot:"); ok {
			p.Charts.Snapshot.TopFeaturesAdding[i].Label = hotspotLabel(products, sku, id)
		}
	}
	return nil
}

func variantLabel(products map[string]productLabels, productID, variantID string) string {
	pl, ok := products[productID]
	if !ok {
		return DeletedVariant
	}
	product := pl.name
	if pl.deleted {
		product += " (deleted)"
	}
	name, ok := pl.variants[variantID]
	switch {
	case !ok:
		return DeletedVariant + " · " + product
	case name == "":
		return "Unnamed variant · " + product
	}
	return name + " · " + product
}

func hotspotLabel(products map[string]productLabels, sku, id string) string {
	var titles []string
	add := func(pl productLabels) {
		if t, ok := pl.hotspots[id]; ok {
			if t == "" {
				t = "Untitled hotspot"
			}
			if !slices.Contains(titles, t) {
				titles = append(titles, t)
			}
		}
	}
	if sku != "" {
		add(products[sku])
	} else {
		for _, pl := range products {
			if !pl.deleted {
				add(pl)
			}
		}
	}
	if len(titles) == 0 {
		return DeletedHotspot
	}
	slices.Sort(titles)
	if len(titles) > 3 {
		titles = append(titles[:3], fmt.Sprintf("%d more", len(titles)-3))
	}
	return "Hotspot: " + strings.Join(titles, " / ")
}
