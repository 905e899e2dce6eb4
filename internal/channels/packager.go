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
	arKey, err := p.Variants.ARKey(ctx, modelKey, v)
	if err != nil {
		return "", err
	}
	key := strings.TrimSuffix(arKey, ".glb") + ".v" + usdzVersion + ".usdz"
	_, err, _ = p.flight.Do(key, func() (any, error) {
		ok, err := p.Bucket.Exists(ctx, key)
		if err != nil || ok {
			return nil, err
		}
		glb, err := p.read(ctx, arKey)
		if err != nil {
			return nil, err
		}
		out, err := usdz.FromGLB(glb)
		if err != nil {
			return nil, fmt.Errorf("build %s: %w", key, err)
		}
		if err := p.Bucket.WriteAll(ctx, key, out, &blob.WriterOptions{ContentType: usdz.ContentType}); err != nil {
			return nil, fmt.Errorf("store %s: %w", key, err)
		}
		return nil, nil
	})
	return key, err
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
