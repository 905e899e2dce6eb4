package jpegscale

import (
	"image"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// The block store's shortcuts (a flat block filled with one value, empty rows
// skipped by the row transform, 2×2 boxes unrolled) must give exactly the
// pixels the plain path gives: dequantize all 64 coefficients, transform
// in full, then clip (1/1) or box-average (1/2, 1/4). The plain path is kept
// here as the reference, with the row transform as it was before the
// empty-row skip.

// TestFlatLevelMatchesIDCT: for every DC value a JPEG can produce around
// zero (and a spread of the rest of int32, which a hostile file can reach
// through wrapping), the full transform of a DC-only block is flatLevel at
// all 64 samples.
func TestFlatLevelMatchesIDCT(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	check := func(dc int32) {
		var b block
		b[0] = dc
		refIDCT(&b)
		want := flatLevel(dc)
		for i, v := range b {
			if v != want {
				t.Fatalf("dc %d: sample %d is %d, flatLevel %d", dc, i, v, want)
			}
		}
	}
	for dc := int32(-1 << 19); dc <= 1<<19; dc++ {
		check(dc)
	}
	for range 200000 {
		check(int32(rng.Uint32()))
	}
	for _, dc := range []int32{math.MinInt32, math.MinInt32 + 1, math.MaxInt32, math.MaxInt32 - 1} {
		check(dc)
	}
}

// TestReconstructBlockMatchesReference: random blocks (flat, sparse low
// frequencies as in smooth photos, dense, with empty rows between full ones)
// with random quantisation tables give the reference's pixels at 1/1, 1/2,
// 1/4 and 1/8.
func TestReconstructBlockMatchesReference(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	for iter := range 40000 {
		var coef, qt block
		for i := range qt {
			qt[i] = 1 + rng.Int32N(255)
		}
		coef[0] = rng.Int32N(4096) - 2048
		switch iter % 4 {
		case 0: // flat
		case 1: // a few low frequencies
			for range 1 + rng.IntN(6) {
				coef[unzig[1+rng.IntN(14)]] = rng.Int32N(64) - 32
			}
		case 2: // dense
			for i := 1; i < blockSize; i++ {
				coef[i] = rng.Int32N(256) - 128
			}
		case 3: // some rows empty
			for i := 1; i < blockSize; i++ {
				if (i/8)%2 == 1 {
					coef[i] = rng.Int32N(512) - 256
				}
			}
		}
		// coef is in natural order; the decoder dequantizes b[unzig[zig]] by qt[zig].
		for shift := range 4 {
			bs := 8 >> shift
			d := &decoder{nComp: 1, shift: shift, img1: image.NewGray(image.Rect(0, 0, bs, bs))}
			d.quant[0] = qt
			b := coef
			require.NoError(t, d.reconstructBlock(&b, 0, 0, 0))
			want := refReconstruct(coef, &qt, shift)
			require.Equal(t, want, d.img1.Pix, "iter %d shift %d", iter, shift)
		}
	}
}

// refReconstruct is the plain path: the block's (8>>shift)² pixels.
func refReconstruct(b block, qt *block, shift int) []uint8 {
	for zig := range blockSize {
		b[unzig[zig]] *= qt[zig]
	}
	bs := 8 >> shift
	out := make([]uint8, bs*bs)
	if shift == 3 {
		out[0] = clampLevel((b[0] + 4) >> 3)
		return out
	}
	refIDCT(&b)
	n := 1 << shift
	area := int32(n * n)
	for y := range bs {
		for x := range bs {
			var sum int32
			for yy := range n {
				for xx := range n {
					sum += b[(y*n+yy)*8+x*n+xx]
				}
			}
			if sum >= 0 {
				sum = (sum + area/2) / area
			} else {
				sum = (sum - area/2) / area
			}
			out[y*bs+x] = clampLevel(sum)
		}
	}
	return out
}

func refIDCT(b *block) {
	refIdctRows(b)
	idctCols(b)
}

// idctRows applies the 1D IDCT to the rows of b.
// Inputs are UQ8.0; outputs are Q9.20.
func refIdctRows(b *block) {
	for i := range 8 {
		x := b[8*i : 8*i+8 : 8*i+8]
		x0 := x[0]
		x7 := x[1]
		x2 := x[2]
		x5 := x[3]
		x1 := x[4]
		x6 := x[5]
		x3 := x[6]
		x4 := x[7]

		// Run FDCT backward.
		// Independent operations have been reordered somewhat
		// to make precision tracking easier.
		//
		// Note that “x0, x1 = x0+x1, x0-x1” is now a reverse butterfly
		// and carries with it an implicit divide by two: the extra bit
		// is added to the precision, not the value size.

		// x[01234567] are UQ8.0 in [0, 255].

		// Stages 4, 3, 2: x0, x1, x2, x3.

		x0 <<= 17
		x1 <<= 17
		// x0, x1 now UQ8.17.
		x0, x1 = x0+x1, x0-x1
		// x0 now UQ8.18 in [0, 255].
		// x1 now Q7.18 in [-127½, 127½].

		// Note: (1/sqrt 2)*((cos 6*pi/16)+(sin 6*pi/16)) < 0.924, so no new high bit.
		x2, x3 = dctBox(x2, x3, c(sqrt2inv_cos6, 18), -c(sqrt2inv_sin6, 18))
		// x[23] now Q8.18 in [-236, 236].
		x1, x2 = x1+x2, x1-x2
		x0, x3 = x0+x3, x0-x3
		// x[0123] now Q8.19 in [-246, 246].

		// Stages 4, 3, 2: x4, x5, x6, x7.

		x4 <<= 7
		x7 <<= 7
		// x[47] now UQ8.7
		x7, x4 = x7+x4, x7-x4
		// x7 now UQ8.8 in [0, 255].
		// x4 now Q7.8 in [-127½, 127½].

		x6 = x6 * c(sqrt2inv, 8)
		x5 = x5 * c(sqrt2inv, 8)
		// x[56] now UQ8.8 in [0, 181].
		// Note that 1/√2 has five 0s in its binary representation after
		// the 8th bit, so this multipliy is actually producing 12 bits of precision.

		x7, x5 = x7+x5, x7-x5
		x4, x6 = x4+x6, x4-x6
		// x[4567] now Q8.9 in [-218, 218].

		x4, x7 = dctBox(x4>>2, x7>>2, c(cos3, 12), -c(sin3, 12))
		x5, x6 = dctBox(x5>>2, x6>>2, c(cos1, 12), -c(sin1, 12))
		// x[4567] now Q9.19 in [-303, 303].

		// Stage 1.

		x0, x7 = x0+x7, x0-x7
		x1, x6 = x1+x6, x1-x6
		x2, x5 = x2+x5, x2-x5
		x3, x4 = x3+x4, x3-x4
		// x[01234567] now Q9.20 in [-275, 275].

		// Note: we don't need all 20 bits of “precision”,
		// but it is faster to let idctCols shift it away as part
		// of other operations rather than downshift here.

		x[0] = x0
		x[1] = x1
		x[2] = x2
		x[3] = x3
		x[4] = x4
		x[5] = x5
		x[6] = x6
		x[7] = x7
	}
}
