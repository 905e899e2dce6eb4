package publish

import (
	"context"
	"image"
	_ "image/jpeg" // posters may be JPEG
	_ "image/png"  // or PNG
	"net/url"
)

// EmbedInfo is what an oEmbed answer (internal/channels/oembed) needs of a
// live public page: nothing a shopper could not read on the page itself.
type EmbedInfo struct {
	Slug      string
	Title     string
	BrandName string
	ShareURL  string
	EmbedURL  string
	// Thumbnail is the poster's absolute URL and size; empty when the page
	// has none or hides it behind the email gate.
	ThumbnailURL    string
	ThumbnailWidth  int
	ThumbnailHeight int
}

// BaseURL is the public origin the pages are served on (PUBLIC_BASE_URL).
func (p *Pages) BaseURL() string { return p.cfg.BaseURL }

// OEmbedURL is the discovery URL of a share page: what its
// <link rel="alternate" type="application/json+oembed"> names.
func OEmbedURL(baseURL, shareURL string) string {
	return baseURL + "/oembed?url=" + url.QueryEscape(shareURL) + "&format=json"
}

// EmbedInfo describes slug's page for an oEmbed consumer. ok is false when
// the page would answer 404 or the owner's views ran out: a consumer must
// not be handed an embed that can only show "unavailable".
func (p *Pages) EmbedInfo(ctx context.Context, slug string) (EmbedInfo, bool, error) {
	e, err := p.entry(ctx, slug)
	if err != nil {
		return EmbedInfo{}, false, err
	}
	if e.missing {
		return EmbedInfo{}, false, nil
	}
	if p.cfg.Meter != nil && !p.cfg.Meter.Available(ctx, e.ownerID, e.pubID) {
		return EmbedInfo{}, false, nil
	}
	links := LinksFor(p.cfg.BaseURL, slug)
	info := EmbedInfo{Slug: slug, Title: e.title, BrandName: e.brandName, ShareURL: links.Share, EmbedURL: links.Embed}
	gated := e.product != nil && e.product.requireEmail
	if e.posterKey != "" && !gated && p.cfg.Bucket != nil {
		e.thumbOnce.Do(func() { e.thumbW, e.thumbH = p.posterSize(ctx, e.posterKey) })
		if e.thumbW > 0 {
			info.ThumbnailURL = p.cfg.BaseURL + "/v/" + slug + "/poster.png?v=" + e.tag
			info.ThumbnailWidth, info.ThumbnailHeight = e.thumbW, e.thumbH
		}
	}
	return info, true, nil
}

// posterSize reads only the poster's header; 0, 0 when it cannot be read
// (the answer then names no thumbnail, as oEmbed requires sizes with one).
func (p *Pages) posterSize(ctx context.Context, key string) (int, int) {
	r, err := p.cfg.Bucket.NewReader(context.WithoutCancel(ctx), key, nil)
	if err != nil {
		return 0, 0
	}
	defer r.Close()
	c, _, err := image.DecodeConfig(r)
	if err != nil {
		return 0, 0
	}
	return c.Width, c.Height
}
