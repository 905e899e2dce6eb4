package catalog

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/singleflight"

	"github.com/photo3d/photo3d/internal/reconstruct"
)

// The two checks that read the model (variants build from it, hotspots lie on
// it) cost a model read and a walk of every triangle; the others read only
// the configuration. Their result is cached per (model, variants + hotspots):
// a model's key names its content, so a new model or an edited variant or
// hotspot is a new entry and nothing needs invalidating. Concurrent requests
// for one entry share one computation, and at most modelChecksParallel run
// at once per process (issue 28 item 1: four parallel checks calls on a
// crafted model drove the api to 4.1 GB).

// modelChecksParallel bounds concurrent model analyses per process.
const modelChecksParallel = 2

// modelChecksEntries bounds the cache (each entry is two short strings).
const modelChecksEntries = 1024

type modelChecks struct{ variants, hotspots Check }

type checksCache struct {
	mu       sync.Mutex
	entries  map[string]modelChecks
	order    []string // insertion order, for eviction
	flight   singleflight.Group
	slots    chan struct{}
	analyses atomic.Int64
}

func newChecksCache() *checksCache {
	return &checksCache{entries: map[string]modelChecks{}, slots: make(chan struct{}, modelChecksParallel)}
}

func (c *checksCache) get(key string) (modelChecks, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, ok := c.entries[key]
	return m, ok
}

func (c *checksCache) put(key string, m modelChecks) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[key]; ok {
		return
	}
	if len(c.order) >= modelChecksEntries {
		delete(c.entries, c.order[0])
		c.order = c.order[1:]
	}
	c.entries[key] = m
	c.order = append(c.order, key)
}

// ModelAnalyses is how many times the checks read and walked a model since
// the service started (the rest were answered from the cache).
func (s *Service) ModelAnalyses() int64 { return s.checks.analyses.Load() }

// modelChecks returns the variants and hotspots checks of a product with a
// ready model, from the cache when this model and configuration were checked.
func (s *Service) modelChecks(ctx context.Context, p Product) (modelChecks, error) {
	sum, err := json.Marshal(struct {
		V []Variant `json:"v"`
		H []Hotspot `json:"h"`
	}{p.Config.Variants, p.Config.Hotspots})
	if err != nil {
		return modelChecks{}, fmt.Errorf("hash checks config: %w", err)
	}
	h := sha256.Sum256(sum)
	key := p.ModelKey + "\x00" + hex.EncodeToString(h[:])
	if m, ok := s.checks.get(key); ok {
		return m, nil
	}
	v, err, _ := s.checks.flight.Do(key, func() (any, error) {
		if m, ok := s.checks.get(key); ok {
			return m, nil
		}
		select {
		case s.checks.slots <- struct{}{}:
			defer func() { <-s.checks.slots }()
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		s.checks.analyses.Add(1)
		glb, err := s.readModel(ctx, p)
		if err != nil {
			return nil, err
		}
		tris, err := reconstruct.ModelTriangles(glb)
		if err != nil {
			return nil, fmt.Errorf("read model of product %s: %w", p.ID, err)
		}
		m := modelChecks{variants: variantsCheck(p.Config, glb), hotspots: hotspotsCheck(p.Config, tris, true)}
		s.checks.put(key, m)
		return m, nil
	})
	if err != nil {
		return modelChecks{}, err
	}
	return v.(modelChecks), nil
}
