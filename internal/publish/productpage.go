package publish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/channels"
	"github.com/photo3d/photo3d/internal/glbvariants"
	"github.com/photo3d/photo3d/internal/worklimit"
)

// The public page of a product: the model with its variants (the
// configurator GLB, KHR_materials_variants), hotspots, presets, the current
// variant's price and SKU, buy buttons through /v/{slug}/go/{linkId}, the AR
// file of the current variant and, when the merchant asked for it, an email
// gate. Everything the page script needs is rendered into the page (data
// attributes and one application/json block), so the strict CSP holds: no
// inline script, no fetch for page data.

// productEntry is the product part of a cached page.
type productEntry struct {
	productID      string
	sourceModelKey string // the product's own model; AR files are built from it
	variants       []glbvariants.Variant
	defaultVariant string
	links          map[string]string // link id → stored URL, the only redirect targets
	linkVariant    map[string]string // link id → its variant ("" for product-level links)
	allowDeepLinks bool
	requireEmail   bool
	view           pageView         // kept to render a deep-linked variant's page on demand
	exp            *experimentEntry // the running experiment's arm pages (experiment.go); nil: none

	mu       sync.Mutex
	variantB map[string]*[2]pageBody // variant id → share, embed
}

// productView is what the product templates see beside pageView.
type productView struct {
	Variants       []variantView
	Hotspots       []hotspotView
	Current        variantView
	Lighting       string
	Background     string
	BackgroundCol  string
	CameraOrbit    string
	Autospin       bool
	Exposure       string // model-viewer's exposure, as written in the attribute
	NoPoster       bool   // the page shows the loading bar only while the model loads
	RequireEmail   bool
	Consent        string
	SourceModelURL string // configurator GLB (also set as src unless gated)
	Data           any    // the application/json block
}

type variantView struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	SKU   string `json:"sku"`
	Price string `json:"price"`
	// Amount and Currency let the page's script format the price in the
	// shopper's locale (Intl.NumberFormat); Price is the server's rendering.
	Amount   *float64 `json:"amount"`
	Currency string   `json:"currency"`
	ARURL    string   `json:"arUrl"`
	// USDZURL is the Quick Look file model-viewer's ios-src names.
	USDZURL string    `json:"usdzUrl"`
	Links   []buyLink `json:"links"`
}

type buyLink struct {
	Href   string `json:"href"`
	Label  string `json:"label"`
	Key    string `json:"key"`
	Accent string `json:"accent"`
}

type hotspotView struct {
	ID       string
	Title    string
	Text     string
	Position string
	Normal   string
}

func vec(v [3]float64) string {
	return strconv.FormatFloat(v[0], 'g', 6, 64) + "m " + strconv.FormatFloat(v[1], 'g', 6, 64) + "m " +
		strconv.FormatFloat(v[2], 'g', 6, 64) + "m"
}

// priceLabel formats a variant's price as shoppers read it, "₹899" or
// "$129.50" (FormatPrice; "" without a price).
func priceLabel(v catalog.Variant) string {
	if v.Price == nil {
		return ""
	}
	return FormatPrice(*v.Price, v.Currency)
}

// buyLinks are a variant's own links when it has any, else the product's.
func buyLinks(slug string, cfg catalog.Config, variantID string) []buyLink {
	var own, product []catalog.Link
	for _, l := range cfg.Links {
		switch l.VariantID {
		case variantID:
			own = append(own, l)
		case "":
			product = append(product, l)
		}
	}
	if len(own) == 0 {
		own = product
	}
	out := make([]buyLink, 0, len(own))
	for _, l := range own {
		b := buyLink{Href: "/v/" + slug + "/go/" + l.ID, Label: "Buy", Key: "link", Accent: "#64748B"}
		if pl := catalog.DetectPlatform(l.URL); pl != nil {
			// The chip is a button: it says what it does ("Buy on Amazon"), while the
			// platform table (shared with the web) keeps the store's bare name.
			b.Label, b.Key, b.Accent = "Buy on "+pl.Label, pl.Key, pl.Accent
		}
		out = append(out, b)
	}
	return out
}

// loadProduct fills a page entry for a product publication from snap (the
// locked version or the product now) and renders its pages.
func (p *Pages) loadProduct(ctx context.Context, e *pageEntry, v pageView, snap Snapshot, requireEmail, allowDeepLinks bool) error {
	cfg := catalog.NewConfig()
	if snap.Config != nil {
		cfg = *snap.Config
	}
	pe := &productEntry{productID: snap.ProductID, sourceModelKey: snap.ModelKey, links: map[string]string{},
		linkVariant: map[string]string{}, allowDeepLinks: allowDeepLinks, requireEmail: requireEmail, variantB: map[string]*[2]pageBody{}}
	for _, l := range cfg.Links {
		pe.links[l.ID] = l.URL
		pe.linkVariant[l.ID] = l.VariantID
	}
	pv := &productView{Lighting: cfg.Presets.Lighting, Background: cfg.Presets.Background,
		BackgroundCol: cfg.Presets.BackgroundColor, CameraOrbit: catalog.PublicCameraOrbit(cfg.Presets.CameraOrbit), Autospin: cfg.Presets.Autospin,
		Exposure: exposureAttr(cfg.Presets.Exposure), NoPoster: cfg.Presets.Poster == catalog.PosterNone,
		RequireEmail: requireEmail, Consent: ConsentText(v.Brand.Name)}
	for _, cv := range cfg.Variants {
		pe.variants = append(pe.variants, glbvariants.Variant{ID: cv.ID, Material: cv.Material, Parts: cv.Parts})
		pv.Variants = append(pv.Variants, variantView{ID: cv.ID, Name: cv.Name, SKU: cv.SKU, Price: priceLabel(cv), Amount: cv.Price, Currency: cv.Currency,
			ARURL: "/v/" + e.slug + "/ar/" + cv.ID + ".glb", USDZURL: "/v/" + e.slug + "/ar/" + cv.ID + ".usdz", Links: buyLinks(e.slug, cfg, cv.ID)})
	}
	if len(pv.Variants) == 0 {
		return fmt.Errorf("product %s has no variants", snap.ProductID)
	}
	// The page opens on the merchant's chosen variant (issue 52), else the first.
	opening := max(0, slices.IndexFunc(pv.Variants, func(x variantView) bool { return x.ID == cfg.Presets.DefaultVariantID }))
	pe.defaultVariant = pv.Variants[opening].ID
	pv.Current = pv.Variants[opening]
	for _, h := range cfg.Hotspots {
		pv.Hotspots = append(pv.Hotspots, hotspotView{ID: h.ID, Title: h.Title, Text: h.Text, Position: vec(h.Position),
			Normal: vec(h.Normal)})
	}
	// The configurator GLB: built once per (model, variants) and kept in the
	// bucket; a model the builder cannot read is shown as it is rather than
	// not at all.
	e.modelKey = snap.ModelKey
	if p.variants != nil {
		key, err := p.variants.ConfiguratorKey(ctx, snap.ModelKey, pe.variants)
		if errors.Is(err, worklimit.ErrBusy) {
			// The process's heavy-work slots are taken: answer 503 now
			// rather than cache a page without its variants.
			return err
		}
		if err != nil {
			p.cfg.Log.Warn("product page shows the model without variants", "slug", e.slug, "err", err)
		} else {
			e.modelKey = key
		}
	}
	e.tag = assetTag(e.modelKey, e.posterKey)
	v.ModelURL = "/v/" + e.slug + "/model.glb?v=" + e.tag
	v.JSONLD = jsonLD(v, e.base)
	if requireEmail {
		// The gated page names no working model: its model routes answer
		// only with the gate's token, and the poster (a picture of the
		// model) is not on the page or in its previews.
		// Behind the gate's card: the teaser, a few dozen pixels made from
		// the poster (teaser.go), not the poster.
		if v.PosterURL != "" {
			v.TeaserURL = "/v/" + e.slug + "/teaser.jpg?v=" + e.tag
		}
		v.PosterURL, v.PosterAbsURL = "", ""
		ld := jsonLD(v, e.base)
		delete(ld, "subjectOf")
		v.JSONLD = ld
	}
	pv.SourceModelURL = v.ModelURL
	data := map[string]any{"slug": e.slug, "variants": pv.Variants, "defaultVariant": pe.defaultVariant,
		"allowDeepLinks": allowDeepLinks, "requireEmail": requireEmail, "leadUrl": "/v/" + e.slug + "/lead",
		"lighting": pv.Lighting}
	if !requireEmail {
		// What the viewer shows while a variant's AR file is still being
		// made by the worker (the same look, through the variants
		// extension); a gated page names no model.
		data["modelUrl"] = v.ModelURL
	}
	pv.Data = data
	v.Product = pv
	v.Script, v.Preload, v.Styles = p.cfg.ProductAssets.Script, p.cfg.ProductAssets.Preload, p.cfg.ProductAssets.Styles
	if v.Script == "" { // no product entry in this build: the viewer alone still shows the model
		v.Script, v.Preload, v.Styles = p.cfg.Assets.Script, p.cfg.Assets.Preload, p.cfg.Assets.Styles
	}
	pe.view = v
	e.product = pe
	var err error
	if e.share, err = renderBody("product-share", v); err != nil {
		return err
	}
	// A gated page runs no experiment: its model and presets sit behind the gate.
	if !requireEmail {
		id, share, arms, err := p.loadExperiment(ctx, e.pubID)
		if err != nil {
			return err
		}
		if id != "" {
			if pe.exp, err = renderArms(v, id, share, arms); err != nil {
				return err
			}
		}
	}
	v.Embed = true
	e.embed, err = renderBody("product-embed", v)
	return err
}

// variantBody is the page opened on a deep-linked variant, rendered on first
// request and kept with the entry.
func (pe *productEntry) variantBody(id string, embed bool) (pageBody, bool, error) {
	if !pe.allowDeepLinks || id == "" || id == pe.defaultVariant {
		return pageBody{}, false, nil
	}
	pv := *pe.view.Product
	i := slices.IndexFunc(pv.Variants, func(v variantView) bool { return v.ID == id })
	if i < 0 {
		return pageBody{}, false, nil
	}
	which := 0
	if embed {
		which = 1
	}
	pe.mu.Lock()
	defer pe.mu.Unlock()
	if b, ok := pe.variantB[id]; ok && b[which].raw != nil {
		return b[which], true, nil
	}
	pv.Current = pv.Variants[i]
	data := maps(pv.Data)
	data["initialVariant"] = id
	pv.Data = data
	v := pe.view
	v.Product = &pv
	name := "product-share"
	if embed {
		v.Embed, name = true, "product-embed"
	}
	body, err := renderBody(name, v)
	if err != nil {
		return pageBody{}, false, err
	}
	if pe.variantB[id] == nil {
		pe.variantB[id] = &[2]pageBody{}
	}
	pe.variantB[id][which] = body
	return body, true, nil
}

func maps(v any) map[string]any {
	src, _ := v.(map[string]any)
	out := make(map[string]any, len(src)+1)
	for k, x := range src {
		out[k] = x
	}
	return out
}

// productPage is the live product page behind slug; otherwise it has
// answered (404, or 503 when the page cannot be read) and ok is false.
func (p *Pages) productPage(w http.ResponseWriter, r *http.Request, slug string) (*pageEntry, bool) {
	e, err := p.entry(r.Context(), slug)
	if err != nil {
		p.fail(w, r, err)
		return nil, false
	}
	if e.missing || e.product == nil {
		http.NotFound(w, r)
		return nil, false
	}
	return e, true
}

// ServeAR answers /v/{slug}/ar/{variantId}.glb, the variant's AR file (the
// page's model), /v/{slug}/ar/{variantId}.usdz, its Quick Look file, and
// /v/{slug}/ar/{variantId}.commerce.glb, the GLB within Google's and
// Shopify's budgets that feeds link as virtual_model_link (issue 32). The
// worker makes them per version and variant (channel_files, queued when the
// page is published or changed); a request only streams a ready file. A
// file not made yet is answered 503 with Retry-After and a short text, and
// queues the job (at most one per content: River's unique key); a file that
// cannot be made within its budget is a 404. Nothing is built here: one
// such build of a large own model cost the api a minute of CPU (security
// review 3, item H1). Like the model they are served only while the link is
// live and its owner has views left.
func (p *Pages) ServeAR(w http.ResponseWriter, r *http.Request, slug, file string) {
	e, ok := p.productPage(w, r, slug)
	if !ok {
		return
	}
	id, ok := strings.CutSuffix(file, ".commerce.glb")
	kind := AssetCommerce
	if !ok {
		id, ok = strings.CutSuffix(file, ".glb")
		kind = AssetModel
	}
	if !ok {
		id, ok = strings.CutSuffix(file, ".usdz")
		kind = AssetUSDZ
	}
	if !ok || p.packager == nil {
		http.NotFound(w, r)
		return
	}
	i := slices.IndexFunc(e.product.variants, func(v glbvariants.Variant) bool { return v.ID == id })
	if i < 0 {
		http.NotFound(w, r)
		return
	}
	if !p.gateOpen(r, e) {
		gateClosed(w)
		return
	}
	if p.cfg.Meter != nil && !p.cfg.Meter.Available(r.Context(), e.ownerID, e.pubID) {
		http.NotFound(w, r)
		return
	}
	files := channels.FilesOf(e.product.sourceModelKey, e.product.variants[i])
	key := files.AR
	switch kind {
	case AssetUSDZ:
		key = files.USDZ
	case AssetCommerce:
		key = files.Commerce
	}
	p.streamReady(w, r, e, key, kind)
}

// ARRetryAfter is how long a "not ready yet" answer asks the client to
// wait, in seconds: small files are made within a second or two of the
// publish; a large own model's take a minute or more.
const ARRetryAfter = "10"

// streamReady streams a worker-made file of a live product page, or answers
// why it cannot: not made yet (503, and the job is queued) or refused (404).
func (p *Pages) streamReady(w http.ResponseWriter, r *http.Request, e *pageEntry, key, kind string) {
	if p.send(w, r, e, key, kind, true) {
		return
	}
	st, err := p.packager.State(r.Context(), key)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	if st.Ready { // made between the two looks
		p.send(w, r, e, key, kind, false)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	if st.Refused != "" {
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, "This 3D file is not available for this product.\n")
		return
	}
	if err := p.cfg.Channels.Request(r.Context(), channels.NewFilesArgs(e.ownerID, e.product.productID,
		e.product.sourceModelKey, e.product.variants)); err != nil {
		p.cfg.Log.Error("queue channel files", "slug", e.slug, "err", err)
	}
	h.Set("Retry-After", ARRetryAfter)
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = io.WriteString(w, "This 3D file is being prepared. Please try again in a moment.\n")
}

// ServeGo answers /v/{slug}/go/{linkId}: a 302 to the URL the merchant
// stored for that link. Nothing from the request ever becomes the target;
// an unknown link is a 404.
func (p *Pages) ServeGo(w http.ResponseWriter, r *http.Request, slug, linkID string) {
	e, ok := p.productPage(w, r, slug)
	if !ok {
		return
	}
	target, ok := e.product.links[linkID]
	if !ok {
		http.NotFound(w, r)
		return
	}
	if p.cfg.OnBuyClick != nil {
		p.cfg.OnBuyClick(r, slug, target, e.product.linkVariant[linkID])
	}
	w.Header().Set("Cache-Control", "private, no-store")
	w.Header().Set("Referrer-Policy", "strict-origin")
	http.Redirect(w, r, target, http.StatusFound)
}

// leadBody is POST /v/{slug}/lead.
type leadBody struct {
	Email     string `json:"email"`
	Consent   bool   `json:"consent"`
	VariantID string `json:"variantId"`
	// Surface is "embed" from an embed, else the share page; anything else
	// counts as the page (it only labels the lead).
	Surface string `json:"surface"`
}

// ServeLead answers POST /v/{slug}/lead {email, consent:true, variantId?}
// with 200 {"gateToken": "…"}: the email gate of a live product page. The
// token opens the page's model routes (?gt=, pagetoken.go) for
// GateTokenTTL. A page without the gate takes no leads (404), so leads
// cannot be pushed into a product that never asked for them. An address
// already left on this publication updates its lead (no new lead, no
// webhook, no analytics lead) and gets a token too. Errors are small JSON
// objects {error:{code,message}} the page script shows.
func (p *Pages) ServeLead(w http.ResponseWriter, r *http.Request, slug string) {
	e, ok := p.productPage(w, r, slug)
	if !ok {
		return
	}
	if !e.product.requireEmail {
		http.NotFound(w, r)
		return
	}
	var body leadBody
	dec := json.NewDecoder(io.LimitReader(r.Body, 4<<10))
	if err := dec.Decode(&body); err != nil || dec.More() {
		leadError(w, "invalid_body", "Send your email as JSON: {\"email\": \"…\", \"consent\": true}.")
		return
	}
	email, err := CleanEmail(body.Email)
	if err != nil {
		leadError(w, "invalid_email", errInvalidEmail.Error())
		return
	}
	if !body.Consent {
		leadError(w, "consent_required", errNoConsent.Error())
		return
	}
	variant := ""
	if slices.ContainsFunc(e.product.variants, func(v glbvariants.Variant) bool { return v.ID == body.VariantID }) {
		variant = body.VariantID
	}
	isNew, err := captureLead(r.Context(), p.cfg.DB, p.cfg.Store, e, email, variant, e.product.view.Product.Consent, body.Surface, p.now().UTC())
	if err != nil {
		p.fail(w, r, err)
		return
	}
	if isNew && p.cfg.OnLead != nil {
		p.cfg.OnLead(r, slug, r.URL.Query().Get("vid"))
	}
	b, _ := json.Marshal(map[string]string{"gateToken": p.tokens.sign(purposeGate, slug, e.pubID, p.now().Add(GateTokenTTL))})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// gateOpen reports whether a request may have the model of e: always on a
// page without the email gate; on a gated page only with a gate token
// (?gt=) the gate issued for this publication.
func (p *Pages) gateOpen(r *http.Request, e *pageEntry) bool {
	if e.product == nil || !e.product.requireEmail {
		return true
	}
	return p.tokens.check(purposeGate, e.slug, e.pubID, r.URL.Query().Get("gt"), p.now()) == nil
}

// gateClosed answers a gated model route asked without a valid gate token.
func gateClosed(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusForbidden)
	_, _ = io.WriteString(w, "Leave your email on the product page to see this model.\n")
}

func leadError(w http.ResponseWriter, code, message string) {
	b, _ := json.Marshal(map[string]any{"error": map[string]string{"code": code, "message": message}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(b)
}

// exposureAttr writes an exposure for model-viewer's attribute ("1", "1.25");
// 0 (a configuration stored before exposure existed) is neutral.
func exposureAttr(x float64) string {
	if x <= 0 {
		x = 1
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}
