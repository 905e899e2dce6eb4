package publish

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/skip2/go-qrcode"
	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
	"golang.org/x/sync/singleflight"

	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/channels"
	"github.com/photo3d/photo3d/internal/channels/usdz"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/glbvariants"
)

//go:embed templates/*.html
var templateFS embed.FS

// templates are parsed once at start-up; a broken template is a build bug.
var templates = template.Must(template.ParseFS(templateFS, "templates/*.html"))

// Brand is how the owner's public pages look (spec: brand name, colour, logo).
type Brand struct {
	Name    string
	Color   string
	LogoKey string
	// Named: the owner named this brand. DefaultBrand's name is the platform's, so it
	// titles the page but is never claimed as the product's brand (schema.org, feeds).
	Named bool
}

// Brands reads an owner's branding (internal/account).
type Brands interface {
	Brand(ctx context.Context, userID string) (Brand, error)
}

// Assets are the public viewer's built script and styles (web/manifest.go).
type Assets struct {
	Script  string
	Preload []string // chunks the script imports, fetched in parallel with it
	Styles  []string
	// Environment lights the model on the share page and the embed (the
	// viewer's pre-rendered neutral room, web.Entry.Environment); empty:
	// model-viewer's own default.
	Environment string
}

// PagesConfig wires the public pages.
type PagesConfig struct {
	DB     *pgxpool.Pool
	Store  *eventstore.Store
	Bucket *blob.Bucket
	Meter  *Meter
	Brands Brands // nil: the default Photo3D look
	Assets Assets
	// ProductAssets is the product page's script (web/src/public-viewer/product.ts);
	// empty: product pages use Assets.
	ProductAssets Assets
	// Variants builds and caches product pages' configurator GLBs; nil:
	// one over Bucket. cmd/api gives it the process-wide limit on heavy
	// work (worklimit), so a page load past it answers 503.
	Variants *glbvariants.Cache
	// Packager reads the channel files the worker builds (AR GLBs,
	// commerce GLBs, USDZ); nil: one over Bucket.
	Packager *channels.Packager
	// Channels queues the worker's channel_files job when a request finds
	// a file missing; nil: missing files stay "not ready yet".
	Channels *channels.Queue
	BaseURL  string
	CacheTTL time.Duration // default 5s; unpublish on this instance (or via NOTIFY) is immediate
	Log      *slog.Logger

	// TokenKey signs the pages' view and gate tokens (pagetoken.go; derive
	// it with PageTokenKey). Every instance behind one domain needs the same
	// key; nil: a random key for this process only.
	TokenKey []byte
	// Now is the pages' clock (token expiry, view windows); nil: time.Now.
	Now func() time.Time

	// ViewsPerAddress is the ceiling of counted views per client address
	// per owner per ViewWindow (default 20; viewcount.go).
	ViewsPerAddress int
	// ViewsPerNetwork is the ceiling of counted views per IPv6 /48 or IPv4
	// /24 per owner per ViewWindow (default DefaultViewsPerNetwork; never
	// below ViewsPerAddress).
	ViewsPerNetwork int

	// OnBuyClick and OnLead tell shopper analytics (internal/analytics, which
	// imports this package) about a buy-link redirect and a captured lead;
	// nil: not counted. They must not block: the shopper is waiting.
	OnBuyClick func(r *http.Request, slug, linkURL, variantID string)
	OnLead     func(r *http.Request, slug, viewerID string)
}

// Pages serves the public share and embed pages and their assets. It is
// built for read traffic: render data is cached per slug, pages are rendered
// once per cache fill (not per view), and the only per-view work is the
// repeat-viewer check and one in-memory decrement of the owner's lease.
type Pages struct {
	cfg      PagesConfig
	variants *glbvariants.Cache
	packager *channels.Packager
	seen     *recentViewers
	addrs    *addressCeiling // per-address and per-network ceilings of counted views (viewcount.go)
	tokens   tokenSigner     // view and gate tokens (pagetoken.go)
	teasers  teaserCache     // the email gate's teasers of posters (teaser.go)
	flight   singleflight.Group

	mu    sync.RWMutex
	cache map[string]*pageEntry
	now   func() time.Time
}

// pageEntry is one slug's ready-to-send pages.
type pageEntry struct {
	missing        bool
	gone           bool // the owner deleted the account: 410 with a neutral notice
	pubID, ownerID string
	subjectID      string // what the publication shows (analytics' product dimension)
	slug           string
	base           string // the base URL its links name: PUBLIC_BASE_URL's, whatever host the page was asked on (LinksFor)
	modelKey       string
	posterKey      string
	logoKey        string
	locked         bool   // a locked version: its model and poster never change under their URLs
	tag            string // assetTag of the model and poster keys, the ?v= of their URLs
	share, embed   pageBody
	unavailShare   pageBody
	unavailEmbed   pageBody
	loaded         time.Time
	product        *productEntry // set for a product page
	gallery        *galleryEntry // set for a gallery page (/g/{slug}; gallery.go)
	title          string        // the page's title and the owner's brand name (oEmbed)
	brandName      string

	thumbOnce      sync.Once // the poster's size, read once for oEmbed answers
	thumbW, thumbH int

	embedOrigins []string // frame-ancestors of the embed page; empty: any site

	qrOnce sync.Once
	qr     []byte
	qrErr  error
}

// NewPages builds the public pages.
func NewPages(cfg PagesConfig) *Pages {
	if cfg.CacheTTL <= 0 {
		cfg.CacheTTL = 5 * time.Second
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	variants := cfg.Variants
	if variants == nil && cfg.Bucket != nil {
		variants = glbvariants.NewCache(cfg.Bucket)
	}
	now := time.Now
	if cfg.Now != nil {
		now = cfg.Now
	}
	packager := cfg.Packager
	if packager == nil && cfg.Bucket != nil {
		packager = channels.NewPackager(cfg.Bucket)
	}
	return &Pages{cfg: cfg, variants: variants, packager: packager, seen: newRecentViewers(30*time.Minute, 200_000), cache: map[string]*pageEntry{}, now: now,
		addrs: newAddressCeiling(cfg.ViewsPerAddress, cfg.ViewsPerNetwork, ViewWindow), tokens: newTokenSigner(cfg.TokenKey)}
}

// validSlug reports whether s has the shape of the slugs newSlug makes
// (^[A-Za-z0-9_-]{16,64}$, nothing that needs escaping); a byte loop, as it
// runs on every page view.
func validSlug(s string) bool {
	if len(s) < 16 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// Invalidate drops a slug's cached pages (after unpublish, lock or a new version).
func (p *Pages) Invalidate(slug string) {
	p.mu.Lock()
	delete(p.cache, slug)
	p.mu.Unlock()
	p.flight.Forget(slug)
}

// InvalidateAll drops every cached page (after losing the NOTIFY connection).
func (p *Pages) InvalidateAll() {
	p.mu.Lock()
	p.cache = map[string]*pageEntry{}
	p.mu.Unlock()
}

// Listen drops cached pages as other instances report changes on
// NotifyChannel, reconnecting until ctx ends. Without it the cache TTL bounds
// how long another instance keeps serving an unpublished page.
func (p *Pages) Listen(ctx context.Context) {
	for ctx.Err() == nil {
		err := p.listenOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		p.cfg.Log.Warn("publication change listener stopped; retrying", "err", err)
		p.InvalidateAll()
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

func (p *Pages) listenOnce(ctx context.Context) error {
	conn, err := p.cfg.DB.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("acquire listener connection: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "LISTEN "+NotifyChannel); err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	// Anything that changed while we were not listening is dropped too.
	p.InvalidateAll()
	for {
		n, err := conn.Conn().WaitForNotification(ctx)
		if err != nil {
			return fmt.Errorf("wait for notification: %w", err)
		}
		p.Invalidate(n.Payload)
	}
}

// entry returns a slug's cached pages, loading them at most once at a time.
func (p *Pages) entry(ctx context.Context, slug string) (*pageEntry, error) {
	if !validSlug(slug) {
		return &pageEntry{missing: true}, nil
	}
	now := p.now()
	p.mu.RLock()
	e, ok := p.cache[slug]
	p.mu.RUnlock()
	if ok && now.Sub(e.loaded) < p.cfg.CacheTTL {
		return e, nil
	}
	v, err, _ := p.flight.Do(slug, func() (any, error) {
		e, err := p.load(context.WithoutCancel(ctx), slug, p.cfg.BaseURL)
		if err != nil {
			return nil, err
		}
		p.mu.Lock()
		if len(p.cache) >= 50_000 {
			for k := range p.cache { // evict an arbitrary tenth; entries are cheap to rebuild
				delete(p.cache, k)
				if len(p.cache) < 45_000 {
					break
				}
			}
		}
		p.cache[slug] = e
		p.mu.Unlock()
		return e, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*pageEntry), nil
}

// pageView is what the templates see. Every string in it is escaped by
// html/template for its context (text, attribute, URL, JSON in script).
type pageView struct {
	Slug         string
	Title        string
	Description  string
	Brand        Brand
	ShareURL     string
	ModelURL     string
	PosterURL    string
	PosterAbsURL string
	TeaserURL    string // a gated page's teaser of the poster behind its card (teaser.go)
	LogoURL      string
	QRURL        string
	Script       string
	Preload      []string
	Styles       []string
	Environment  string // the share page's and embed's lighting map, preloaded
	ViewToken    string // signed into the page for its beacons (pagetoken.go); empty on notices
	OEmbedURL    string // the oEmbed discovery link (internal/channels/oembed)
	JSONLD       any
	Embed        bool
	CameraOrbit  string // a blueprint page's camera (catalog.DefaultCameraOrbit: the model with air around it)
	// MaxCameraOrbit lets the camera stand further out than model-viewer's
	// 105 % (catalog.MaxCameraOrbit), or the framing above is clamped back.
	MaxCameraOrbit string
	Product        *productView // a product page's variants, hotspots, presets, buy links
	// Arm is the experiment arm this page shows (<meta name="p3d-arm">; experiment.go).
	Arm string
}

var validColor = regexp.MustCompile(`^#[0-9A-Fa-f]{6}$`)

// DefaultBrand is the look of pages whose owner set no branding (spec §9
// default brand colour #2E5BBA).
var DefaultBrand = Brand{Name: "Photo3D", Color: "#2E5BBA"}

// load reads a slug's publication, resolves what it shows (the locked
// version, else the blueprint's live state) and renders every page variant.
func (p *Pages) load(ctx context.Context, slug, base string) (*pageEntry, error) {
	now := p.now()
	if erased, err := ownerErased(ctx, p.cfg.DB, slug); err != nil {
		return nil, err
	} else if erased {
		return &pageEntry{missing: true, gone: true, loaded: now}, nil
	}
	r, locked, err := liveBySlug(ctx, p.cfg.DB, slug)
	if errors.Is(err, errNoRow) {
		return &pageEntry{missing: true, loaded: now}, nil
	}
	if err != nil {
		return nil, err
	}
	var snap Snapshot
	if r.GalleryID != "" {
		snap = Snapshot{Name: "Gallery"}
	} else if r.ProductID != "" {
		// Deleting the product takes its page down whatever the lock says.
		current, err := productSnapshot(ctx, p.cfg.DB, r.UserID, r.ProductID)
		switch {
		case errors.Is(err, errProductNotFound) || (errors.Is(err, errProductNotReady) && locked == nil):
			return &pageEntry{missing: true, loaded: now}, nil
		case err != nil && !errors.Is(err, errProductNotReady):
			return nil, err
		}
		snap = current
	} else {
		// The blueprint is folded even for a locked link: deleting a blueprint
		// takes its links down whatever the lock says.
		bp, exists, err := loadBlueprint(ctx, p.cfg.Store, p.cfg.DB, r.BlueprintID)
		if err != nil {
			return nil, err
		}
		if !exists || bp.Deleted || (locked == nil && !bp.Completed) {
			return &pageEntry{missing: true, loaded: now}, nil
		}
		snap = bp.Snapshot
	}
	if locked != nil {
		snap = *locked
	}
	brand := DefaultBrand
	if p.cfg.Brands != nil {
		b, err := p.cfg.Brands.Brand(ctx, r.UserID)
		if err != nil {
			return nil, fmt.Errorf("read branding: %w", err)
		}
		if strings.TrimSpace(b.Name) != "" {
			brand.Name, brand.Named = strings.TrimSpace(b.Name), true
		}
		if validColor.MatchString(b.Color) {
			brand.Color = b.Color
		}
		brand.LogoKey = b.LogoKey
	}
	tag := assetTag(snap.ModelKey, snap.ThumbnailKey)
	title := strings.TrimSpace(snap.Name)
	if title == "" {
		title = "3D product"
	}
	e := &pageEntry{pubID: r.ID, ownerID: r.UserID, subjectID: cmp.Or(r.ProductID, r.BlueprintID), slug: slug, base: base, modelKey: snap.ModelKey, posterKey: snap.ThumbnailKey,
		logoKey: brand.LogoKey, loaded: now, locked: locked != nil, tag: tag, embedOrigins: r.EmbedOrigins,
		title: title, brandName: brand.Name}

	links := LinksFor(base, slug)
	v := pageView{
		Slug: slug, Title: title, Brand: brand, ShareURL: links.Share,
		Description: title + " in interactive 3D: turn it, zoom in and place it in your room.",
		ModelURL:    "/v/" + slug + "/model.glb?v=" + tag,
		QRURL:       "/v/" + slug + "/qr.png",
		Script:      p.cfg.Assets.Script, Preload: p.cfg.Assets.Preload, Styles: p.cfg.Assets.Styles,
		Environment: p.cfg.Assets.Environment,
		ViewToken:   p.tokens.sign(purposeView, slug, r.ID, now.Add(ViewTokenTTL)),
		OEmbedURL:   OEmbedURL(base, links.Share),
		CameraOrbit: catalog.DefaultCameraOrbit, MaxCameraOrbit: catalog.MaxCameraOrbit,
	}
	if snap.ThumbnailKey != "" {
		v.PosterURL = "/v/" + slug + "/poster.png?v=" + tag
		v.PosterAbsURL = base + v.PosterURL
	}
	if brand.LogoKey != "" {
		v.LogoURL = "/v/" + slug + "/logo?v=" + assetTag(brand.LogoKey)
	}
	v.JSONLD = jsonLD(v, base)

	if r.GalleryID != "" {
		if err := p.loadGallery(ctx, e, r, v); err != nil {
			return nil, err
		}
		if e.missing {
			return e, nil
		}
	} else if r.ProductID != "" {
		if err := p.loadProduct(ctx, e, v, snap, r.RequireEmail, r.AllowDeepLinks); err != nil {
			return nil, err
		}
		v.Embed = true
	} else {
		if e.share, err = renderBody("share", v); err != nil {
			return nil, err
		}
		v.Embed = true
		if e.embed, err = renderBody("embed", v); err != nil {
			return nil, err
		}
	}
	v.ViewToken = "" // the notices send no beacons
	if e.unavailEmbed, err = renderBody("unavailable", v); err != nil {
		return nil, err
	}
	v.Embed = false
	if e.unavailShare, err = renderBody("unavailable", v); err != nil {
		return nil, err
	}
	return e, nil
}

// jsonLD describes the product and its 3D model for search engines
// (schema.org Product with a 3DModel, as model-viewer's generate-schema does).
func jsonLD(v pageView, baseURL string) map[string]any {
	model := map[string]any{
		"@type": "3DModel",
		"name":  v.Title,
		"encoding": []map[string]any{{
			"@type":          "MediaObject",
			"contentUrl":     baseURL + v.ModelURL,
			"encodingFormat": "model/gltf-binary",
		}},
	}
	product := map[string]any{
		"@context":  "https://schema.org",
		"@type":     "Product",
		"name":      v.Title,
		"url":       v.ShareURL,
		"subjectOf": model,
	}
	if v.Brand.Named {
		product["brand"] = map[string]any{"@type": "Brand", "name": v.Brand.Name}
	}
	if v.PosterAbsURL != "" {
		product["image"] = v.PosterAbsURL
	}
	return product
}

func render(name string, v pageView) ([]byte, error) {
	var buf bytes.Buffer
	if err := templates.ExecuteTemplate(&buf, name, v); err != nil {
		return nil, fmt.Errorf("render %s page: %w", name, err)
	}
	return buf.Bytes(), nil
}

// assetTag is a short content tag for cache-busting asset URLs: a new model
// key (a rebuild, a new version) gives a new URL.
func assetTag(keys ...string) string {
	h := sha256.New()
	for _, k := range keys {
		h.Write([]byte(k))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// Content-Security-Policy of the public pages: scripts only from this origin
// (the bundled viewer; no inline script: JSON-LD is a data block, which CSP
// does not govern; 'wasm-unsafe-eval' lets model-viewer compile its bundled
// mesh decoder WebAssembly and allows no JavaScript eval), models and textures from this origin or blob:/data: URLs
// model-viewer makes, and framing forbidden on the share page but allowed
// anywhere for the embed.
const cspBase = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
	"connect-src 'self' data: blob:; worker-src 'self' blob:; font-src 'self'; manifest-src 'self'; media-src 'self' blob:; " +
	"base-uri 'none'; form-action 'none'; object-src 'none'"

// CSPShare and CSPEmbed are the two policies (exported for tests).
const (
	CSPShare = cspBase + "; frame-ancestors 'none'"
	CSPEmbed = cspBase + "; frame-ancestors *"
)

// CSPEmbedFor is the embed page's policy when its publication names the
// sites allowed to frame it (validated origins, see NormalizeEmbedOrigins).
func CSPEmbedFor(origins []string) string {
	if len(origins) == 0 {
		return CSPEmbed
	}
	return cspBase + "; frame-ancestors " + strings.Join(origins, " ")
}

var (
	hdrHTML     = []string{"text/html; charset=utf-8"}
	hdrNoStore  = []string{"private, no-store"}
	hdrCSPShare = []string{CSPShare}
	hdrDeny     = []string{"DENY"}
)

func pageHeaders(w http.ResponseWriter, embed bool, origins []string) {
	// Shared, never-mutated value slices: a page view allocates no header.
	h := w.Header()
	h["Content-Type"] = hdrHTML
	// Every view must reach us to be counted, so no shared cache may keep it.
	h["Cache-Control"] = hdrNoStore
	if embed {
		h.Set("Content-Security-Policy", CSPEmbedFor(origins))
	} else {
		h["Content-Security-Policy"] = hdrCSPShare
		h["X-Frame-Options"] = hdrDeny
	}
}

// ServeViewer answers /v/{slug} (embed=false) and /embed/{slug} (embed=true).
func (p *Pages) ServeViewer(w http.ResponseWriter, r *http.Request, slug string, embed bool) {
	e, err := p.entry(r.Context(), slug)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	pageHeaders(w, embed, e.embedOrigins)
	if e.gone {
		p.gonePage(w, embed)
		return
	}
	if e.missing || e.gallery != nil {
		p.notFound(w, embed)
		return
	}
	// The page itself costs nothing: the viewer's `view` beacon is the
	// counted view (CountView, viewcount.go). The page only checks that the
	// balance can still serve one.
	served := true
	crawler := IsCrawler(r.UserAgent())
	if r.Method == http.MethodGet && !crawler && !isPrefetch(r) { // counts(r), the crawler check done once
		served = p.cfg.Meter.Available(r.Context(), e.ownerID, e.pubID)
	}
	body := e.share
	switch {
	case !served && embed:
		body = e.unavailEmbed
	case !served:
		body = e.unavailShare
	case embed:
		body = e.embed
	}
	if served && e.product != nil {
		deep, ok, err := e.product.variantBody(r.URL.Query().Get("variant"), embed)
		if err != nil {
			p.fail(w, r, err)
			return
		}
		if ok {
			body = deep
		} else if arm, ok := e.product.armBody(w, r, embed, crawler); ok {
			body = arm
		}
	}
	body.write(w, r)
}

var notFoundPage = sync.OnceValues(func() ([2][]byte, error) {
	var out [2][]byte
	v := pageView{Brand: DefaultBrand}
	var err error
	if out[0], err = render("notfound", v); err != nil {
		return out, err
	}
	v.Embed = true
	out[1], err = render("notfound", v)
	return out, err
})

var gonePages = sync.OnceValues(func() ([2][]byte, error) {
	var out [2][]byte
	v := pageView{Brand: DefaultBrand}
	var err error
	if out[0], err = render("gone", v); err != nil {
		return out, err
	}
	v.Embed = true
	out[1], err = render("gone", v)
	return out, err
})

// gonePage answers a page of an account that was deleted: 410 Gone, with a
// notice that names neither the merchant nor why.
func (p *Pages) gonePage(w http.ResponseWriter, embed bool) {
	p.notice(w, embed, gonePages, http.StatusGone)
}

func (p *Pages) notFound(w http.ResponseWriter, embed bool) {
	p.notice(w, embed, notFoundPage, http.StatusNotFound)
}

func (p *Pages) notice(w http.ResponseWriter, embed bool, page func() ([2][]byte, error), status int) {
	pages, err := page()
	if err != nil {
		http.Error(w, http.StatusText(status), status)
		return
	}
	body := pages[0]
	if embed {
		body = pages[1]
	}
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func (p *Pages) fail(w http.ResponseWriter, r *http.Request, err error) {
	p.cfg.Log.Error("public page failed", "path", r.URL.Path, "err", err)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Retry-After", "5")
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = io.WriteString(w, "This 3D view is temporarily unavailable. Please try again in a moment.\n")
}

// Asset kinds served under /v/{slug}/.
const (
	AssetModel  = "model"
	AssetPoster = "poster"
	AssetLogo   = "logo"
	// AssetUSDZ is a variant's Quick Look file (/v/{slug}/ar/{id}.usdz).
	AssetUSDZ = "usdz"
	// AssetCommerce is a variant's commerce GLB (/v/{slug}/ar/{id}.commerce.glb).
	AssetCommerce = "commerce"
)

// ServeAsset streams a publication's model, poster or the owner's logo from
// the bucket. They are not metered (the page view was), are refused once the
// link is unpublished, and the model may only be loaded by pages of this
// origin (no CORS, Cross-Origin-Resource-Policy: same-origin), so other sites
// cannot hotlink it around the metering.
func (p *Pages) ServeAsset(w http.ResponseWriter, r *http.Request, slug, kind string) {
	e, err := p.entry(r.Context(), slug)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	key := ""
	switch kind {
	case AssetModel:
		key = e.modelKey
	case AssetPoster, AssetTeaser:
		key = e.posterKey
	case AssetLogo:
		key = e.logoKey
	}
	if e.missing || key == "" || p.cfg.Bucket == nil {
		http.NotFound(w, r)
		return
	}
	// The teaser is what a gated page shows before the email (teaser.go).
	if kind != AssetLogo && kind != AssetTeaser && !p.gateOpen(r, e) {
		gateClosed(w)
		return
	}
	if kind != AssetLogo && p.cfg.Meter != nil && !p.cfg.Meter.Available(r.Context(), e.ownerID, e.pubID) {
		// The views ran out: the page shows its notice, and the model and
		// poster are not handed out behind its back.
		http.NotFound(w, r)
		return
	}
	if kind == AssetTeaser {
		p.serveTeaser(w, r, e)
		return
	}
	p.stream(w, r, e, key, kind)
}

// stream sends one blob of a live page (model, AR file, poster or logo); a
// missing blob is a 404.
func (p *Pages) stream(w http.ResponseWriter, r *http.Request, e *pageEntry, key, kind string) {
	p.send(w, r, e, key, kind, false)
}

// send is stream; with orMissing a missing blob writes nothing and returns
// false (the caller says why it is missing).
func (p *Pages) send(w http.ResponseWriter, r *http.Request, e *pageEntry, key, kind string, orMissing bool) bool {
	ctype, corp := "", "cross-origin"
	switch kind {
	case AssetModel:
		ctype, corp = "model/gltf-binary", "same-origin"
	case AssetUSDZ:
		// AR Quick Look downloads the file itself (not a page's fetch).
		ctype = usdz.ContentType
	case AssetCommerce:
		// Google's and Shopify's viewers load it from their own origins.
		ctype = "model/gltf-binary"
		w.Header().Set("Access-Control-Allow-Origin", "*")
	}
	rd, err := p.cfg.Bucket.NewReader(r.Context(), key, nil)
	if gcerrors.Code(err) == gcerrors.NotFound {
		if orMissing {
			return false
		}
		http.NotFound(w, r)
		return true
	}
	if err != nil {
		p.fail(w, r, err)
		return true
	}
	defer rd.Close()
	if ctype == "" {
		ctype = rd.ContentType()
	}
	if !strings.HasPrefix(ctype, "image/") && kind != AssetModel && kind != AssetUSDZ && kind != AssetCommerce {
		ctype = "application/octet-stream"
	}
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("Cache-Control", assetCacheControl(e, kind, r.URL.Query().Get("v")))
	// Blob keys are never reused for other bytes (a rebuild writes a new key),
	// so the key is a strong validator: a revisit costs a 304, not the model.
	h.Set("ETag", `"`+assetTag(key)+`"`)
	h.Set("Cross-Origin-Resource-Policy", corp)
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	http.ServeContent(w, r, "", rd.ModTime(), rd)
	return true
}

// ServeQR answers a PNG QR code of the slug's share URL (the desktop "View in
// your space" code and the merchant's Download QR).
func (p *Pages) ServeQR(w http.ResponseWriter, r *http.Request, slug string) {
	e, err := p.entry(r.Context(), slug)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	if e.missing {
		http.NotFound(w, r)
		return
	}
	e.qrOnce.Do(func() {
		link := LinksFor(e.base, slug).Share
		if e.gallery != nil {
			link = GalleryLinksFor(e.base, slug).Share
		}
		e.qr, e.qrErr = QRCode(link)
	})
	if e.qrErr != nil {
		p.fail(w, r, e.qrErr)
		return
	}
	WritePNG(w, r, e.qr)
}

// QRCode renders url as a 512-pixel PNG QR code with medium error correction.
func QRCode(url string) ([]byte, error) {
	png, err := qrcode.Encode(url, qrcode.Medium, 512)
	if err != nil {
		return nil, fmt.Errorf("encode QR code: %w", err)
	}
	return png, nil
}

// WritePNG sends PNG bytes with caching suitable for a link's QR code.
func WritePNG(w http.ResponseWriter, r *http.Request, png []byte) {
	h := w.Header()
	h.Set("Content-Type", "image/png")
	h.Set("Cache-Control", "private, max-age=3600")
	h.Set("Content-Length", strconv.Itoa(len(png)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(png)
	}
}

// clientIP is the connection's address. Behind a proxy every shopper shares
// the proxy's address; deployments put the real address in RemoteAddr with a
// trusted proxy's middleware rather than trusting X-Forwarded-For here.
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
