package reconstruct

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	_ "image/jpeg"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
	"github.com/stretchr/testify/require"
)

// decodedPart is one mesh read back from a GLB, for checks and renders.
type decodedPart struct {
	name string
	pos  [][3]float32
	nrm  [][3]float32
	uv   [][2]float32
	idx  []uint32
}

type decodedGLB struct {
	doc   *gltf.Document
	parts []decodedPart
	tex   image.Image
}

// readGLB parses a GLB with an independent reader (qmuntal's decoder) so tests check
// what viewers will see, not our in-memory structures.
func readGLB(t testing.TB, glb []byte) *decodedGLB {
	t.Helper()
	doc := new(gltf.Document)
	require.NoError(t, gltf.NewDecoder(bytes.NewReader(glb)).Decode(doc))
	out := &decodedGLB{doc: doc}
	for _, n := range doc.Nodes {
		if n.Mesh == nil {
			continue
		}
		for _, prim := range doc.Meshes[*n.Mesh].Primitives {
			p := decodedPart{name: n.Name}
			var err error
			p.pos, err = modeler.ReadPosition(doc, doc.Accessors[prim.Attributes[gltf.POSITION]], nil)
			require.NoError(t, err)
			p.nrm = make([][3]float32, len(p.pos))
			if a, ok := prim.Attributes[gltf.NORMAL]; ok {
				p.nrm, err = modeler.ReadNormal(doc, doc.Accessors[a], nil)
				require.NoError(t, err)
			}
			p.uv = make([][2]float32, len(p.pos))
			if a, ok := prim.Attributes[gltf.TEXCOORD_0]; ok {
				p.uv, err = modeler.ReadTextureCoord(doc, doc.Accessors[a], nil)
				require.NoError(t, err)
			}
			p.idx, err = modeler.ReadIndices(doc, doc.Accessors[*prim.Indices], nil)
			require.NoError(t, err)
			out.parts = append(out.parts, p)
		}
	}
	if len(doc.Images) > 0 && doc.Images[0].BufferView != nil {
		data, err := modeler.ReadBufferView(doc, doc.BufferViews[*doc.Images[0].BufferView])
		require.NoError(t, err)
		out.tex, _, err = image.Decode(bytes.NewReader(data))
		require.NoError(t, err)
	}
	return out
}

// renderDir is where tests drop renders for people to look at (unset: no renders).
func renderDir() string { return os.Getenv("PHOTO3D_RENDER_DIR") }

// renderViews writes front, three-quarter and back renders of a GLB to dir.
func renderViews(t testing.TB, g *decodedGLB, name string) {
	t.Helper()
	dir := renderDir()
	if dir == "" {
		return
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	views := []struct {
		suffix     string
		yaw, pitch float64
	}{{"front", 0, 0}, {"three-quarter", 50, 20}, {"side", 90, 0}, {"back", 180, 0}}
	const size = 400
	sheet := image.NewNRGBA(image.Rect(0, 0, size*len(views), size))
	for i, v := range views {
		img := renderOrtho(g, v.yaw*math.Pi/180, v.pitch*math.Pi/180, size)
		draw.Draw(sheet, image.Rect(i*size, 0, (i+1)*size, size), img, image.Point{}, draw.Src)
	}
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, sheet))
	require.NoError(t, os.WriteFile(filepath.Join(dir, name+".png"), buf.Bytes(), 0o644))
}

// renderOrtho is a tiny z-buffered software rasteriser with Lambert shading and
// nearest-texel texturing, enough to eyeball shape and texture placement.
func renderOrtho(g *decodedGLB, yaw, pitch float64, size int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	for i := range img.Pix {
		img.Pix[i] = 235
	}
	zbuf := make([]float64, size*size)
	for i := range zbuf {
		zbuf[i] = math.Inf(-1)
	}
	cy, sy := math.Cos(yaw), math.Sin(yaw)
	cp, sp := math.Cos(pitch), math.Sin(pitch)
	xf := func(p [3]float32) [3]float64 {
		x, y, z := float64(p[0]), float64(p[1]), float64(p[2])
		x, z = x*cy+z*sy, -x*sy+z*cy
		y, z = y*cp-z*sp, y*sp+z*cp
		return [3]float64{x, y, z}
	}
	var lo, hi [2]float64 = [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
	for _, p := range g.parts {
		for _, v := range p.pos {
			q := xf(v)
			lo[0], lo[1] = min(lo[0], q[0]), min(lo[1], q[1])
			hi[0], hi[1] = max(hi[0], q[0]), max(hi[1], q[1])
		}
	}
	span := max(hi[0]-lo[0], hi[1]-lo[1]) * 1.1
	mid := [2]float64{(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2}
	toScreen := func(q [3]float64) (float64, float64) {
		return (q[0]-mid[0])/span*float64(size) + float64(size)/2, -(q[1]-mid[1])/span*float64(size) + float64(size)/2
	}
	light := [3]float64{0.3, 0.5, 0.8}
	ll := math.Sqrt(light[0]*light[0] + light[1]*light[1] + light[2]*light[2])
	for _, p := range g.parts {
		for t := 0; t+2 < len(p.idx); t += 3 {
			var sx, sy2, sz [3]float64
			var uv [3][2]float32
			var nl [3]float64
			for k := range 3 {
				v := p.idx[t+k]
				q := xf(p.pos[v])
				sx[k], sy2[k] = toScreen(q)
				sz[k] = q[2]
				uv[k] = p.uv[v]
				n := xf(p.nrm[v])
				nl[k] = max(0.15, (n[0]*light[0]+n[1]*light[1]+n[2]*light[2])/ll)
			}
			area := (sx[1]-sx[0])*(sy2[2]-sy2[0]) - (sx[2]-sx[0])*(sy2[1]-sy2[0])
			if area >= 0 { // back-facing (screen y points down)
				continue
			}
			x0, x1 := int(max(0, math.Floor(min(sx[0], sx[1], sx[2])))), int(min(float64(size-1), math.Ceil(max(sx[0], sx[1], sx[2]))))
			y0, y1 := int(max(0, math.Floor(min(sy2[0], sy2[1], sy2[2])))), int(min(float64(size-1), math.Ceil(max(sy2[0], sy2[1], sy2[2]))))
			for y := y0; y <= y1; y++ {
				for x := x0; x <= x1; x++ {
					px, py := float64(x)+0.5, float64(y)+0.5
					w0 := ((sx[1]-px)*(sy2[2]-py) - (sx[2]-px)*(sy2[1]-py)) / area
					w1 := ((sx[2]-px)*(sy2[0]-py) - (sx[0]-px)*(sy2[2]-py)) / area
					w2 := 1 - w0 - w1
					if w0 < 0 || w1 < 0 || w2 < 0 {
						continue
					}
					z := w0*sz[0] + w1*sz[1] + w2*sz[2]
					if z <= zbuf[y*size+x] {
						continue
					}
					zbuf[y*size+x] = z
					u := w0*float64(uv[0][0]) + w1*float64(uv[1][0]) + w2*float64(uv[2][0])
					vv := w0*float64(uv[0][1]) + w1*float64(uv[1][1]) + w2*float64(uv[2][1])
					shade := w0*nl[0] + w1*nl[1] + w2*nl[2]
					c := color.NRGBA{200, 200, 200, 255}
					if g.tex != nil {
						b := g.tex.Bounds()
						tx := min(b.Dx()-1, max(0, int(u*float64(b.Dx()))))
						ty := min(b.Dy()-1, max(0, int(vv*float64(b.Dy()))))
						r, gg, bb, _ := g.tex.At(b.Min.X+tx, b.Min.Y+ty).RGBA()
						c = color.NRGBA{uint8(r >> 8), uint8(gg >> 8), uint8(bb >> 8), 255}
					}
					k := 0.35 + 0.75*shade
					img.SetNRGBA(x, y, color.NRGBA{
						uint8(min(255, float64(c.R)*k)), uint8(min(255, float64(c.G)*k)), uint8(min(255, float64(c.B)*k)), 255})
				}
			}
		}
	}
	return img
}
