package jpegscale

import (
	"bytes"
	"image"
	stdjpeg "image/jpeg"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestScaledMatchesFullDecodeThenAverage: for every kind of JPEG in
// testdata (baseline and progressive, every subsampling, grey, RGB, CMYK,
// restart markers), decoding at 1/1 gives image/jpeg's pixels exactly, and
// decoding at 1/2, 1/4 and 1/8 gives what a full decode followed by an area
// average gives, within rounding.
func TestScaledMatchesFullDecodeThenAverage(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/*.jpeg")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		if strings.Contains(f, "truncated") {
			continue
		}
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		full, err := stdjpeg.Decode(bytes.NewReader(data))
		require.NoError(t, err, f)
		w, h := full.Bounds().Dx(), full.Bounds().Dy()

		same, err := DecodeScaled(bytes.NewReader(data), max(w, h))
		require.NoError(t, err, f)
		require.Equal(t, full.Bounds(), same.Bounds(), f)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				require.Equal(t, full.At(x, y), same.At(x, y), "%s at %d,%d", f, x, y)
			}
		}

		// Reduced: each stored plane (luma, chroma, black) is the area
		// average of the full-size plane, within rounding and clipping.
		ref := decoder{}
		_, err = ref.decode(bytes.NewReader(data), false)
		require.NoError(t, err, f)
		for shift := 1; shift <= 3; shift++ {
			n := 1 << shift
			d := decoder{minLong: (max(w, h) + n - 1) / n}
			got, err := d.decode(bytes.NewReader(data), false)
			require.NoError(t, err, f)
			require.Equal(t, shift, d.shift, f)
			require.Equal(t, image.Rect(0, 0, (w+n-1)/n, (h+n-1)/n), got.Bounds(), "%s 1/%d", f, n)
			full, small := planes(&ref), planes(&d)
			require.Len(t, small, len(full))
			for k := range full {
				var sum float64
				cnt := 0
				for y := 0; y < small[k].h && (y+1)*n <= full[k].h; y++ {
					for x := 0; x < small[k].w && (x+1)*n <= full[k].w; x++ {
						var want float64
						for yy := 0; yy < n; yy++ {
							for xx := 0; xx < n; xx++ {
								want += float64(full[k].pix[(y*n+yy)*full[k].stride+x*n+xx])
							}
						}
						want /= float64(n * n)
						sum += math.Abs(want - float64(small[k].pix[y*small[k].stride+x]))
						cnt++
					}
				}
				require.NotZero(t, cnt)
				mean := sum / float64(cnt)
				require.Less(t, mean, 1.0, "%s 1/%d plane %d: mean error %.2f levels", f, n, k, mean)
			}
		}
	}
}

type plane struct {
	pix          []byte
	stride, w, h int
}

// planes are the decoder's stored sample planes (whole blocks, before
// colour conversion).
func planes(d *decoder) []plane {
	if d.img1 != nil {
		m := d.img1
		return []plane{{m.Pix, m.Stride, m.Stride, len(m.Pix) / m.Stride}}
	}
	m := d.img3
	out := []plane{{m.Y, m.YStride, m.YStride, len(m.Y) / m.YStride}, {m.Cb, m.CStride, m.CStride, len(m.Cb) / m.CStride},
		{m.Cr, m.CStride, m.CStride, len(m.Cr) / m.CStride}}
	if d.blackPix != nil {
		out = append(out, plane{d.blackPix, d.blackStride, d.blackStride, len(d.blackPix) / d.blackStride})
	}
	return out
}

func TestChooseShift(t *testing.T) {
	t.Parallel()
	require.Equal(t, 2, chooseShift(7746, 5164, 1024), "40 MP: 1936 px long side, then area-averaged to 1024")
	require.Equal(t, 3, chooseShift(8192, 4000, 1024))
	require.Equal(t, 0, chooseShift(1500, 1000, 1024))
	require.Equal(t, 0, chooseShift(4000, 3000, 0), "no minimum: no scaling")
}

// TestTruncatedIsAnError: a cut-off file fails as image/jpeg's does.
func TestTruncatedIsAnError(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/video-001.progressive.truncated.jpeg")
	require.NoError(t, err)
	_, stdErr := stdjpeg.Decode(bytes.NewReader(data))
	_, err = DecodeScaled(bytes.NewReader(data), 20)
	require.Equal(t, stdErr == nil, err == nil)
}
