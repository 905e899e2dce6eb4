package events

import "time"

// Product configuration events (issue 13): the variants, hotspots, purchase
// links and viewer presets a merchant sets in the configurator. They live on
// the product-{id} stream so a product's configuration replays with it.
// Ids inside a product are short and sequential (v2, h1, l1…), chosen by the
// service from the folded state under the merchant's lock and never reused.
// Every "changed" event carries the whole new value, so folding needs no
// merge rules.

// VariantSpec is a whole variant as a variant event carries it (embedded,
// so its fields sit at the event's top level in JSON).
type VariantSpec struct {
	Name     string            `json:"name" erase:"text"`
	Material string            `json:"material" erase:"keep"`
	Parts    map[string]string `json:"parts,omitempty" erase:"text"` // part name → material
	SKU      string            `json:"sku,omitempty" erase:"text"`
	Price    *float64          `json:"price,omitempty"`
	Currency string            `json:"currency,omitempty" erase:"keep"`
}

// HotspotSpec is a whole hotspot as a hotspot event carries it (embedded).
type HotspotSpec struct {
	Position [3]float64 `json:"position"`
	Normal   [3]float64 `json:"normal"`
	X        float64    `json:"x"`
	Y        float64    `json:"y"`
	Title    string     `json:"title" erase:"text"`
	Text     string     `json:"text" erase:"text"`
}

// ProductVariantAdded adds a variant (the Default variant v1 exists from
// ProductCreated on and is never added).
type ProductVariantAdded struct {
	ProductID string `json:"productId"`
	VariantID string `json:"variantId"`
	VariantSpec
	At time.Time `json:"at"`
}

// EventType implements Event.
func (ProductVariantAdded) EventType() string { return "product.variant_added.v1" }

// ProductVariantChanged replaces a variant's name, materials, SKU and price.
type ProductVariantChanged struct {
	ProductID string `json:"productId"`
	VariantID string `json:"variantId"`
	VariantSpec
	At time.Time `json:"at"`
}

// EventType implements Event.
func (ProductVariantChanged) EventType() string { return "product.variant_changed.v1" }

// ProductVariantRemoved removes a variant (never v1) and its own links, so
// shoppers fall back to the product's links.
type ProductVariantRemoved struct {
	ProductID string    `json:"productId"`
	VariantID string    `json:"variantId"`
	At        time.Time `json:"at"`
}

// EventType implements Event.
func (ProductVariantRemoved) EventType() string { return "product.variant_removed.v1" }

// ProductHotspotPlaced pins a hotspot on the model: a 3D point on its
// surface and the surface normal there, plus the spec's 0–1 x/y.
type ProductHotspotPlaced struct {
	ProductID string `json:"productId"`
	HotspotID string `json:"hotspotId"`
	HotspotSpec
	At time.Time `json:"at"`
}

// EventType implements Event.
func (ProductHotspotPlaced) EventType() string { return "product.hotspot_placed.v1" }

// ProductHotspotMoved moves a hotspot (dragged to another point) and/or
// replaces its title and text: it carries the whole new hotspot.
type ProductHotspotMoved struct {
	ProductID string `json:"productId"`
	HotspotID string `json:"hotspotId"`
	HotspotSpec
	At time.Time `json:"at"`
}

// EventType implements Event.
func (ProductHotspotMoved) EventType() string { return "product.hotspot_moved.v1" }

// ProductHotspotRemoved deletes a hotspot.
type ProductHotspotRemoved struct {
	ProductID string    `json:"productId"`
	HotspotID string    `json:"hotspotId"`
	At        time.Time `json:"at"`
}

// EventType implements Event.
func (ProductHotspotRemoved) EventType() string { return "product.hotspot_removed.v1" }

// ProductLinkAdded adds a purchase link, for the whole product (VariantID
// empty) or for one variant. URL is stored normalised (https:// prepended
// when typed without a scheme); its store platform is derived when read.
type ProductLinkAdded struct {
	ProductID string    `json:"productId"`
	LinkID    string    `json:"linkId"`
	URL       string    `json:"url" erase:"text"`
	VariantID string    `json:"variantId,omitempty"`
	At        time.Time `json:"at"`
}

// EventType implements Event.
func (ProductLinkAdded) EventType() string { return "product.link_added.v1" }

// ProductLinkRemoved deletes a purchase link.
type ProductLinkRemoved struct {
	ProductID string    `json:"productId"`
	LinkID    string    `json:"linkId"`
	At        time.Time `json:"at"`
}

// EventType implements Event.
func (ProductLinkRemoved) EventType() string { return "product.link_removed.v1" }

// ProductPresetsChanged replaces the viewer presets the public page uses.
type ProductPresetsChanged struct {
	ProductID       string `json:"productId"`
	Lighting        string `json:"lighting" erase:"keep"`
	Background      string `json:"background" erase:"keep"`
	BackgroundColor string `json:"backgroundColor" erase:"keep"`
	CameraOrbit     string `json:"cameraOrbit" erase:"keep"`
	Autospin        bool   `json:"autospin"`
	// Exposure, Poster and DefaultVariantID came with issue 52; an event
	// stored before says nothing of them (0, "", ""), which reads as the
	// defaults: exposure 1, the model's picture as poster, the first variant.
	Exposure         float64   `json:"exposure,omitempty"`
	Poster           string    `json:"poster,omitempty" erase:"keep"`
	DefaultVariantID string    `json:"defaultVariantId,omitempty"`
	At               time.Time `json:"at"`
}

// EventType implements Event.
func (ProductPresetsChanged) EventType() string { return "product.presets_changed.v1" }

func productConfigEvents() []Event {
	return []Event{ProductVariantAdded{}, ProductVariantChanged{}, ProductVariantRemoved{}, ProductHotspotPlaced{},
		ProductHotspotMoved{}, ProductHotspotRemoved{}, ProductLinkAdded{}, ProductLinkRemoved{}, ProductPresetsChanged{}}
}
