// Package spinvideotest makes real turntable videos for tests: frames of a
// small product turning on a studio backdrop, encoded by the real ffmpeg, so
// the tests of package spinvideo, of the spin-set builder and of `worker
// convert` read what a phone would upload, not a mock.
package spinvideotest

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"io"
	"math"
	"os/exec"
	"strconv"
	"testing"
)

// RequireFFmpeg fails the test, saying what to install, when ffmpeg is missing:
// a video test that skipped unseen would hide a worker that cannot read videos.
func RequireFFmpeg(t testing.TB) {
	t.Helper()
	for _, tool := range []string{"ffmpeg", "ffprobe"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed: the video tests encode and read real videos. Install it (apt-get install -y ffmpeg, or `. ops/lib.sh; need_ffmpeg`)", tool)
		}
	}
}

// Codec is how a test video is encoded.
type Codec string

const (
	H264 Codec = "h264" // .mp4, what phones record
	VP9  Codec = "vp9"  // .webm, what browsers record
)

// Encode writes frames (all one size) as a video of fps frames a second to path.
func Encode(t testing.TB, path string, codec Codec, fps float64, frames []*image.RGBA) {
	t.Helper()
	b := frames[0].Bounds()
	var raw bytes.Buffer
	for _, f := range frames {
		raw.Write(f.Pix)
	}
	encode(t, path, codec, fps, []string{"-f", "rawvideo", "-pix_fmt", "rgba", "-s", fmt.Sprintf("%dx%d", b.Dx(), b.Dy())}, &raw)
}

// EncodeJPEGs writes JPEG frames (all one size) as a video: a renderer's
// output, without holding every decoded frame (a 1080p frame is 8 MB).
func EncodeJPEGs(t testing.TB, path string, codec Codec, fps float64, frames [][]byte) {
	t.Helper()
	var in bytes.Buffer
	for _, f := range frames {
		in.Write(f)
	}
	encode(t, path, codec, fps, []string{"-f", "image2pipe", "-c:v", "mjpeg"}, &in)
}

func encode(t testing.TB, path string, codec Codec, fps float64, input []string, in io.Reader) {
	t.Helper()
	RequireFFmpeg(t)
	args := append([]string{"-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-r", strconv.FormatFloat(fps, 'f', -1, 64)}, input...)
	args = append(args, "-i", "pipe:0", "-an")
	switch codec {
	case H264:
		args = append(args, "-c:v", "libx264", "-preset", "veryfast", "-crf", "18", "-pix_fmt", "yuv420p", "-f", "mp4")
	case VP9:
		args = append(args, "-c:v", "libvpx-vp9", "-b:v", "0", "-crf", "30", "-deadline", "realtime", "-cpu-used", "8", "-pix_fmt", "yuv420p", "-f", "webm")
	default:
		t.Fatalf("unknown codec %q", codec)
	}
	cmd := exec.Command("ffmpeg", append(args, path)...)
	cmd.Stdin = in
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg encode %s: %v: %s", path, err, out)
	}
}

// DecodeJPEG decodes a rendered JPEG frame into RGBA for Encode.
func DecodeJPEG(t testing.TB, data []byte) *image.RGBA {
	t.Helper()
	img, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	out := image.NewRGBA(img.Bounds())
	draw.Draw(out, out.Bounds(), img, img.Bounds().Min, draw.Src)
	return out
}

// Shift moves the whole picture, backdrop included, by (dx, dy) pixels, as a
// camera that moved does; the uncovered edge repeats the last row or column.
func Shift(img *image.RGBA, dx, dy int) *image.RGBA {
	b := img.Bounds()
	out := image.NewRGBA(b)
	for y := range b.Dy() {
		sy := min(b.Dy()-1, max(0, y-dy))
		for x := range b.Dx() {
			sx := min(b.Dx()-1, max(0, x-dx))
			copy(out.Pix[y*out.Stride+4*x:y*out.Stride+4*x+4], img.Pix[sy*img.Stride+4*sx:sy*img.Stride+4*sx+4])
		}
	}
	return out
}

// Product is a simple turning product seen level from the front: a box (its
// front and side faces in two colours) with a post standing off one corner, so
// no two sides look alike, or, Round, a plain cylinder (alike from every side).
type Product struct {
	Width, Depth float64 // the box's, as shares of the frame's height
	Height       float64 // share of the frame's height
	Round        bool
	Front, Side  color.RGBA
}

// Chest is the usual test product.
var Chest = Product{Width: 0.42, Depth: 0.22, Height: 0.55, Front: color.RGBA{150, 60, 40, 255}, Side: color.RGBA{70, 90, 150, 255}}

// Frame renders p turned by turn (fractions of a full turn) at w×h, scaled by
// scale (1: as designed), on a light vertical-gradient backdrop.
func (p Product) Frame(w, h int, turn, scale float64) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		v := uint8(240 - 30*y/h)
		for x := range w {
			i := y*img.Stride + 4*x
			img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = v, v, v-4, 255
		}
	}
	H := float64(h) * scale
	cx := float64(w) / 2
	bottom := float64(h)*0.5 + 0.5*p.Height*H
	top := bottom - p.Height*H
	// A soft contact shadow on the floor under the product.
	for y := int(bottom); y < min(h, int(bottom+0.04*H)); y++ {
		for x := int(cx - 0.3*H); x < int(cx+0.3*H); x++ {
			if x >= 0 && x < w {
				i := y*img.Stride + 4*x
				for c := range 3 {
					img.Pix[i+c] = uint8(float64(img.Pix[i+c]) * 0.8)
				}
			}
		}
	}
	rect := func(x0, x1, y0, y1 float64, c color.RGBA, k float64) {
		for y := max(0, int(math.Round(y0))); y < min(h, int(math.Round(y1))); y++ {
			for x := max(0, int(math.Round(x0))); x < min(w, int(math.Round(x1))); x++ {
				i := y*img.Stride + 4*x
				img.Pix[i], img.Pix[i+1], img.Pix[i+2] = uint8(float64(c.R)*k), uint8(float64(c.G)*k), uint8(float64(c.B)*k)
			}
		}
	}
	th := 2 * math.Pi * turn
	if p.Round {
		r := p.Width / 2 * H
		for x := -r; x < r; x++ {
			rect(cx+x, cx+x+1, top, bottom, p.Front, 0.55+0.45*math.Sqrt(max(0, 1-(x/r)*(x/r))))
		}
		return img
	}
	// The post stands at the box's front-right corner, a little out.
	postR := math.Hypot(p.Width/2, p.Depth/2) * 1.15 * H
	postA := math.Atan2(p.Width/2, p.Depth/2)
	postX := cx + postR*math.Sin(th+postA)
	postBehind := math.Cos(th+postA) < 0
	drawPost := func() {
		rect(postX-0.025*H, postX+0.025*H, top-0.12*H, bottom, color.RGBA{40, 40, 40, 255}, 1)
	}
	if postBehind {
		drawPost()
	}
	// The box: corners at (±W/2, ±D/2) in its own frame, turned by th; the faces
	// whose normals face the camera (+z) are drawn, each a band of columns.
	W, D := p.Width*H, p.Depth*H
	type face struct {
		nx, nz float64 // normal, box frame
		ax, az float64 // one end
		bx, bz float64 // other end
		c      color.RGBA
	}
	faces := []face{
		{0, 1, -W / 2, D / 2, W / 2, D / 2, p.Front},
		{0, -1, W / 2, -D / 2, -W / 2, -D / 2, p.Front},
		{1, 0, W / 2, D / 2, W / 2, -D / 2, p.Side},
		{-1, 0, -W / 2, -D / 2, -W / 2, D / 2, p.Side},
	}
	s, c := math.Sin(th), math.Cos(th)
	for fi, f := range faces {
		nz := -f.nx*s + f.nz*c
		if nz <= 0 {
			continue
		}
		x0 := f.ax*c + f.az*s
		x1 := f.bx*c + f.bz*s
		if x0 > x1 {
			x0, x1 = x1, x0
		}
		k := 0.45 + 0.55*nz
		if fi == 1 {
			k *= 0.7 // the back is in the shade
		}
		rect(cx+x0, cx+x1, top, bottom, f.c, k)
	}
	if !postBehind {
		drawPost()
	}
	return img
}

// Turning renders frames of p turning at perTurn frames a turn, starting at
// start (fractions of a turn); shift moves frame i's whole picture, scale sizes
// the product.
func (p Product) Turning(w, h, frames, perTurn int, start, scale float64, shift func(i int) (int, int)) []*image.RGBA {
	out := make([]*image.RGBA, frames)
	for i := range frames {
		img := p.Frame(w, h, start+float64(i)/float64(perTurn), scale)
		if shift != nil {
			if dx, dy := shift(i); dx != 0 || dy != 0 {
				img = Shift(img, dx, dy)
			}
		}
		out[i] = img
	}
	return out
}
