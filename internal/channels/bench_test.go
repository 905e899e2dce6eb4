package channels_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/channels"
	"github.com/photo3d/photo3d/internal/channels/usdz"
	"github.com/photo3d/photo3d/internal/glbvariants"
	"github.com/photo3d/photo3d/internal/reconstruct"
)

// BenchmarkPackageOneProduct measures what packaging one product variant
// costs: from the product's model (the built-in reconstructor's output for
// a 512 px photo) to the variant's AR GLB, its commerce GLB (FitGLB against
// the commerce budget) and its Quick Look USDZ. Sizes are reported as
// metrics (docs/incoming/channels.md has the figures).
func BenchmarkPackageOneProduct(b *testing.B) {
	res, err := reconstruct.NewBuiltin().Reconstruct(context.Background(), photo(b, 512), reconstruct.Options{}, nil)
	require.NoError(b, err)
	v := glbvariants.Variant{ID: "v2", Material: "leather-tan"}
	var ar, commerce, pkg []byte
	b.ReportAllocs()
	for b.Loop() {
		if ar, err = glbvariants.AR(res.GLB, v); err != nil {
			b.Fatal(err)
		}
		if commerce, _, err = channels.FitGLB(ar, channels.CommerceBudget); err != nil {
			b.Fatal(err)
		}
		if pkg, err = usdz.FromGLB(ar); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(res.GLB)), "model-bytes")
	b.ReportMetric(float64(len(commerce)), "commerce-glb-bytes")
	b.ReportMetric(float64(len(pkg)), "usdz-bytes")
	b.ReportMetric(float64(res.Stats.Triangles), "triangles")
}

// BenchmarkUSDZ is the USDZ conversion alone, the part a phone no longer
// does at tap time.
func BenchmarkUSDZ(b *testing.B) {
	res, err := reconstruct.NewBuiltin().Reconstruct(context.Background(), photo(b, 512), reconstruct.Options{}, nil)
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := usdz.FromGLB(res.GLB); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFitOverBudget is the worst case the packager meets: a model
// over its budget, reduced (texture resize, then simplification) to fit.
func BenchmarkFitOverBudget(b *testing.B) {
	res, err := reconstruct.NewBuiltin().Reconstruct(context.Background(), photo(b, 512), reconstruct.Options{}, nil)
	require.NoError(b, err)
	budget := channels.Budget{WarnBytes: int64(len(res.GLB)) / 3, MaxBytes: int64(len(res.GLB)) / 3, MaxTexture: 256}
	b.ReportAllocs()
	var out []byte
	for b.Loop() {
		if out, _, err = channels.FitGLB(res.GLB, budget); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(res.GLB)), "in-bytes")
	b.ReportMetric(float64(len(out)), "out-bytes")
}
