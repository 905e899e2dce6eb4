package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/fault"
)

// linkPlatformView answers GET /api/link-platform: the link as it will be
// stored (https:// prepended when it had no scheme) and its store chip, or
// platform null when the URL cannot be read.
type linkPlatformView struct {
	URL      string                `json:"url"`
	Platform *catalog.LinkPlatform `json:"platform"`
}

// linkPlatform serves GET /api/link-platform?url=…, the server's verdict for
// the chip the configurator shows while the merchant types a link.
func linkPlatform() Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		raw := r.URL.Query().Get("url")
		if len(raw) > catalog.MaxURLLength {
			return catalog.ErrLinkTooLong
		}
		WriteJSON(w, http.StatusOK, linkPlatformView{URL: catalog.NormalizeLinkURL(raw), Platform: catalog.DetectPlatform(raw)})
		return nil
	}
}

// --- product configuration (issue 13) ----------------------------------------

type linkView struct {
	ID        string                `json:"id"`
	URL       string                `json:"url"`
	VariantID string                `json:"variantId"`
	Platform  *catalog.LinkPlatform `json:"platform"`
}

// configView is the configuration part of GET /products/{id}.
type configView struct {
	Variants []catalog.Variant `json:"variants"`
	Hotspots []catalog.Hotspot `json:"hotspots"`
	Links    []linkView        `json:"links"`
	Presets  catalog.Presets   `json:"presets"`
}

// newLinkView derives the platform chip when read, so a link stored before
// a rule was added shows the new chip.
func newLinkView(l catalog.Link) linkView {
	return linkView{ID: l.ID, URL: l.URL, VariantID: l.VariantID, Platform: catalog.DetectPlatform(l.URL)}
}

func newConfigView(c catalog.Config) configView {
	out := configView{Variants: []catalog.Variant{}, Hotspots: []catalog.Hotspot{}, Links: []linkView{}, Presets: c.Presets}
	out.Variants = append(out.Variants, c.Variants...)
	out.Hotspots = append(out.Hotspots, c.Hotspots...)
	for _, l := range c.Links {
		out.Links = append(out.Links, newLinkView(l))
	}
	return out
}

// variantRequest: absent fields keep their value (PATCH) or take the
// default (POST); "price": null clears the price.
type variantRequest struct {
	Name     *string            `json:"name"`
	Material *string            `json:"material"`
	Parts    *map[string]string `json:"parts"`
	SKU      *string            `json:"sku"`
	Price    json.RawMessage    `json:"price"`
	Currency *string            `json:"currency"`
}

func decodeVariant(r *http.Request) (catalog.VariantInput, error) {
	var req variantRequest
	if err := DecodeJSON(r, &req); err != nil {
		return catalog.VariantInput{}, err
	}
	in := catalog.VariantInput{Name: req.Name, Material: req.Material, Parts: req.Parts, SKU: req.SKU, Currency: req.Currency}
	if len(req.Price) > 0 {
		in.PriceSet = true
		if string(req.Price) != "null" {
			var price float64
			if err := json.Unmarshal(req.Price, &price); err != nil {
				return in, fault.New(fault.Invalid, "invalid_price", "Enter the price as a number, for example 49.99.")
			}
			in.Price = &price
		}
	}
	return in, nil
}

func variantOf(p catalog.Product, id string) catalog.Variant {
	v, _ := p.Config.Variant(id)
	return v
}

// addVariant serves POST /api/products/{id}/variants → the new variant.
func addVariant(s *catalog.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		in, err := decodeVariant(r)
		if err != nil {
			return err
		}
		p, id, err := s.AddVariant(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"), in)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusCreated, variantOf(p, id))
		return nil
	}
}

// patchVariant serves PATCH /api/products/{id}/variants/{variantId}.
func patchVariant(s *catalog.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		in, err := decodeVariant(r)
		if err != nil {
			return err
		}
		vid := chi.URLParam(r, "variantId")
		p, err := s.ChangeVariant(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"), vid, in)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, variantOf(p, vid))
		return nil
	}
}

// deleted answers the configuration DELETE routes.
func deleted(w http.ResponseWriter, id string) error {
	WriteJSON(w, http.StatusOK, map[string]any{"id": id, "deleted": true})
	return nil
}

// deleteVariant serves DELETE /api/products/{id}/variants/{variantId}.
func deleteVariant(s *catalog.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		vid := chi.URLParam(r, "variantId")
		if _, err := s.RemoveVariant(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"), vid); err != nil {
			return err
		}
		return deleted(w, vid)
	}
}

type hotspotRequest struct {
	Position *[]float64 `json:"position"`
	Normal   *[]float64 `json:"normal"`
	X        *float64   `json:"x"`
	Y        *float64   `json:"y"`
	Title    *string    `json:"title"`
	Text     *string    `json:"text"`
}

func vec3(field string, v *[]float64) (*[3]float64, error) {
	if v == nil {
		return nil, nil
	}
	if len(*v) != 3 {
		return nil, fault.Invalidf("invalid_"+field, "The hotspot's %s must be 3 numbers [x, y, z].", field)
	}
	out := [3]float64{(*v)[0], (*v)[1], (*v)[2]}
	return &out, nil
}

func decodeHotspot(r *http.Request) (catalog.HotspotInput, error) {
	var req hotspotRequest
	if err := DecodeJSON(r, &req); err != nil {
		return catalog.HotspotInput{}, err
	}
	pos, err := vec3("position", req.Position)
	if err != nil {
		return catalog.HotspotInput{}, err
	}
	normal, err := vec3("normal", req.Normal)
	if err != nil {
		return catalog.HotspotInput{}, err
	}
	return catalog.HotspotInput{Position: pos, Normal: normal, X: req.X, Y: req.Y, Title: req.Title, Text: req.Text}, nil
}

func hotspotOf(p catalog.Product, id string) catalog.Hotspot {
	h, _ := p.Config.Hotspot(id)
	return h
}

// addHotspot serves POST /api/products/{id}/hotspots → the new hotspot.
func addHotspot(s *catalog.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		in, err := decodeHotspot(r)
		if err != nil {
			return err
		}
		p, id, err := s.PlaceHotspot(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"), in)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusCreated, hotspotOf(p, id))
		return nil
	}
}

// patchHotspot serves PATCH /api/products/{id}/hotspots/{hotspotId}.
func patchHotspot(s *catalog.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		in, err := decodeHotspot(r)
		if err != nil {
			return err
		}
		hid := chi.URLParam(r, "hotspotId")
		p, err := s.MoveHotspot(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"), hid, in)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, hotspotOf(p, hid))
		return nil
	}
}

// deleteHotspot serves DELETE /api/products/{id}/hotspots/{hotspotId}.
func deleteHotspot(s *catalog.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		hid := chi.URLParam(r, "hotspotId")
		if _, err := s.RemoveHotspot(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"), hid); err != nil {
			return err
		}
		return deleted(w, hid)
	}
}

type linkRequest struct {
	URL       string `json:"url"`
	VariantID string `json:"variantId"`
}

// addLink serves POST /api/products/{id}/links → {id, url, variantId, platform}.
func addLink(s *catalog.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var req linkRequest
		if err := DecodeJSON(r, &req); err != nil {
			return err
		}
		p, id, err := s.AddLink(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"), req.URL, req.VariantID)
		if err != nil {
			return err
		}
		for _, l := range p.Config.Links {
			if l.ID == id {
				WriteJSON(w, http.StatusCreated, newLinkView(l))
			}
		}
		return nil
	}
}

// deleteLink serves DELETE /api/products/{id}/links/{linkId}.
func deleteLink(s *catalog.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		lid := chi.URLParam(r, "linkId")
		if _, err := s.RemoveLink(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"), lid); err != nil {
			return err
		}
		return deleted(w, lid)
	}
}

type presetsRequest struct {
	Lighting        string `json:"lighting"`
	Background      string `json:"background"`
	BackgroundColor string `json:"backgroundColor"`
	CameraOrbit     string `json:"cameraOrbit"`
	Autospin        *bool  `json:"autospin"`
	// Optional (issue 52): left out, they keep their current values.
	Exposure         *float64 `json:"exposure"`
	Poster           *string  `json:"poster"`
	DefaultVariantID *string  `json:"defaultVariantId"`
}

// putPresets serves PUT /api/products/{id}/presets → the saved presets.
// lighting, background and autospin are required; an empty cameraOrbit or
// backgroundColor takes the default.
func putPresets(s *catalog.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var req presetsRequest
		if err := DecodeJSON(r, &req); err != nil {
			return err
		}
		if req.Autospin == nil {
			return fault.New(fault.Invalid, "autospin_required", "Say whether the model spins: autospin true or false.")
		}
		cur, err := s.ProductConfig(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"))
		if err != nil {
			return err
		}
		in := catalog.Presets{Lighting: req.Lighting, Background: req.Background, BackgroundColor: req.BackgroundColor,
			CameraOrbit: req.CameraOrbit, Autospin: *req.Autospin, Exposure: cur.Config.Presets.Exposure,
			Poster: cur.Config.Presets.Poster, DefaultVariantID: cur.Config.Presets.DefaultVariantID}
		if req.Exposure != nil {
			in.Exposure = *req.Exposure
			if in.Exposure == 0 { // 0 would read as "not set"
				return fault.Invalidf("invalid_exposure", "Choose an exposure from %g to %g (1 is neutral).", catalog.MinExposure, catalog.MaxExposure)
			}
		}
		if req.Poster != nil {
			in.Poster = *req.Poster
		}
		if req.DefaultVariantID != nil {
			in.DefaultVariantID = *req.DefaultVariantID
		}
		p, err := s.SetPresets(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"), in)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, p.Config.Presets)
		return nil
	}
}
