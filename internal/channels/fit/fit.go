// Package fit holds a model file to a channel's budget: it resizes
// textures and simplifies meshes until the GLB (or the USDZ made from it)
// fits. It is single-threaded compute over bytes its caller owns (no
// goroutines, no shared state), apart from internal/channels' job queue, so
// make test runs it without race instrumentation (ops/test.sh compute_pkgs).
package fit

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"math"
	"strconv"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
	"golang.org/x/image/draw"

	"github.com/photo3d/photo3d/internal/channels/usdz"
)

// Budget is one channel's documented limits on a model file.
type Budget struct {
	// WarnBytes is the recommended size (amber above it), MaxBytes the
	// most the channel accepts as it is (red above it; the packager
	// shrinks the file to fit).
	WarnBytes, MaxBytes int64
	// MaxTexture is the longest texture side the channel takes (0: any).
	MaxTexture int
	// Source cites where the numbers come from.
	Source string
}

// The budgets (docs/incoming/channels.md cites them).
var (
	// WebBudget: the share page's own model (the product's brief: ≤ 2 MB
	// so a phone on a mobile network shows it in a few seconds).
	WebBudget = Budget{WarnBytes: 2 << 20, MaxBytes: 2 << 20, Source: "Photo3D web viewer: at most 2 MB"}
	// CommerceBudget: Google's 3D model link (virtual_model_link: GLB or
	// glTF, recommended 10 MB, must not exceed 15 MB, textures up to 4K)
	// and Shopify's 3D model media (files over 15 MB are re-optimized by
	// Shopify, 500 MB at most; "in general less than 15 MB").
	CommerceBudget = Budget{WarnBytes: 10 << 20, MaxBytes: 15 << 20, MaxTexture: 4096,
		Source: "Google virtual_model_link: recommended ≤ 10 MB, at most 15 MB, textures ≤ 4K; Shopify 3D models: optimized above 15 MB"}
	// QuickLookBudget: Apple publishes no size limit for AR Quick Look;
	// the USDZ is held to the commerce budget so it opens as fast as the
	// GLB the other channels get (FitUSDZ reduces the model until its
	// package fits; one that cannot fit is refused, never published over
	// budget).
	QuickLookBudget = Budget{WarnBytes: 10 << 20, MaxBytes: 15 << 20, Source: "no published Quick Look limit: held to the commerce budget"}
)

// Status is green within the recommended size, amber within the maximum,
// red over it.
func (b Budget) Status(n int64) string {
	switch {
	case n <= b.WarnBytes:
		return "green"
	case n <= b.MaxBytes:
		return "amber"
	}
	return "red"
}

// ErrCannotFit reports a model that stays over budget after every
// reduction the packager makes.
var ErrCannotFit = errors.New("model does not fit the channel's budget")

// minTexture and minTriangles bound the reductions: below them a product
// is no longer recognisable.
const (
	minTexture   = 256
	minTriangles = 500
)

// FitGLB returns glb within budget b: textures larger than b.MaxTexture
// are resized to it; then, while the file is over b.MaxBytes, textures
// are halved (down to 1024 px) and meshes simplified (vertex clustering,
// halving the triangles) in turn. notes say what was done and why, for the
// Channels panel; none when the file was within budget as it was.
func FitGLB(glb []byte, b Budget) ([]byte, []string, error) {
	return fitGLB(glb, b, mb(b.MaxBytes))
}

// fitGLB is FitGLB whose notes say the reductions were made "to fit"
// goal (FitGLB: the budget's size; fitUSDZ: the Quick Look budget).
func fitGLB(glb []byte, b Budget, goal string) ([]byte, []string, error) {
	doc := new(gltf.Document)
	if err := gltf.NewDecoder(bytes.NewReader(glb)).Decode(doc); err != nil {
		return nil, nil, fmt.Errorf("read model: %w", err)
	}
	var notes []string
	changed := false
	if b.MaxTexture > 0 {
		n, err := resizeTextures(doc, b.MaxTexture)
		if err != nil {
			return nil, nil, err
		}
		if n > 0 {
			notes = append(notes, fmt.Sprintf("%d texture(s) resized to at most %d px: the channel takes textures up to %d px", n, b.MaxTexture, b.MaxTexture))
			changed = true
		}
	}
	out := glb
	if changed {
		var err error
		if out, err = encode(doc); err != nil {
			return nil, nil, err
		}
	}
	for round := 0; int64(len(out)) > b.MaxBytes; round++ {
		if round > 12 {
			return nil, notes, fmt.Errorf("%w: still %s, the limit is %s", ErrCannotFit, mb(int64(len(out))), goal)
		}
		before := len(out)
		side := longestTexture(doc)
		switch {
		case side > 1024:
			if _, err := resizeTextures(doc, side/2); err != nil {
				return nil, nil, err
			}
			notes = append(notes, fmt.Sprintf("textures resized %d → %d px to fit %s", side, side/2, goal))
		default:
			tris := triangles(doc)
			if tris/2 < minTriangles {
				if side/2 >= minTexture {
					if _, err := resizeTextures(doc, side/2); err != nil {
						return nil, nil, err
					}
					notes = append(notes, fmt.Sprintf("textures resized %d → %d px to fit %s", side, side/2, goal))
					break
				}
				return nil, notes, fmt.Errorf("%w: still %s at %d triangles and %d px textures, the limit is %s", ErrCannotFit, mb(int64(len(out))), tris, side, goal)
			}
			if err := simplify(doc, tris/2); err != nil {
				return nil, nil, err
			}
			notes = append(notes, fmt.Sprintf("mesh simplified %d → %d triangles to fit %s", tris, triangles(doc), goal))
		}
		var err error
		if out, err = encode(doc); err != nil {
			return nil, nil, err
		}
		if len(out) >= before && longestTexture(doc) == side && round > 6 {
			return nil, notes, fmt.Errorf("%w: reductions no longer shrink the file (still %s, the limit is %s)", ErrCannotFit, mb(int64(len(out))), goal)
		}
	}
	return out, notes, nil
}

// FitUSDZ returns the Quick Look package of glb within budget b (its
// MaxBytes is the package's limit): the GLB is reduced with FitGLB's steps
// until its USDZ fits. USD text takes about two to three times the bytes of
// the binary geometry it comes from, so the GLB's own target is set from
// how far over the last package was.
func FitUSDZ(glb []byte, b Budget) ([]byte, []string, error) {
	out, _, notes, err := fitUSDZ(glb, b)
	return out, notes, err
}

// usdzTries bounds the reduce-and-convert rounds of fitUSDZ.
const usdzTries = 5

// FitUSDZWithSource is FitUSDZ that also returns the reduced GLB the
// package was made from (the packager reuses it for every variant).
func FitUSDZWithSource(glb []byte, b Budget) (pkg, fitted []byte, notes []string, err error) {
	return fitUSDZ(glb, b)
}

func fitUSDZ(glb []byte, b Budget) (pkg, fitted []byte, notes []string, err error) {
	goal := mb(b.MaxBytes) + " as a USDZ"
	src := glb
	if int64(len(src)) > b.MaxBytes {
		// The package is never smaller than the GLB: reduce before the
		// first conversion (converting 2 M triangles costs 600 MB).
		if src, notes, err = fitGLB(src, Budget{MaxBytes: b.MaxBytes * 9 / 10, MaxTexture: b.MaxTexture}, goal); err != nil {
			return nil, nil, notes, err
		}
	}
	for try := 1; ; try++ {
		out, err := usdz.FromGLB(src)
		if err != nil {
			return nil, nil, notes, err
		}
		if int64(len(out)) <= b.MaxBytes {
			return out, src, notes, nil
		}
		if try == usdzTries {
			return nil, nil, notes, fmt.Errorf("%w: still %s, the limit is %s", ErrCannotFit, mb(int64(len(out))), mb(b.MaxBytes))
		}
		target := int64(float64(len(src)) * float64(b.MaxBytes) / float64(len(out)) * 0.9)
		reduced, more, err := fitGLB(src, Budget{MaxBytes: target, MaxTexture: b.MaxTexture}, goal)
		notes = append(notes, more...)
		if err != nil {
			return nil, nil, notes, err
		}
		src = reduced
	}
}

// mb writes a size as people read it: "15 MB", "16.2 MB".
func mb(n int64) string {
	return strconv.FormatFloat(math.Round(float64(n)/(1<<20)*10)/10, 'f', -1, 64) + " MB"
}

// encode writes doc as a GLB with its one buffer compacted: only the
// buffer views something still uses, each 4-byte aligned.
func encode(doc *gltf.Document) ([]byte, error) {
	if len(doc.Buffers) != 1 {
		return nil, fmt.Errorf("model has %d buffers; only single-buffer GLBs are packaged", len(doc.Buffers))
	}
	compactAccessors(doc)
	used := map[int]bool{}
	for _, a := range doc.Accessors {
		if a.BufferView != nil {
			used[*a.BufferView] = true
		}
	}
	for _, im := range doc.Images {
		if im.BufferView != nil {
			used[*im.BufferView] = true
		}
	}
	remap := map[int]int{}
	var views []*gltf.BufferView
	var data []byte
	old := doc.Buffers[0].Data
	for i, v := range doc.BufferViews {
		if !used[i] {
			continue
		}
		if v.ByteOffset+v.ByteLength > len(old) {
			return nil, fmt.Errorf("buffer view %d outside its buffer", i)
		}
		for len(data)%4 != 0 {
			data = append(data, 0)
		}
		nv := *v
		nv.ByteOffset = len(data)
		data = append(data, old[v.ByteOffset:v.ByteOffset+v.ByteLength]...)
		remap[i] = len(views)
		views = append(views, &nv)
	}
	for _, a := range doc.Accessors {
		if a.BufferView != nil {
			a.BufferView = gltf.Index(remap[*a.BufferView])
		}
	}
	for _, im := range doc.Images {
		if im.BufferView != nil {
			im.BufferView = gltf.Index(remap[*im.BufferView])
		}
	}
	doc.BufferViews = views
	doc.Buffers[0].Data = data
	doc.Buffers[0].ByteLength = len(data)
	var out bytes.Buffer
	enc := gltf.NewEncoder(&out)
	enc.AsBinary = true
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("encode model: %w", err)
	}
	return out.Bytes(), nil
}

// imageBytes returns an embedded image's bytes.
func imageBytes(doc *gltf.Document, im *gltf.Image) []byte {
	if im.BufferView == nil || *im.BufferView < 0 || *im.BufferView >= len(doc.BufferViews) || len(doc.Buffers) == 0 {
		return nil
	}
	v := doc.BufferViews[*im.BufferView]
	d := doc.Buffers[v.Buffer].Data
	if v.ByteOffset+v.ByteLength > len(d) {
		return nil
	}
	return d[v.ByteOffset : v.ByteOffset+v.ByteLength]
}

func longestTexture(doc *gltf.Document) int {
	side := 0
	for _, im := range doc.Images {
		if c, _, err := image.DecodeConfig(bytes.NewReader(imageBytes(doc, im))); err == nil {
			side = max(side, c.Width, c.Height)
		}
	}
	return side
}

// resizeTextures scales every embedded image longer than side down to it
// (JPEG stays JPEG at quality 85, PNG stays PNG for its alpha) and appends
// the new bytes as new buffer views; encode drops the old ones.
func resizeTextures(doc *gltf.Document, side int) (int, error) {
	n := 0
	for i, im := range doc.Images {
		src := imageBytes(doc, im)
		c, format, err := image.DecodeConfig(bytes.NewReader(src))
		if err != nil || max(c.Width, c.Height) <= side {
			continue
		}
		img, _, err := image.Decode(bytes.NewReader(src))
		if err != nil {
			return n, fmt.Errorf("decode texture %d: %w", i, err)
		}
		w, h := c.Width*side/max(c.Width, c.Height), c.Height*side/max(c.Width, c.Height)
		dst := image.NewNRGBA(image.Rect(0, 0, max(w, 1), max(h, 1)))
		draw.CatmullRom.Scale(dst, dst.Bounds(), img, img.Bounds(), draw.Src, nil)
		var buf bytes.Buffer
		if format == "png" {
			err = png.Encode(&buf, dst)
		} else {
			err = jpeg.Encode(&buf, dst, &jpeg.Options{Quality: 85})
			im.MimeType = "image/jpeg"
		}
		if err != nil {
			return n, fmt.Errorf("encode texture %d: %w", i, err)
		}
		im.BufferView = gltf.Index(modeler.WriteBufferView(doc, gltf.TargetNone, buf.Bytes()))
		n++
	}
	return n, nil
}

func triangles(doc *gltf.Document) int {
	n := 0
	for _, m := range doc.Meshes {
		for _, p := range m.Primitives {
			if p.Mode != gltf.PrimitiveTriangles {
				continue
			}
			if p.Indices != nil {
				n += doc.Accessors[*p.Indices].Count / 3
			} else if ai, ok := p.Attributes[gltf.POSITION]; ok {
				n += doc.Accessors[ai].Count / 3
			}
		}
	}
	return n
}

// compactAccessors drops accessors nothing refers to any more (the
// originals of simplified primitives) and renumbers the references.
func compactAccessors(doc *gltf.Document) {
	used := make([]bool, len(doc.Accessors))
	mark := func(i int) {
		if i >= 0 && i < len(used) {
			used[i] = true
		}
	}
	for _, m := range doc.Meshes {
		for _, p := range m.Primitives {
			for _, a := range p.Attributes {
				mark(a)
			}
			if p.Indices != nil {
				mark(*p.Indices)
			}
			for _, t := range p.Targets {
				for _, a := range t {
					mark(a)
				}
			}
		}
	}
	for _, an := range doc.Animations {
		for _, s := range an.Samplers {
			mark(s.Input)
			mark(s.Output)
		}
	}
	for _, s := range doc.Skins {
		if s.InverseBindMatrices != nil {
			mark(*s.InverseBindMatrices)
		}
	}
	remap := make([]int, len(used))
	var kept []*gltf.Accessor
	for i, a := range doc.Accessors {
		if used[i] {
			remap[i] = len(kept)
			kept = append(kept, a)
		}
	}
	if len(kept) == len(doc.Accessors) {
		return
	}
	re := func(i int) int {
		if i >= 0 && i < len(remap) {
			return remap[i]
		}
		return i
	}
	for _, m := range doc.Meshes {
		for _, p := range m.Primitives {
			for k, a := range p.Attributes {
				p.Attributes[k] = re(a)
			}
			if p.Indices != nil {
				p.Indices = gltf.Index(re(*p.Indices))
			}
			for _, t := range p.Targets {
				for k, a := range t {
					t[k] = re(a)
				}
			}
		}
	}
	for _, an := range doc.Animations {
		for _, s := range an.Samplers {
			s.Input, s.Output = re(s.Input), re(s.Output)
		}
	}
	for _, s := range doc.Skins {
		if s.InverseBindMatrices != nil {
			s.InverseBindMatrices = gltf.Index(re(*s.InverseBindMatrices))
		}
	}
	doc.Accessors = kept
}
