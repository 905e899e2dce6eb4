package publish

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"net/http"
	"slices"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/catalog"
)

// Experiments on a product page (issue 52): the page renders each arm once,
// with that arm's preset and a <meta name="p3d-arm">, and picks a shopper's
// arm in the request from a first-party cookie, so assignment costs no round
// trip and the page never shifts after load. The arm is a hash of the viewer
// id and the experiment id: the same viewer always gets the same arm, on
// every api instance and across restarts, and the server recomputes it for
// every beacon, click and lead (ArmFor), so a shopper cannot choose their arm.
// Crawlers and Do-Not-Track viewers get the page as it is, set no cookie and
// are not counted; so are shoppers outside the traffic share.

// ViewerCookie is the first-party viewer id the page sets and the viewer
// script uses as its beacon viewer id (web/src/public-viewer/viewer-id.ts).
const ViewerCookie = "p3d_vid"

// The viewer cookie's attributes: a year, as analytics tools keep a visitor;
// first-party (Lax), or partitioned for an embed on a shop's https page.
const (
	cookieLax         = "; Path=/; Max-Age=31536000; SameSite=Lax"
	cookiePartitioned = "; Path=/; Max-Age=31536000; Secure; SameSite=None; Partitioned"
)

// experimentEntry is a page's running experiment with each arm's pages.
type experimentEntry struct {
	id     string
	share  float64
	arms   []string      // arm ids, control first
	bodies [][2]pageBody // per arm: share, embed
}

// loadExperiment reads the publication's running experiment (nil: none).
func (p *Pages) loadExperiment(ctx context.Context, pubID string) (string, float64, []events.ExperimentArm, error) {
	if p.cfg.DB == nil {
		return "", 0, nil, nil
	}
	var id string
	var share float64
	var raw []byte
	err := p.cfg.DB.QueryRow(ctx, `SELECT id, traffic_share, arms FROM experiments WHERE publication_id = $1 AND state = 'running'`, pubID).
		Scan(&id, &share, &raw)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", 0, nil, nil
	}
	if err != nil {
		return "", 0, nil, fmt.Errorf("read experiment: %w", err)
	}
	var arms []events.ExperimentArm
	if err := json.Unmarshal(raw, &arms); err != nil {
		return "", 0, nil, fmt.Errorf("read experiment arms: %w", err)
	}
	return id, share, arms, nil
}

// renderArms renders each arm's share and embed pages from the product's page
// view v: the arm's presets, hotspots and opening variant, and its meta tag.
func renderArms(v pageView, id string, share float64, arms []events.ExperimentArm) (*experimentEntry, error) {
	x := &experimentEntry{id: id, share: share}
	for _, a := range arms {
		pv := *v.Product
		pv.Lighting, pv.Background, pv.BackgroundCol = a.Preset.Lighting, a.Preset.Background, a.Preset.BackgroundColor
		pv.CameraOrbit, pv.Autospin = catalog.PublicCameraOrbit(a.Preset.CameraOrbit), a.Preset.Autospin
		if a.Preset.Exposure > 0 {
			pv.Exposure = exposureAttr(a.Preset.Exposure)
		}
		if a.Preset.Poster != "" {
			pv.NoPoster = a.Preset.Poster == catalog.PosterNone
		}
		if a.Preset.HotspotIDs != nil {
			pv.Hotspots = slices.DeleteFunc(slices.Clone(pv.Hotspots), func(h hotspotView) bool { return !slices.Contains(a.Preset.HotspotIDs, h.ID) })
		}
		data := maps(pv.Data)
		data["lighting"] = pv.Lighting
		if i := slices.IndexFunc(pv.Variants, func(x variantView) bool { return x.ID == a.Preset.DefaultVariantID }); i >= 0 {
			pv.Current = pv.Variants[i]
			data["initialVariant"] = pv.Current.ID
		}
		pv.Data = data
		av := v
		av.Product, av.Arm, av.Embed = &pv, a.ArmID, false
		sb, err := renderBody("product-share", av)
		if err != nil {
			return nil, err
		}
		av.Embed = true
		eb, err := renderBody("product-embed", av)
		if err != nil {
			return nil, err
		}
		x.arms = append(x.arms, a.ArmID)
		x.bodies = append(x.bodies, [2]pageBody{sb, eb})
	}
	return x, nil
}

// assign is the arm index a viewer gets in an experiment, or -1 outside its
// traffic share: the first 8 bytes of SHA-256(experiment id, viewer id) decide
// whether the viewer is in, the next 8 which arm, so the two are independent.
func assign(experimentID, viewer string, share float64, arms int) int {
	if arms == 0 {
		return -1
	}
	h := sha256.Sum256([]byte(experimentID + "\x00" + viewer))
	in := float64(binary.BigEndian.Uint64(h[:8])>>11) / (1 << 53)
	if in >= share {
		return -1
	}
	return int(binary.BigEndian.Uint64(h[8:16]) % uint64(arms))
}

// ArmFor is the arm id the slug's page shows viewer ("": none). Beacons,
// clicks and leads record it (analytics.Publications.Arm).
func (p *Pages) ArmFor(ctx context.Context, slug, viewer string) string {
	if !validViewerID(viewer) {
		return ""
	}
	e, err := p.entry(ctx, slug)
	if err != nil || e.product == nil || e.product.exp == nil {
		return ""
	}
	x := e.product.exp
	if i := assign(x.id, viewer, x.share, len(x.arms)); i >= 0 {
		return x.arms[i]
	}
	return ""
}

// armBody is the page of the viewer's arm; ok is false for a page without an
// experiment, a crawler, a Do-Not-Track viewer or one outside the traffic
// share, who get the page as it is. A viewer without the cookie gets one.
func (pe *productEntry) armBody(w http.ResponseWriter, r *http.Request, embed, crawler bool) (pageBody, bool) {
	x := pe.exp
	if x == nil || crawler || doNotTrack(r) {
		return pageBody{}, false
	}
	viewer := ""
	if c, err := r.Cookie(ViewerCookie); err == nil && validViewerID(c.Value) {
		viewer = c.Value
	} else {
		viewer = newViewerID()
		// Written by hand, not with http.SetCookie: this runs for every first
		// visit of a page under test, and the id needs no validation.
		attrs := cookieLax
		if embed && r.TLS != nil {
			// Inside a shop's page the cookie is a third-party one: partitioned
			// (CHIPS), it still keeps the shopper's arm on that shop's site.
			attrs = cookiePartitioned
		}
		w.Header()["Set-Cookie"] = []string{ViewerCookie + "=" + viewer + attrs}
	}
	i := assign(x.id, viewer, x.share, len(x.arms))
	if i < 0 {
		return pageBody{}, false
	}
	which := 0
	if embed {
		which = 1
	}
	return x.bodies[i][which], true
}

// doNotTrack: the shopper asked not to be tracked (DNT or Global Privacy Control).
// The header map is read with its canonical keys: Get would canonicalise "DNT"
// into a new string on every request.
func doNotTrack(r *http.Request) bool {
	return first(r.Header["Dnt"]) == "1" || first(r.Header["Sec-Gpc"]) == "1"
}

func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// validViewerID is the beacon's viewer id shape (analytics: 16–64 of
// [A-Za-z0-9_-]), the very shape of a slug.
func validViewerID(s string) bool { return validSlug(s) }

// newViewerID is a random viewer id: 16 bytes, base64url (22 characters), from
// a per-process ChaCha8 stream seeded from the system's random source. The id
// is no secret (the page's script sends it with every beacon) and needs only to
// be unique; a system call for each first visit cost more than the page's
// template work.
func newViewerID() string {
	var b [16]byte
	idMu.Lock()
	_, _ = idSource.Read(b[:])
	idMu.Unlock()
	return base64.RawURLEncoding.EncodeToString(b[:])
}

var (
	idMu     sync.Mutex
	idSource = func() *mrand.ChaCha8 {
		var seed [32]byte
		_, _ = rand.Read(seed[:])
		return mrand.NewChaCha8(seed)
	}()
)
