package account_test

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/fault"
)

// halves is w×h, left half red and right half blue.
func halves(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.NRGBA{255, 0, 0, 255}
			if x >= w/2 {
				c = color.NRGBA{0, 0, 255, 255}
			}
			img.Set(x, y, c)
		}
	}
	return img
}

// PNGBytes encodes img as PNG (also used by the HTTP tests' fixtures).
func pngBytes(t *testing.T, img image.Image) []byte {
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	return b.Bytes()
}

func TestProcessAvatarCropsTheCentreTo256(t *testing.T) {
	t.Parallel()
	// 600×300: the centred 300×300 square spans x 150..450, half red, half blue.
	out, err := account.ProcessAvatar(pngBytes(t, halves(600, 300)))
	require.NoError(t, err)
	require.Equal(t, "image/png", out.ContentType)
	img, err := png.Decode(bytes.NewReader(out.Data))
	require.NoError(t, err)
	require.Equal(t, image.Rect(0, 0, 256, 256), img.Bounds())
	r, _, b, _ := img.At(10, 128).RGBA()
	require.Greater(t, r, b)
	r, _, b, _ = img.At(245, 128).RGBA()
	require.Greater(t, b, r)

	var jb bytes.Buffer
	require.NoError(t, jpeg.Encode(&jb, halves(300, 500), nil))
	out, err = account.ProcessAvatar(jb.Bytes())
	require.NoError(t, err)
	require.Equal(t, "image/jpeg", out.ContentType)
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(out.Data))
	require.NoError(t, err)
	require.Equal(t, 256, cfg.Width)
	require.Equal(t, 256, cfg.Height)
}

func TestProcessAvatarRefusals(t *testing.T) {
	t.Parallel()
	big := append(pngBytes(t, halves(4, 4)), make([]byte, account.MaxAvatarBytes)...)
	cases := []struct {
		name string
		data []byte
		kind fault.Kind
		msg  string
	}{
		{"over 5 MB", big, fault.TooLarge, "Avatar images must be 5 MB or smaller."},
		{"gif", []byte("GIF89a\x01\x00\x01\x00"), fault.UnsupportedMedia, "Avatar must be a PNG or JPEG image."},
		{"webp", []byte("RIFF\x00\x00\x00\x00WEBPVP8 "), fault.UnsupportedMedia, "Avatar must be a PNG or JPEG image."},
		{"svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`), fault.UnsupportedMedia, "Avatar must be a PNG or JPEG image."},
		{"truncated png", pngBytes(t, halves(40, 40))[:60], fault.Invalid, "This image could not be read. Please try another PNG or JPEG file."},
	}
	for _, c := range cases {
		_, err := account.ProcessAvatar(c.data)
		fe, ok := fault.As(err)
		require.True(t, ok, c.name)
		require.Equal(t, c.kind, fe.Kind, c.name)
		require.Equal(t, c.msg, fe.Message, c.name)
	}
}

func TestSanitizeSVG(t *testing.T) {
	t.Parallel()
	dirty := `<?xml version="1.0"?>
<!DOCTYPE svg [<!ENTITY x "boom">]>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:inkscape="http://www.inkscape.org" viewBox="0 0 10 10" onload="alert(1)">
  <script>alert(document.cookie)</script>
  <style>@import url(https://evil.example/x.css); .a{fill:red}</style>
  <style>.b{fill:url(#g)}</style>
  <defs><linearGradient id="g"><stop offset="0" stop-color="#fff"/></linearGradient></defs>
  <rect class="a" width="10" height="10" fill="url(#g)" onclick="steal()" inkscape:label="bg"/>
  <circle r="2" fill="url(https://evil.example/track)" style="background:url(http://evil/x)"/>
  <use xlink:href="https://evil.example/sprite.svg#i"/>
  <use href="#g"/>
  <a href="javascript:alert(1)"><text>click</text></a>
  <foreignObject><div xmlns="http://www.w3.org/1999/xhtml">html</div></foreignObject>
  <image href="https://evil.example/pixel.png"/>
  <inkscape:thing/>
  <text x="1">Brand &amp; Co</text>
</svg>`
	clean, err := account.SanitizeSVG([]byte(dirty))
	require.NoError(t, err)
	s := string(clean)
	for _, bad := range []string{"script", "alert", "onload", "onclick", "evil", "@import", "foreignObject", "javascript", "inkscape", "ENTITY", "<a", "<style"} {
		require.NotContains(t, s, bad)
	}
	for _, good := range []string{`<svg xmlns="http://www.w3.org/2000/svg"`, `viewBox="0 0 10 10"`, `fill="url(#g)"`, `<use href="#g">`,
		`Brand &amp; Co`, `<linearGradient id="g">`, `<rect class="a" width="10" height="10" fill="url(#g)">`} {
		require.Contains(t, s, good)
	}
	// The output is itself well-formed SVG that sanitises to itself.
	again, err := account.SanitizeSVG(clean)
	require.NoError(t, err)
	require.Equal(t, s, string(again))

	for _, notSVG := range []string{`<html><body/></html>`, `not xml`, `<svg><g></svg>`, `<svg/><svg/>`, ``} {
		_, err := account.SanitizeSVG([]byte(notSVG))
		require.ErrorIs(t, err, account.ErrNotSVG, notSVG)
	}
}

func TestProcessLogo(t *testing.T) {
	t.Parallel()
	p := pngBytes(t, halves(8, 8))
	out, err := account.ProcessLogo(p)
	require.NoError(t, err)
	require.Equal(t, "image/png", out.ContentType)
	img, err := png.Decode(bytes.NewReader(out.Data))
	require.NoError(t, err)
	require.Equal(t, image.Rect(0, 0, 8, 8), img.Bounds(), "re-encoded at the same size")

	out, err = account.ProcessLogo([]byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>x()</script><path d="M0 0"/></svg>`))
	require.NoError(t, err)
	require.Equal(t, "image/svg+xml", out.ContentType)
	require.False(t, strings.Contains(string(out.Data), "script"))

	_, err = account.ProcessLogo(append([]byte("<svg>"), make([]byte, account.MaxLogoBytes)...))
	require.True(t, fault.IsKind(err, fault.TooLarge))
	_, err = account.ProcessLogo([]byte("GIF89a...."))
	require.True(t, fault.IsKind(err, fault.UnsupportedMedia))
	_, err = account.ProcessLogo([]byte("<html></html>"))
	require.True(t, fault.IsKind(err, fault.UnsupportedMedia))
}
