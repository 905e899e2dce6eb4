package publish

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	_ "image/png" // posters are PNGs (thumbnail.png)
	"io"
	"net/http"
	"strconv"
	"sync"

	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp" // and may be WebP
)

// The email gate's teaser (issue 29 item 19). A gated page must not hand out
// its poster: the poster is a picture of the model, the very thing the gate
// trades for an email (security review 2, item 9). But a gate card on an
// empty white page tells the shopper nothing about what they would unlock.
// So the gated page shows, behind its card, a teaser made on the server from
// the poster: at most TeaserMaxSide pixels on its long side, enough to show
// the product's colours and outline once the browser scales and blurs it,
// far too little to be a usable picture. It is served at
// /v/{slug}/teaser.jpg without the gate token and follows every other rule
// of the poster: 404 for a page that is unpublished, deleted or whose owner
// is erased, 404 once the owner's views ran out, and not counted as a view.

// TeaserMaxSide is the teaser's long side in pixels.
const TeaserMaxSide = 32

// teaserQuality is the teaser's JPEG quality: the page blurs it anyway.
const teaserQuality = 60

// maxPosterBytes and maxPosterPixels bound what a teaser is made from: our
// posters are a few hundred kilobytes and about a megapixel.
const (
	maxPosterBytes  = 16 << 20
	maxPosterPixels = 4096 * 4096
)

// maxTeasers bounds the teasers kept in memory (about 1 KB each); the cache
// starts afresh when full.
const maxTeasers = 4096

// AssetTeaser is the gate's teaser of the poster (/v/{slug}/teaser.jpg).
const AssetTeaser = "teaser"

// teaserCache keeps teasers by poster key: a blob key never names other
// bytes (a rebuild writes a new key), so a teaser never goes stale.
type teaserCache struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (c *teaserCache) get(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.m[key]
	return b, ok
}

func (c *teaserCache) put(key string, b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxTeasers {
		c.m = map[string][]byte{}
	}
	c.m[key] = b
}

// MakeTeaser turns a poster (PNG, JPEG or WebP) into the gate's teaser: a
// JPEG at most TeaserMaxSide pixels on its long side, transparent areas on
// white.
func MakeTeaser(poster []byte) ([]byte, error) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(poster))
	if err != nil {
		return nil, fmt.Errorf("read poster header: %w", err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width*cfg.Height > maxPosterPixels {
		return nil, fmt.Errorf("poster of %d×%d pixels is not made into a teaser", cfg.Width, cfg.Height)
	}
	src, _, err := image.Decode(bytes.NewReader(poster))
	if err != nil {
		return nil, fmt.Errorf("decode poster: %w", err)
	}
	w, h := teaserSize(cfg.Width, cfg.Height)
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(dst, dst.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	// CatmullRom widens its kernel with the reduction, so every source pixel
	// counts (a nearest-neighbour pick would keep sharp single pixels).
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Over, nil)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, dst, &jpeg.Options{Quality: teaserQuality}); err != nil {
		return nil, fmt.Errorf("encode teaser: %w", err)
	}
	return buf.Bytes(), nil
}

// teaserSize fits w×h into TeaserMaxSide on the long side, keeping the
// aspect ratio (never below one pixel, never enlarged).
func teaserSize(w, h int) (int, int) {
	long := max(w, h)
	if long <= TeaserMaxSide {
		return w, h
	}
	return max(1, (w*TeaserMaxSide+long/2)/long), max(1, (h*TeaserMaxSide+long/2)/long)
}

// teaser returns the teaser of a poster key, made once per key.
func (p *Pages) teaser(ctx context.Context, key string) ([]byte, error) {
	if b, ok := p.teasers.get(key); ok {
		return b, nil
	}
	v, err, _ := p.flight.Do("teaser "+key, func() (any, error) {
		rd, err := p.cfg.Bucket.NewReader(context.WithoutCancel(ctx), key, nil)
		if err != nil {
			return nil, err
		}
		defer rd.Close()
		raw, err := io.ReadAll(io.LimitReader(rd, maxPosterBytes+1))
		if err != nil {
			return nil, fmt.Errorf("read poster %s: %w", key, err)
		}
		if len(raw) > maxPosterBytes {
			return nil, fmt.Errorf("poster %s is over %d bytes", key, maxPosterBytes)
		}
		b, err := MakeTeaser(raw)
		if err != nil {
			return nil, fmt.Errorf("teaser of %s: %w", key, err)
		}
		p.teasers.put(key, b)
		return b, nil
	})
	if err != nil {
		return nil, err
	}
	return v.([]byte), nil
}

// serveTeaser sends a page's teaser (ServeAsset has checked the page).
func (p *Pages) serveTeaser(w http.ResponseWriter, r *http.Request, e *pageEntry) {
	b, err := p.teaser(r.Context(), e.posterKey)
	if err != nil {
		// A poster that is gone or cannot be read has no teaser; the page's
		// script hides the missing picture and the card stays on its own.
		p.cfg.Log.Warn("no teaser for the gate", "slug", e.slug, "err", err)
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "image/jpeg")
	h.Set("Cache-Control", assetCacheControl(e, AssetPoster, r.URL.Query().Get("v")))
	h.Set("ETag", `"`+assetTag(e.posterKey, "teaser")+`"`)
	h.Set("Cross-Origin-Resource-Policy", "cross-origin")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	if match := r.Header.Get("If-None-Match"); match != "" && match == h.Get("ETag") {
		h.Del("Content-Length")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(b)
	}
}
