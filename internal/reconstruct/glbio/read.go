package glbio

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"image"
	"math"

	"github.com/photo3d/photo3d/internal/jpegscale"
	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// ModelTri is one triangle in the model's frame with its material colour.
type ModelTri struct {
	V   [3][3]float64
	Rgb [3]float64  // linear base colour (factor)
	Tex image.Image // base colour texture, or nil
	Uv  [3][2]float32
}

// AccessorCache reads each accessor once however many nodes draw it (a
// mesh instanced by many nodes is transformed per visit, never re-read).
type AccessorCache struct {
	doc *gltf.Document
	pos map[int][][3]float32
	idx map[int][]uint32
	uv  map[int][][2]float32
}

func NewAccessorCache(doc *gltf.Document) *AccessorCache {
	return &AccessorCache{doc: doc, pos: map[int][][3]float32{}, idx: map[int][]uint32{}, uv: map[int][][2]float32{}}
}

func (c *AccessorCache) Positions(ai int) ([][3]float32, error) {
	if v, ok := c.pos[ai]; ok {
		return v, nil
	}
	v, err := modeler.ReadPosition(c.doc, c.doc.Accessors[ai], nil)
	if err != nil {
		return nil, err
	}
	c.pos[ai] = v
	return v, nil
}

func (c *AccessorCache) indices(ai int) ([]uint32, error) {
	if v, ok := c.idx[ai]; ok {
		return v, nil
	}
	v, err := modeler.ReadIndices(c.doc, c.doc.Accessors[ai], nil)
	if err != nil {
		return nil, err
	}
	c.idx[ai] = v
	return v, nil
}

// texCoords returns nil when the accessor cannot be read as UVs (the
// thumbnail then uses the colour factor alone).
func (c *AccessorCache) texCoords(ai int) [][2]float32 {
	if v, ok := c.uv[ai]; ok {
		return v
	}
	v, err := modeler.ReadTextureCoord(c.doc, c.doc.Accessors[ai], nil)
	if err != nil {
		v = nil
	}
	c.uv[ai] = v
	return v
}

// DocumentTriangles walks the default scene and returns every triangle in
// world space (the document must have passed checkModelStructure, or be ours).
// With textures false no image is decoded (geometric checks need none).
func DocumentTriangles(doc *gltf.Document) ([]ModelTri, error) {
	tris, _, err := WalkTriangles(doc, true)
	return tris, err
}

// WalkTriangles is DocumentTriangles, also returning the texture set it used
// (its counters show what was decoded).
func WalkTriangles(doc *gltf.Document, textures bool) ([]ModelTri, *textureSet, error) {
	scene := 0
	if doc.Scene != nil {
		scene = *doc.Scene
	}
	if scene < 0 || scene >= len(doc.Scenes) {
		return nil, nil, fmt.Errorf("no scene")
	}
	var out []ModelTri
	seen := 0
	acc := NewAccessorCache(doc)
	var texs *textureSet
	if textures {
		texs = newTextureSet(doc)
	}
	var walk func(ni int, parent [16]float64, depth int) error
	walk = func(ni int, parent [16]float64, depth int) error {
		if ni < 0 || ni >= len(doc.Nodes) || depth > 64 {
			return fmt.Errorf("bad node hierarchy")
		}
		if seen++; seen > MaxModelNodeVisits {
			return fmt.Errorf("node graph too large")
		}
		n := doc.Nodes[ni]
		m := Mul4(parent, LocalMatrix(n))
		if n.Mesh != nil && *n.Mesh >= 0 && *n.Mesh < len(doc.Meshes) {
			for _, p := range doc.Meshes[*n.Mesh].Primitives {
				if p.Mode != gltf.PrimitiveTriangles {
					continue
				}
				ai, ok := p.Attributes[gltf.POSITION]
				if !ok || ai < 0 || ai >= len(doc.Accessors) {
					continue
				}
				pos, err := acc.Positions(ai)
				if err != nil {
					return err
				}
				var idx []uint32
				if p.Indices != nil && *p.Indices >= 0 && *p.Indices < len(doc.Accessors) {
					if idx, err = acc.indices(*p.Indices); err != nil {
						return err
					}
				}
				nIdx := len(pos)
				if idx != nil {
					nIdx = len(idx)
				}
				if len(out)+nIdx/3 > MaxModelTriangles {
					return fmt.Errorf("too many triangles")
				}
				rgb := materialColour(doc, p.Material)
				var tex image.Image
				var uv [][2]float32
				if texs != nil {
					tex, uv = texs.material(p, len(pos), acc)
				}
				for t := 0; t+2 < nIdx; t += 3 {
					var tri ModelTri
					tri.Rgb, tri.Tex = rgb, tex
					for k := range 3 {
						vi := uint32(t + k)
						if idx != nil {
							vi = idx[t+k]
						}
						if int(vi) >= len(pos) {
							return fmt.Errorf("index out of range")
						}
						tri.V[k] = Apply4(m, pos[vi])
						if tex != nil {
							tri.Uv[k] = uv[vi]
						}
					}
					out = append(out, tri)
				}
			}
		}
		for _, c := range n.Children {
			if err := walk(c, m, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	for _, n := range doc.Scenes[scene].Nodes {
		if err := walk(n, Identity(), 0); err != nil {
			return nil, nil, err
		}
	}
	return out, texs, nil
}

func materialColour(doc *gltf.Document, mi *int) [3]float64 {
	rgb := [3]float64{0.8, 0.8, 0.8}
	if mi == nil || *mi < 0 || *mi >= len(doc.Materials) {
		return rgb
	}
	if pbr := doc.Materials[*mi].PBRMetallicRoughness; pbr != nil && pbr.BaseColorFactor != nil {
		f := pbr.BaseColorFactor
		rgb = [3]float64{f[0], f[1], f[2]}
	} else if pbr != nil && pbr.BaseColorTexture != nil {
		rgb = [3]float64{1, 1, 1}
	}
	return rgb
}

// textureSet decodes a document's base colour textures for the thumbnail.
type textureSet struct {
	doc       *gltf.Document
	byImage   map[int]image.Image      // image index → decoded (nil: unusable)
	byContent map[[32]byte]image.Image // content hash → decoded
	Pixels    int                      // source pixels decoded so far
	Decoded   int                      // images actually decoded
}

func newTextureSet(doc *gltf.Document) *textureSet {
	return &textureSet{doc: doc, byImage: map[int]image.Image{}, byContent: map[[32]byte]image.Image{}}
}

// material returns the primitive's decoded base colour texture and its
// texture coordinates (nil when it has none, or it cannot be read).
func (ts *textureSet) material(p *gltf.Primitive, verts int, acc *AccessorCache) (image.Image, [][2]float32) {
	doc := ts.doc
	if p.Material == nil || *p.Material < 0 || *p.Material >= len(doc.Materials) {
		return nil, nil
	}
	pbr := doc.Materials[*p.Material].PBRMetallicRoughness
	if pbr == nil || pbr.BaseColorTexture == nil || pbr.BaseColorTexture.Index < 0 || pbr.BaseColorTexture.Index >= len(doc.Textures) {
		return nil, nil
	}
	src := doc.Textures[pbr.BaseColorTexture.Index].Source
	ai, ok := p.Attributes[fmt.Sprintf("TEXCOORD_%d", pbr.BaseColorTexture.TexCoord)]
	if src == nil || *src < 0 || *src >= len(doc.Images) || !ok || ai < 0 || ai >= len(doc.Accessors) {
		return nil, nil
	}
	uv := acc.texCoords(ai)
	if len(uv) < verts {
		return nil, nil
	}
	img := ts.image(*src)
	if img == nil {
		return nil, nil
	}
	return img, uv
}

// image decodes image i once per distinct content.
func (ts *textureSet) image(i int) image.Image {
	if img, ok := ts.byImage[i]; ok {
		return img
	}
	var img image.Image
	data := imageBytes(ts.doc, ts.doc.Images[i])
	if data != nil {
		key := sha256.Sum256(data)
		var ok bool
		if img, ok = ts.byContent[key]; !ok {
			img = ts.decode(data)
			ts.byContent[key] = img
		}
	}
	ts.byImage[i] = img
	return img
}

// decode reads the header first (size and the model's pixel budget), then
// decodes reduced: JPEGs at 1/2–1/8 while decoding, PNGs downsampled at once
// so only the small copy is kept.
func (ts *textureSet) decode(data []byte) image.Image {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width*cfg.Height > maxTexturePixels ||
		ts.Pixels+cfg.Width*cfg.Height > MaxModelTexturePixels {
		return nil
	}
	ts.Pixels += cfg.Width * cfg.Height
	ts.Decoded++
	var img image.Image
	if format == "jpeg" {
		img, err = jpegscale.DecodeScaled(bytes.NewReader(data), TextureLongSide)
	} else {
		img, _, err = image.Decode(bytes.NewReader(data))
	}
	if err != nil {
		return nil
	}
	return shrinkTexture(img, TextureLongSide)
}

// shrinkTexture returns img with its long side at most long pixels (nearest
// sample: the thumbnail samples one texel per pixel anyway).
func shrinkTexture(img image.Image, long int) image.Image {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if max(w, h) <= long {
		return img
	}
	nw, nh := max(1, w*long/max(w, h)), max(1, h*long/max(w, h))
	out := image.NewNRGBA(image.Rect(0, 0, nw, nh))
	for y := range nh {
		for x := range nw {
			out.Set(x, y, img.At(b.Min.X+x*w/nw, b.Min.Y+y*h/nh))
		}
	}
	return out
}

// imageBytes returns an image's encoded bytes (nil when it has none).
func imageBytes(doc *gltf.Document, im *gltf.Image) []byte {
	switch {
	case im.BufferView != nil && *im.BufferView >= 0 && *im.BufferView < len(doc.BufferViews):
		v := doc.BufferViews[*im.BufferView]
		if v.Buffer < 0 || v.Buffer >= len(doc.Buffers) || v.ByteOffset < 0 || v.ByteLength < 0 ||
			v.ByteOffset+v.ByteLength > len(doc.Buffers[v.Buffer].Data) {
			return nil
		}
		return doc.Buffers[v.Buffer].Data[v.ByteOffset : v.ByteOffset+v.ByteLength]
	case im.IsEmbeddedResource():
		data, err := im.MarshalData()
		if err != nil {
			return nil
		}
		return data
	}
	return nil
}

// Texel samples img at (u, v) (repeat wrapping, nearest) as linear RGB.
func Texel(img image.Image, u, v float64) [3]float64 {
	b := img.Bounds()
	u, v = u-math.Floor(u), v-math.Floor(v)
	x := b.Min.X + min(b.Dx()-1, int(u*float64(b.Dx())))
	y := b.Min.Y + min(b.Dy()-1, int(v*float64(b.Dy())))
	r, g, bl, _ := img.At(x, y).RGBA()
	lin := func(c uint32) float64 { return math.Pow(float64(c)/65535, 2.2) }
	return [3]float64{lin(r), lin(g), lin(bl)}
}

// RenderThumbnail draws the triangles orthographically from the front and a
// little above (as a shopper first sees the model), flat-shaded with a key
// light, over transparency, long side side pixels.
func RenderThumbnail(tris []ModelTri, side int) *image.NRGBA {
	const elev = 15 * math.Pi / 180
	ce, se := math.Cos(elev), math.Sin(elev)
	view := func(p [3]float64) [3]float64 { // x right, y up, z towards the viewer
		return [3]float64{p[0], p[1]*ce - p[2]*se, p[2]*ce + p[1]*se}
	}
	lo := [2]float64{math.Inf(1), math.Inf(1)}
	hi := [2]float64{math.Inf(-1), math.Inf(-1)}
	vt := make([][3][3]float64, len(tris))
	for i, t := range tris {
		for k := range 3 {
			q := view(t.V[k])
			vt[i][k] = q
			lo[0], lo[1] = min(lo[0], q[0]), min(lo[1], q[1])
			hi[0], hi[1] = max(hi[0], q[0]), max(hi[1], q[1])
		}
	}
	w, h := hi[0]-lo[0], hi[1]-lo[1]
	if len(tris) == 0 || !(w > 0 || h > 0) {
		return image.NewNRGBA(image.Rect(0, 0, 1, 1))
	}
	inner := float64(side) * 0.92
	scale := inner / max(w, h)
	iw, ih := max(1, int(math.Ceil(w*scale/0.92))), max(1, int(math.Ceil(h*scale/0.92)))
	ox, oy := (float64(iw)-w*scale)/2, (float64(ih)-h*scale)/2
	img := image.NewNRGBA(image.Rect(0, 0, iw, ih))
	depth := make([]float64, iw*ih)
	for i := range depth {
		depth[i] = math.Inf(-1)
	}
	light := [3]float64{-0.35, 0.6, 0.72}
	for i, t := range vt {
		var s [3][3]float64 // screen x, y (down), depth
		for k := range 3 {
			s[k] = [3]float64{ox + (t[k][0]-lo[0])*scale, oy + (hi[1]-t[k][1])*scale, t[k][2]}
		}
		e1 := [3]float64{t[1][0] - t[0][0], t[1][1] - t[0][1], t[1][2] - t[0][2]}
		e2 := [3]float64{t[2][0] - t[0][0], t[2][1] - t[0][1], t[2][2] - t[0][2]}
		nrm := [3]float64{e1[1]*e2[2] - e1[2]*e2[1], e1[2]*e2[0] - e1[0]*e2[2], e1[0]*e2[1] - e1[1]*e2[0]}
		l := math.Sqrt(nrm[0]*nrm[0] + nrm[1]*nrm[1] + nrm[2]*nrm[2])
		if l == 0 {
			continue
		}
		lambert := math.Abs(nrm[0]*light[0]+nrm[1]*light[1]+nrm[2]*light[2]) / l
		shade := 0.3 + 0.7*lambert
		paint := func(base [3]float64) (col [3]uint8) {
			for k := range 3 {
				col[k] = uint8(min(255, 255*math.Pow(min(1, max(0, base[k]*shade)), 1/2.2)+0.5))
			}
			return col
		}
		tr := tris[i]
		col := paint(tr.Rgb)
		x0, x1 := max(0, int(math.Floor(min(s[0][0], s[1][0], s[2][0])))), min(iw-1, int(math.Ceil(max(s[0][0], s[1][0], s[2][0]))))
		y0, y1 := max(0, int(math.Floor(min(s[0][1], s[1][1], s[2][1])))), min(ih-1, int(math.Ceil(max(s[0][1], s[1][1], s[2][1]))))
		area := (s[1][0]-s[0][0])*(s[2][1]-s[0][1]) - (s[2][0]-s[0][0])*(s[1][1]-s[0][1])
		if area == 0 {
			continue
		}
		for y := y0; y <= y1; y++ {
			py := float64(y) + 0.5
			for x := x0; x <= x1; x++ {
				px := float64(x) + 0.5
				b0 := ((s[1][0]-px)*(s[2][1]-py) - (s[2][0]-px)*(s[1][1]-py)) / area
				b1 := ((s[2][0]-px)*(s[0][1]-py) - (s[0][0]-px)*(s[2][1]-py)) / area
				b2 := 1 - b0 - b1
				if b0 < 0 || b1 < 0 || b2 < 0 {
					continue
				}
				z := b0*s[0][2] + b1*s[1][2] + b2*s[2][2]
				if z <= depth[y*iw+x] {
					continue
				}
				depth[y*iw+x] = z
				if tr.Tex != nil {
					u := b0*float64(tr.Uv[0][0]) + b1*float64(tr.Uv[1][0]) + b2*float64(tr.Uv[2][0])
					v := b0*float64(tr.Uv[0][1]) + b1*float64(tr.Uv[1][1]) + b2*float64(tr.Uv[2][1])
					c := Texel(tr.Tex, u, v)
					col = paint([3]float64{c[0] * tr.Rgb[0], c[1] * tr.Rgb[1], c[2] * tr.Rgb[2]})
				}
				o := img.Pix[y*img.Stride+4*x:]
				o[0], o[1], o[2], o[3] = col[0], col[1], col[2], 255
			}
		}
	}
	return img
}

// Caps of the scene walk over an uploaded or generated model.
const (
	MaxModelTriangles = 3_000_000
	// MaxModelNodeVisits bounds the scene walk: a node reached along several
	// paths (instancing) is visited once per path.
	MaxModelNodeVisits = 100_000
)

// Texture limits for the thumbnail (issue 28 item 1: 16 image entries naming
// one 4096² PNG held 1 GB). Each distinct image (by content) is decoded once,
// reduced to at most TextureLongSide (the thumbnail is ThumbnailSize pixels;
// JPEGs are reduced while decoding), and the source pixels decoded across
// the model are capped: past the cap, textures are skipped and the
// thumbnail uses the colour factors.
const (
	maxTexturePixels      = 4096 * 4096 // one image, read from its header first
	MaxModelTexturePixels = 2 * maxTexturePixels
	TextureLongSide       = 2 * ThumbnailSize
)
