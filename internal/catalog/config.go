package catalog

import (
	"encoding/json"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/currency"
	"github.com/photo3d/photo3d/internal/fault"
)

// A product's configuration (issue 13, spec §3): variants, hotspots,
// purchase links and viewer presets. It is folded from the product stream
// with the rest of the product and stored as one JSON column of the products
// read model (only the detail reads it, the list never does).

// DefaultVariantID is the Default variant every product has (spec §3).
const (
	DefaultVariantID   = "v1"
	DefaultVariantName = "Default"
	MaterialOriginal   = "original"
)

// Materials a variant (or one of its parts) can use, in menu order.
var Materials = []string{"matte-black", "snow-white", "leather-tan", "fabric-grey", MaterialOriginal}

// Presets offered by the configurator (spec §2 Product detail).
var (
	Lightings   = []string{"Studio", "Outdoor", "Dramatic", "Neutral"}
	Backgrounds = []string{"Transparent", "Solid Color", "Gradient"}
)

// Limits on configuration input.
const (
	MaxVariants       = 20
	MaxVariantParts   = 12
	MaxPartNameLength = 40
	MaxSKULength      = 64
	MaxPrice          = 1e9
	MaxHotspots       = 50
	MaxHotspotTitle   = 100
	MaxHotspotText    = 500
	MaxLinks          = 20
	MaxCoordinate     = 1e6
	// DefaultCameraOrbit frames a model with air around it (issue 29 item
	// 19): model-viewer's angles a little further out than its 105 %, the
	// merchant app's DEFAULT_CAMERA_ORBIT (web/src/components/model-viewer/
	// scene-graph.ts). Public pages show it for a product whose merchant chose
	// no camera (PublicCameraOrbit).
	DefaultCameraOrbit = "0deg 75deg 118%"
	// LegacyDefaultCameraOrbit is the default products were made with before
	// (model-viewer's own): stored, it means "no camera chosen", not a choice.
	LegacyDefaultCameraOrbit = "0deg 75deg 105%"
	// MaxCameraOrbit is how far out a viewer's camera may go. model-viewer's
	// default stops at its own 105 % framing distance, which clamped
	// DefaultCameraOrbit's 118 % back to 105 %; its percentage is of that
	// distance, so 200 % allows 210 % (MAX_CAMERA_ORBIT in the app).
	MaxCameraOrbit = "auto auto 200%"
)

// PublicCameraOrbit is the camera-orbit a public page (share page, embed)
// opens a product with: the merchant's saved orbit as it is, and the framed
// default where none was chosen (empty, or the old default every product was
// made with until the default moved out to DefaultCameraOrbit).
func PublicCameraOrbit(stored string) string {
	if s := strings.Join(strings.Fields(stored), " "); s != "" && s != LegacyDefaultCameraOrbit {
		return s
	}
	return DefaultCameraOrbit
}

// Variant is one sellable version of the product. The strings of the
// configuration types carry erase tags (events/erase.go) because a
// publication snapshot stores them in the log: the account erasure blanks
// what the merchant typed there by these tags.
type Variant struct {
	ID       string            `json:"id"`
	Name     string            `json:"name" erase:"text"`
	Material string            `json:"material" erase:"keep"`
	Parts    map[string]string `json:"parts" erase:"text"`
	SKU      string            `json:"sku" erase:"text"`
	Price    *float64          `json:"price"`
	Currency string            `json:"currency" erase:"keep"`
}

// Hotspot is an annotation pinned on the model.
type Hotspot struct {
	ID       string     `json:"id"`
	Position [3]float64 `json:"position"`
	Normal   [3]float64 `json:"normal"`
	X        float64    `json:"x"`
	Y        float64    `json:"y"`
	Title    string     `json:"title" erase:"text"`
	Text     string     `json:"text" erase:"text"`
}

// Link is a purchase link, product-wide (VariantID "") or for one variant.
type Link struct {
	ID        string `json:"id"`
	URL       string `json:"url" erase:"text"`
	VariantID string `json:"variantId"`
}

// Presets are the viewer settings the public page uses.
type Presets struct {
	Lighting        string `json:"lighting" erase:"keep"`
	Background      string `json:"background" erase:"keep"`
	BackgroundColor string `json:"backgroundColor" erase:"keep"`
	CameraOrbit     string `json:"cameraOrbit" erase:"keep"`
	Autospin        bool   `json:"autospin"`
	// Exposure is model-viewer's exposure (0.25–2; 1 is neutral).
	Exposure float64 `json:"exposure"`
	// Poster is what the page shows while the model loads: "model" (the
	// model's picture) or "none" (the loading bar only).
	Poster string `json:"poster" erase:"keep"`
	// DefaultVariantID is the variant the page opens on ("": the first).
	DefaultVariantID string `json:"defaultVariantId"`
}

// Posters a page can show while its model loads.
var Posters = []string{PosterModel, PosterNone}

// Poster choices.
const (
	PosterModel = "model"
	PosterNone  = "none"
)

// Exposure bounds (model-viewer takes any non-negative number; past these a
// product is a silhouette or a white blur).
const (
	MinExposure = 0.25
	MaxExposure = 2.0
)

// DefaultPresets: studio light, transparent background, spin on (spec §2),
// neutral exposure, the model's picture while loading, the first variant.
func DefaultPresets() Presets {
	return Presets{Lighting: "Studio", Background: "Transparent", BackgroundColor: "#FFFFFF",
		CameraOrbit: DefaultCameraOrbit, Autospin: true, Exposure: 1, Poster: PosterModel}
}

// Normalized fills what a configuration stored before issue 52 left out
// (exposure 0, poster "") with the defaults it meant.
func (p Presets) Normalized() Presets {
	if p.Exposure == 0 {
		p.Exposure = 1
	}
	if p.Poster == "" {
		p.Poster = PosterModel
	}
	return p
}

// UnmarshalJSON reads presets stored before issue 52 (read models,
// publication snapshots) with the defaults they meant.
func (p *Presets) UnmarshalJSON(b []byte) error {
	type plain Presets
	var v plain
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*p = Presets(v).Normalized()
	return nil
}

// PresetsChanged is the event recording p as a product's presets.
func PresetsChanged(productID string, p Presets, at time.Time) events.ProductPresetsChanged {
	return events.ProductPresetsChanged{ProductID: productID, Lighting: p.Lighting, Background: p.Background,
		BackgroundColor: p.BackgroundColor, CameraOrbit: p.CameraOrbit, Autospin: p.Autospin, Exposure: p.Exposure,
		Poster: p.Poster, DefaultVariantID: p.DefaultVariantID, At: at}
}

// Config is a product's configuration. The counters hand out the next ids,
// so an id is never reused after a delete (a shopper's deep link to a
// deleted variant cannot silently open another one).
type Config struct {
	Variants    []Variant `json:"variants"`
	Hotspots    []Hotspot `json:"hotspots"`
	Links       []Link    `json:"links"`
	Presets     Presets   `json:"presets"`
	NextVariant int       `json:"nextVariant"`
	NextHotspot int       `json:"nextHotspot"`
	NextLink    int       `json:"nextLink"`
}

// NewConfig is the configuration of a new product: the Default variant only.
func NewConfig() Config {
	return Config{
		Variants: []Variant{{ID: DefaultVariantID, Name: DefaultVariantName, Material: MaterialOriginal, Parts: map[string]string{}}},
		Hotspots: []Hotspot{}, Links: []Link{}, Presets: DefaultPresets(), NextVariant: 2, NextHotspot: 1, NextLink: 1,
	}
}

// Variant returns the variant with the id.
func (c Config) Variant(id string) (Variant, bool) {
	i := slices.IndexFunc(c.Variants, func(v Variant) bool { return v.ID == id })
	if i < 0 {
		return Variant{}, false
	}
	return c.Variants[i], true
}

// Hotspot returns the hotspot with the id.
func (c Config) Hotspot(id string) (Hotspot, bool) {
	i := slices.IndexFunc(c.Hotspots, func(h Hotspot) bool { return h.ID == id })
	if i < 0 {
		return Hotspot{}, false
	}
	return c.Hotspots[i], true
}

// HasLink reports whether the link exists.
func (c Config) HasLink(id string) bool {
	return slices.ContainsFunc(c.Links, func(l Link) bool { return l.ID == id })
}

// apply folds one configuration event and returns its time; ok is false
// for other events.
func (c *Config) apply(e events.Event) (at time.Time, ok bool) {
	switch ev := e.(type) {
	case events.ProductVariantAdded:
		at = ev.At
		c.Variants = append(c.Variants, variantFrom(ev.VariantID, ev.VariantSpec))
		c.NextVariant = max(c.NextVariant, idNumber(ev.VariantID)+1)
	case events.ProductVariantChanged:
		at = ev.At
		for i := range c.Variants {
			if c.Variants[i].ID == ev.VariantID {
				c.Variants[i] = variantFrom(ev.VariantID, ev.VariantSpec)
			}
		}
	case events.ProductVariantRemoved:
		at = ev.At
		c.Variants = slices.DeleteFunc(c.Variants, func(v Variant) bool { return v.ID == ev.VariantID })
		c.Links = slices.DeleteFunc(c.Links, func(l Link) bool { return l.VariantID == ev.VariantID })
		if c.Presets.DefaultVariantID == ev.VariantID {
			c.Presets.DefaultVariantID = "" // the page opens on the first variant again
		}
	case events.ProductHotspotPlaced:
		at = ev.At
		c.Hotspots = append(c.Hotspots, hotspotFrom(ev.HotspotID, ev.HotspotSpec))
		c.NextHotspot = max(c.NextHotspot, idNumber(ev.HotspotID)+1)
	case events.ProductHotspotMoved:
		at = ev.At
		for i := range c.Hotspots {
			if c.Hotspots[i].ID == ev.HotspotID {
				c.Hotspots[i] = hotspotFrom(ev.HotspotID, ev.HotspotSpec)
			}
		}
	case events.ProductHotspotRemoved:
		at = ev.At
		c.Hotspots = slices.DeleteFunc(c.Hotspots, func(h Hotspot) bool { return h.ID == ev.HotspotID })
	case events.ProductLinkAdded:
		at = ev.At
		c.Links = append(c.Links, Link{ID: ev.LinkID, URL: ev.URL, VariantID: ev.VariantID})
		c.NextLink = max(c.NextLink, idNumber(ev.LinkID)+1)
	case events.ProductLinkRemoved:
		at = ev.At
		c.Links = slices.DeleteFunc(c.Links, func(l Link) bool { return l.ID == ev.LinkID })
	case events.ProductPresetsChanged:
		at = ev.At
		c.Presets = Presets{Lighting: ev.Lighting, Background: ev.Background, BackgroundColor: ev.BackgroundColor,
			CameraOrbit: ev.CameraOrbit, Autospin: ev.Autospin, Exposure: ev.Exposure, Poster: ev.Poster,
			DefaultVariantID: ev.DefaultVariantID}.Normalized()
	default:
		return time.Time{}, false
	}
	return at, true
}

func variantFrom(id string, v events.VariantSpec) Variant {
	parts := map[string]string{}
	maps.Copy(parts, v.Parts)
	return Variant{ID: id, Name: v.Name, Material: v.Material, Parts: parts, SKU: v.SKU, Price: v.Price, Currency: v.Currency}
}

// spec is the variant as its events carry it.
func (v Variant) spec() events.VariantSpec {
	return events.VariantSpec{Name: v.Name, Material: v.Material, Parts: v.Parts, SKU: v.SKU, Price: v.Price, Currency: v.Currency}
}

func hotspotFrom(id string, h events.HotspotSpec) Hotspot {
	return Hotspot{ID: id, Position: h.Position, Normal: h.Normal, X: h.X, Y: h.Y, Title: h.Title, Text: h.Text}
}

// spec is the hotspot as its events carry it.
func (h Hotspot) spec() events.HotspotSpec {
	return events.HotspotSpec{Position: h.Position, Normal: h.Normal, X: h.X, Y: h.Y, Title: h.Title, Text: h.Text}
}

// idNumber reads N from "vN"/"hN"/"lN" (0 when it is not such an id).
func idNumber(id string) int {
	if len(id) < 2 {
		return 0
	}
	n, err := strconv.Atoi(id[1:])
	if err != nil {
		return 0
	}
	return n
}

// --- validation (pure) ------------------------------------------------------

// PartTypesProMessage is the spec's text (§6) for per-part materials on Free.
const PartTypesProMessage = "Part type options are available on Pro. Upgrade your plan to enable part-specific configuration."

// User-facing configuration failures.
var (
	ErrVariantNotFound       = fault.NotFoundf("Variant not found.")
	ErrHotspotNotFound       = fault.NotFoundf("Hotspot not found.")
	ErrLinkNotFound          = fault.NotFoundf("Link not found.")
	ErrPartTypesPro          = fault.New(fault.Forbidden, "part_types_pro", PartTypesProMessage)
	ErrDefaultVariant        = fault.New(fault.Conflict, "default_variant", "The Default variant cannot be deleted.")
	ErrLeatherExcludesFabric = fault.Invalidf("leather_excludes_fabric", "Leather excludes Fabric: a variant cannot combine leather-tan and fabric-grey.")
)

// CheckMaterials validates a variant's material and per-part materials and
// applies the rule "Leather excludes Fabric" (spec §2): one variant cannot
// use both leather-tan and fabric-grey anywhere.
func CheckMaterials(material string, parts map[string]string) error {
	if !slices.Contains(Materials, material) {
		return fault.Invalidf("invalid_material", "Choose a material: %s.", strings.Join(Materials, ", "))
	}
	if len(parts) > MaxVariantParts {
		return fault.Invalidf("too_many_parts", "A variant can set at most %d parts.", MaxVariantParts)
	}
	used := map[string]bool{material: true}
	for name, m := range parts {
		if strings.TrimSpace(name) == "" || name != strings.TrimSpace(name) || utf8.RuneCountInString(name) > MaxPartNameLength {
			return fault.Invalidf("invalid_part", "Part names must be 1 to %d characters without surrounding spaces.", MaxPartNameLength)
		}
		if !slices.Contains(Materials, m) {
			return fault.Invalidf("invalid_material", "Choose a material for %s: %s.", name, strings.Join(Materials, ", "))
		}
		used[m] = true
	}
	if used["leather-tan"] && used["fabric-grey"] {
		return ErrLeatherExcludesFabric
	}
	return nil
}

// legacyCurrency is what prices were checked against before the supported
// list (internal/currency): a variant that already has such a code keeps it.
var legacyCurrency = regexp.MustCompile(`^[A-Z]{3}$`)

// CheckVariant validates a whole variant (name, materials, SKU, price); a
// price's currency must be on the supported list.
func CheckVariant(v Variant) (Variant, error) { return checkVariant(v, "") }

// checkVariant is CheckVariant that also accepts kept, the currency the
// variant had before the change: existing prices keep their own currency.
func checkVariant(v Variant, kept string) (Variant, error) {
	v.Name = strings.TrimSpace(v.Name)
	if v.Name == "" {
		return v, fault.Invalidf("variant_name_required", "Please enter a variant name.")
	}
	if utf8.RuneCountInString(v.Name) > MaxNameLength {
		return v, fault.Invalidf("variant_name_too_long", "Variant names can be at most %d characters.", MaxNameLength)
	}
	if err := CheckMaterials(v.Material, v.Parts); err != nil {
		return v, err
	}
	v.SKU = strings.TrimSpace(v.SKU)
	if utf8.RuneCountInString(v.SKU) > MaxSKULength {
		return v, fault.Invalidf("sku_too_long", "SKUs can be at most %d characters.", MaxSKULength)
	}
	if v.Price == nil {
		v.Currency = ""
		return v, nil
	}
	if math.IsNaN(*v.Price) || *v.Price < 0 || *v.Price > MaxPrice {
		return v, fault.Invalidf("invalid_price", "Enter a price of 0 or more (at most 1,000,000,000).")
	}
	if kept != "" && v.Currency == kept && legacyCurrency.MatchString(kept) {
		return v, nil
	}
	c, err := currency.Check(v.Currency)
	if err != nil {
		return v, err
	}
	v.Currency = c
	return v, nil
}

// CheckHotspot validates a hotspot: 3 finite coordinates within ±1e6, a
// non-zero normal (stored as a unit vector), x/y in 0–1, title ≤ 100 and
// text ≤ 500 characters.
func CheckHotspot(h Hotspot) (Hotspot, error) {
	for _, v := range append(h.Position[:], h.Normal[:]...) {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > MaxCoordinate {
			return h, fault.Invalidf("invalid_position", "Hotspot position and normal must be numbers within ±1000000.")
		}
	}
	l := math.Sqrt(h.Normal[0]*h.Normal[0] + h.Normal[1]*h.Normal[1] + h.Normal[2]*h.Normal[2])
	if l < 1e-9 {
		return h, fault.Invalidf("invalid_normal", "The hotspot's surface normal cannot be zero.")
	}
	for i := range h.Normal {
		h.Normal[i] /= l
	}
	if h.X < 0 || h.X > 1 || h.Y < 0 || h.Y > 1 || math.IsNaN(h.X) || math.IsNaN(h.Y) {
		return h, fault.Invalidf("invalid_xy", "Hotspot x and y must be between 0 and 1.")
	}
	h.Title = strings.TrimSpace(h.Title)
	if h.Title == "" {
		return h, fault.Invalidf("hotspot_title_required", "Please enter a hotspot title.")
	}
	if utf8.RuneCountInString(h.Title) > MaxHotspotTitle {
		return h, fault.Invalidf("hotspot_title_too_long", "Hotspot titles can be at most %d characters.", MaxHotspotTitle)
	}
	h.Text = strings.TrimSpace(h.Text)
	if utf8.RuneCountInString(h.Text) > MaxHotspotText {
		return h, fault.Invalidf("hotspot_text_too_long", "Hotspot text can be at most %d characters.", MaxHotspotText)
	}
	return h, nil
}

// CleanLinkURL normalises a purchase link (https:// when typed without a
// scheme) and accepts only http(s) URLs with a host, ≤ 2048 characters.
func CleanLinkURL(raw string) (string, error) {
	s := NormalizeLinkURL(raw)
	if s == "" {
		return "", fault.Invalidf("link_required", "Please enter a link.")
	}
	if len(s) > MaxURLLength {
		return "", ErrLinkTooLong
	}
	if DetectPlatform(s) == nil {
		return "", fault.Invalidf("invalid_link", "Enter a store link such as amazon.in/dp/B0… or https://shop.example.com/item.")
	}
	return s, nil
}

var orbitPattern = regexp.MustCompile(`^(auto|-?\d+(\.\d+)?(deg|rad)) (auto|-?\d+(\.\d+)?(deg|rad)) (auto|\d+(\.\d+)?(m|cm|mm|%))$`)

// CheckPresets validates lighting, background (+ colour) and the camera
// orbit (model-viewer's "theta phi radius", e.g. "0deg 75deg 105%").
func CheckPresets(p Presets) (Presets, error) {
	if !slices.Contains(Lightings, p.Lighting) {
		return p, fault.Invalidf("invalid_lighting", "Choose a lighting: %s.", strings.Join(Lightings, ", "))
	}
	if !slices.Contains(Backgrounds, p.Background) {
		return p, fault.Invalidf("invalid_background", "Choose a background: %s.", strings.Join(Backgrounds, ", "))
	}
	if p.BackgroundColor == "" {
		p.BackgroundColor = DefaultPresets().BackgroundColor
	}
	if !colorPattern.MatchString(p.BackgroundColor) {
		return p, fault.Invalidf("invalid_background_color", "Enter the background colour as #RRGGBB.")
	}
	p.BackgroundColor = strings.ToUpper(p.BackgroundColor)
	p.CameraOrbit = strings.Join(strings.Fields(p.CameraOrbit), " ")
	if p.CameraOrbit == "" {
		p.CameraOrbit = DefaultCameraOrbit
	}
	if len(p.CameraOrbit) > 64 || !orbitPattern.MatchString(p.CameraOrbit) {
		return p, fault.New(fault.Invalid, "invalid_camera_orbit", `Enter the camera orbit as "theta phi radius", for example "0deg 75deg 105%".`)
	}
	p = p.Normalized()
	if p.Exposure < MinExposure || p.Exposure > MaxExposure || math.IsNaN(p.Exposure) {
		return p, fault.Invalidf("invalid_exposure", "Choose an exposure from %g to %g (1 is neutral).", MinExposure, MaxExposure)
	}
	p.Exposure = math.Round(p.Exposure*100) / 100
	if !slices.Contains(Posters, p.Poster) {
		return p, fault.Invalidf("invalid_poster", "Choose what shows while the model loads: %s.", strings.Join(Posters, " or "))
	}
	return p, nil
}

// CheckDefaultVariant says whether id ("" for the first) is one of cfg's
// variants.
func CheckDefaultVariant(cfg Config, id string) error {
	if id != "" && !slices.ContainsFunc(cfg.Variants, func(v Variant) bool { return v.ID == id }) {
		return fault.Invalidf("invalid_default_variant", "Choose one of the product's variants to open the page on.")
	}
	return nil
}

var colorPattern = regexp.MustCompile(`^#[0-9A-Fa-f]{6}$`)
