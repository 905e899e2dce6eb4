package glbvariants

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"

	"gocloud.dev/blob"
	"golang.org/x/sync/singleflight"

	"github.com/photo3d/photo3d/internal/worklimit"
)

// builderVersion is part of every cache key: changing what the builder
// writes (a material's look, the mapping rules) must change the keys, so
// browsers and the bucket never serve a GLB built by older code.
const builderVersion = "1"

// Cache builds the GLBs once per (model, configuration) and keeps them in
// the blob store under keys derived from a hash of both, so a new
// configuration gets a new URL (the browser refetches) and an unchanged one
// is served without rebuilding. Keys are never overwritten with other bytes.
type Cache struct {
	Bucket *blob.Bucket
	flight singleflight.Group
	// limit bounds the builds this cache runs for requests (nil: none, as
	// in the worker); a build past it fails with worklimit.ErrBusy.
	limit *worklimit.Limiter
}

// NewCache returns a cache over bucket.
func NewCache(bucket *blob.Bucket) *Cache { return &Cache{Bucket: bucket} }

// WithLimit makes every build this cache runs take a slot of l first: the
// api's process-wide bound on heavy work done inside requests (a build
// reads the whole model and writes a copy of it).
func (c *Cache) WithLimit(l *worklimit.Limiter) *Cache {
	c.limit = l
	return c
}

// Hash is the content tag of a model key and variants: what the cache keys
// (and so the URLs) are made of.
func Hash(modelKey string, vs []Variant) string {
	type canon struct {
		ID, Material string
		Parts        [][2]string
	}
	cs := make([]canon, len(vs))
	for i, v := range vs {
		cs[i] = canon{ID: v.ID, Material: v.Material}
		for _, k := range slices.Sorted(maps.Keys(v.Parts)) {
			cs[i].Parts = append(cs[i].Parts, [2]string{k, v.Parts[k]})
		}
	}
	b, _ := json.Marshal(struct {
		V, Model string
		Variants []canon
	}{builderVersion, modelKey, cs})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:32]
}

// ConfiguratorKey returns the blob key of modelKey's configurator GLB for
// vs, building and storing it first when it is not there yet.
func (c *Cache) ConfiguratorKey(ctx context.Context, modelKey string, vs []Variant) (string, error) {
	key := ConfiguratorKeyOf(modelKey, vs)
	return key, c.ensure(ctx, key, modelKey, func(model []byte) ([]byte, error) { return Configurator(model, vs) })
}

// ConfiguratorKeyOf is the blob key ConfiguratorKey builds, without building.
func ConfiguratorKeyOf(modelKey string, vs []Variant) string {
	return "variants/" + Hash(modelKey, vs) + "/model.glb"
}

// ARKeyOf is the blob key of modelKey's AR GLB for v. The file is built by
// the worker with the variant's channel files (internal/publish,
// channel_files), never in a request: it is a full copy of the model per
// variant (security review 3, item H1).
func ARKeyOf(modelKey string, v Variant) string {
	return "variants/" + Hash(modelKey, []Variant{v}) + "/ar.glb"
}

// ModelMetadata is the blob metadata of every file built from modelKey:
// erasing the model's owner finds the files by it (internal/privacy).
func ModelMetadata(modelKey string) map[string]string { return map[string]string{"model": modelKey} }

func (c *Cache) ensure(ctx context.Context, key, modelKey string, build func([]byte) ([]byte, error)) error {
	_, err, _ := c.flight.Do(key, func() (any, error) {
		ok, err := c.Bucket.Exists(ctx, key)
		if err != nil {
			return nil, fmt.Errorf("look up %s: %w", key, err)
		}
		if ok {
			return nil, nil
		}
		return nil, c.limit.Do(ctx, func() error {
			model, err := c.read(ctx, modelKey)
			if err != nil {
				return err
			}
			out, err := build(model)
			if err != nil {
				return fmt.Errorf("build %s from %s: %w", key, modelKey, err)
			}
			// The source model is recorded so that erasing its owner finds
			// the variant files built from it (internal/privacy).
			opts := &blob.WriterOptions{ContentType: "model/gltf-binary", Metadata: ModelMetadata(modelKey)}
			if err := c.Bucket.WriteAll(ctx, key, out, opts); err != nil {
				return fmt.Errorf("store %s: %w", key, err)
			}
			return nil
		})
	})
	return err
}

func (c *Cache) read(ctx context.Context, key string) ([]byte, error) {
	r, err := c.Bucket.NewReader(ctx, key, nil)
	if err != nil {
		return nil, fmt.Errorf("open model %s: %w", key, err)
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, MaxModelBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read model %s: %w", key, err)
	}
	return b, nil
}
