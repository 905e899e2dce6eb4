package channels

import (
	"context"
	"fmt"
	"io"
	"strings"

	"gocloud.dev/blob"
	"golang.org/x/sync/singleflight"

	"github.com/photo3d/photo3d/internal/channels/usdz"
	"github.com/photo3d/photo3d/internal/glbvariants"
)

// usdzVersion is part of every USDZ key: a change to what the converter
// writes gives new keys, so no device keeps a file built by older code.
const usdzVersion = "1"

// Packager derives a published version's per-channel files from its model
// and keeps them in the blob store next to the variant GLBs, under keys
// made of the model key and the variant (glbvariants.Hash), so each
// (version, variant) is built once and a new version gets new files.
type Packager struct {
	Bucket   *blob.Bucket
	Variants *glbvariants.Cache
	flight   singleflight.Group
}

// NewPackager returns a packager over bucket sharing variants' GLB cache.
func NewPackager(bucket *blob.Bucket, variants *glbvariants.Cache) *Packager {
	if variants == nil {
		variants = glbvariants.NewCache(bucket)
	}
	return &Packager{Bucket: bucket, Variants: variants}
}

// USDZKey returns the blob key of the variant's Quick Look file, building
// it from the variant's AR GLB (its materials baked in) when missing.
func (p *Packager) USDZKey(ctx context.Context, modelKey string, v glbvariants.Variant) (string, error) {
	return p.derived(ctx, modelKey, v, func(arKey string) string {
		return strings.TrimSuffix(arKey, ".glb") + ".v" + usdzVersion + ".usdz"
	}, func(glb []byte) ([]byte, *blob.WriterOptions, error) {
		out, err := usdz.FromGLB(glb)
		return out, &blob.WriterOptions{ContentType: usdz.ContentType, Metadata: map[string]string{metaModel: modelKey}}, err
	})
}

func (p *Packager) read(ctx context.Context, key string) ([]byte, error) {
	r, err := p.Bucket.NewReader(ctx, key, nil)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", key, err)
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, glbvariants.MaxModelBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", key, err)
	}
	return b, nil
}

// commerceVersion is part of every commerce GLB key (see usdzVersion).
const commerceVersion = "1"

// metaNotes is the blob metadata key of a package's notes (what was
// reduced and why), read back by Report.
const metaNotes = "p3d-notes"

// metaModel names the model a channel file was built from, as the variant
// GLBs do (glbvariants): the account's erasure finds its files by it.
const metaModel = "model"

// CommerceKey returns the blob key of the variant's commerce GLB: its AR
// GLB (the variant's materials as defaults, which Google's and Shopify's
// viewers show) fitted to CommerceBudget; built when missing.
func (p *Packager) CommerceKey(ctx context.Context, modelKey string, v glbvariants.Variant) (string, error) {
	return p.derived(ctx, modelKey, v, func(arKey string) string {
		return strings.TrimSuffix(arKey, "ar.glb") + "commerce.v" + commerceVersion + ".glb"
	}, func(glb []byte) ([]byte, *blob.WriterOptions, error) {
		out, notes, err := FitGLB(glb, CommerceBudget)
		return out, &blob.WriterOptions{ContentType: "model/gltf-binary", Metadata: map[string]string{metaNotes: strings.Join(notes, "\n"), metaModel: modelKey}}, err
	})
}

// derived returns the key of a file built from the variant's AR GLB (keyOf
// names it after the AR file's key), building and storing it once when the
// blob store lacks it: concurrent requests for the same key share one build.
func (p *Packager) derived(ctx context.Context, modelKey string, v glbvariants.Variant, keyOf func(arKey string) string,
	build func(glb []byte) ([]byte, *blob.WriterOptions, error)) (string, error) {
	arKey, err := p.Variants.ARKey(ctx, modelKey, v)
	if err != nil {
		return "", err
	}
	key := keyOf(arKey)
	_, err, _ = p.flight.Do(key, func() (any, error) {
		ok, err := p.Bucket.Exists(ctx, key)
		if err != nil || ok {
			return nil, err
		}
		glb, err := p.read(ctx, arKey)
		if err != nil {
			return nil, err
		}
		out, opts, err := build(glb)
		if err != nil {
			return nil, fmt.Errorf("build %s: %w", key, err)
		}
		if err := p.Bucket.WriteAll(ctx, key, out, opts); err != nil {
			return nil, fmt.Errorf("store %s: %w", key, err)
		}
		return nil, nil
	})
	return key, err
}

// Asset is one channel file of a product, as the Channels panel shows it.
type Asset struct {
	Channel   string   `json:"channel"` // web, commerce, quick-look
	Label     string   `json:"label"`
	VariantID string   `json:"variantId,omitempty"`
	Format    string   `json:"format"` // glb, usdz
	Bytes     int64    `json:"bytes"`
	WarnBytes int64    `json:"warnBytes"`
	MaxBytes  int64    `json:"maxBytes"`
	Status    string   `json:"status"` // green, amber, red
	Notes     []string `json:"notes"`
	Source    string   `json:"source"` // where the budget comes from
}

// Report builds (when missing) and measures every channel file of a
// model and its variants: the web configurator GLB, then per variant the
// commerce GLB and the Quick Look USDZ.
func (p *Packager) Report(ctx context.Context, modelKey string, vs []glbvariants.Variant, names map[string]string) ([]Asset, error) {
	web, err := p.Variants.ConfiguratorKey(ctx, modelKey, vs)
	if err != nil {
		return nil, err
	}
	out := []Asset{}
	a, err := p.measure(ctx, web, WebBudget)
	if err != nil {
		return nil, err
	}
	a.Channel, a.Label, a.Format = "web", "Web viewer (share page, embed, oEmbed)", "glb"
	out = append(out, a)
	for _, v := range vs {
		ck, err := p.CommerceKey(ctx, modelKey, v)
		if err != nil {
			return nil, err
		}
		a, err := p.measure(ctx, ck, CommerceBudget)
		if err != nil {
			return nil, err
		}
		a.Channel, a.Label, a.Format, a.VariantID = "commerce", "Google Shopping & Shopify 3D model · "+names[v.ID], "glb", v.ID
		out = append(out, a)
		uk, err := p.USDZKey(ctx, modelKey, v)
		if err != nil {
			return nil, err
		}
		if a, err = p.measure(ctx, uk, QuickLookBudget); err != nil {
			return nil, err
		}
		a.Channel, a.Label, a.Format, a.VariantID = "quick-look", "iPhone AR Quick Look · "+names[v.ID], "usdz", v.ID
		out = append(out, a)
	}
	return out, nil
}

func (p *Packager) measure(ctx context.Context, key string, b Budget) (Asset, error) {
	attrs, err := p.Bucket.Attributes(ctx, key)
	if err != nil {
		return Asset{}, fmt.Errorf("read %s: %w", key, err)
	}
	a := Asset{Bytes: attrs.Size, WarnBytes: b.WarnBytes, MaxBytes: b.MaxBytes, Status: b.Status(attrs.Size), Notes: []string{}, Source: b.Source}
	if n := attrs.Metadata[metaNotes]; n != "" {
		a.Notes = strings.Split(n, "\n")
	}
	return a, nil
}
