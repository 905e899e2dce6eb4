package fidelity

import (
	"bytes"
	"context"
	"fmt"
	"math"

	"github.com/photo3d/photo3d/internal/reconstruct/geom"
	"github.com/photo3d/photo3d/internal/reconstruct/glbio"
	"github.com/photo3d/photo3d/internal/reconstruct/segment"
	"github.com/photo3d/photo3d/internal/reconstruct/shape"
	"github.com/photo3d/photo3d/internal/reconstruct/texture"
	"github.com/qmuntal/gltf"
)

// RemoteFidelity scores a remote model like a built-in one (fidelity.go): the
// normalised GLB, as stored, is re-rendered through the estimated photo camera
// and compared with the builtin segmenter's mask and the photo's colours. The
// server's mesh has its own texture layout, so each triangle is coloured once
// (its material colour times its texture at the triangle's centre) and the
// render samples a one-texel-per-triangle atlas; server meshes are finely
// tessellated, so this loses little.
//
// It returns -1 and why when the model cannot be scored: a GLB that does not
// read back, or a model that renders nothing through any camera tried.
func RemoteFidelity(ctx context.Context, glb []byte, seg *segment.Segmentation, p *segment.Photo) (int, error) {
	doc := new(gltf.Document)
	if err := gltf.NewDecoder(bytes.NewReader(glb)).Decode(doc); err != nil {
		return -1, fmt.Errorf("read the model back: %w", err)
	}
	tris, err := glbio.DocumentTriangles(doc)
	if err != nil {
		return -1, fmt.Errorf("read the model's triangles: %w", err)
	}
	if len(tris) == 0 {
		return -1, fmt.Errorf("the model has no triangles")
	}
	m := &geom.Mesh{Pos: make([][3]float32, 0, 3*len(tris)), Uv: make([][2]float32, 0, 3*len(tris)), Idx: make([]uint32, 0, 3*len(tris))}
	atlas := &texture.AtlasSource{W: len(tris), H: 1, Col: make([][3]float32, len(tris))}
	for i, t := range tris {
		base := t.Rgb
		if t.Tex != nil {
			c := glbio.Texel(t.Tex, float64(t.Uv[0][0]+t.Uv[1][0]+t.Uv[2][0])/3, float64(t.Uv[0][1]+t.Uv[1][1]+t.Uv[2][1])/3)
			base = [3]float64{base[0] * c[0], base[1] * c[1], base[2] * c[2]}
		}
		for k := range 3 {
			// The atlas holds sRGB bytes as the builtin's does.
			atlas.Col[i][k] = float32(255 * math.Pow(min(1, max(0, base[k])), 1/2.2))
		}
		u := (float32(i) + 0.5) / float32(len(tris))
		for k := range 3 {
			v := t.V[k]
			m.Pos = append(m.Pos, [3]float32{float32(v[0]), float32(v[1]), float32(v[2])})
			m.Uv = append(m.Uv, [2]float32{u, 0.5})
			m.Idx = append(m.Idx, uint32(len(m.Pos)-1))
		}
	}
	score := ModelFidelity([]glbio.Part{{Name: "Body", Mesh: m}}, shape.KindRemote, seg, p, atlas)
	if score < 0 {
		return -1, fmt.Errorf("the model renders nothing through the estimated camera")
	}
	limit, err := remoteShapeCap(ctx, seg, tris)
	if err != nil {
		return -1, err
	}
	return min(score, limit), nil
}

// remoteShapeCap is the most a remote model may score for its shape. The re-render
// checks only the side the photo shows, so on its own it cannot tell a learned
// model's right guess of the hidden side from a wrong one: on the real-product set
// through a fake inference server (realset_remote_test.go), the silhouette's prism
// re-projected to fidelity 70–79 at F@5 0.17–0.48, and the true meshes to 58–82,
// uncorrelated with their F@5. So a remote shape is held to the builtin's rule
// (ShapeCap): where the photo does not evidence the depth, the hidden side is a
// guess, however it was made, and the score stays under the warning threshold.
// Where the photo does evidence it, the model must agree with that evidence to
// claim more: a round footprint under a solid of revolution (LatheEvidenced), or a
// box's proportions where the photo shows a box's side and top (the cuboid fit the
// builtin measures depth with).
func remoteShapeCap(ctx context.Context, seg *segment.Segmentation, tris []glbio.ModelTri) (int, error) {
	if LatheEvidenced(seg) && FootprintRoundness(tris) >= RemoteRoundFootprint {
		return 100, nil
	}
	box, err := shape.FitCuboid(ctx, seg)
	if err != nil {
		return 0, err
	}
	if box.Ok && !box.SquareOn() && boxAgrees(tris, box) {
		return 100, nil
	}
	return ShapeGuessCap(seg), nil
}

// remoteBoxTolerance is how far (as a factor) a remote model's width and depth over
// its height may be from the box the photo shows, each.
const remoteBoxTolerance = 1.2

// boxAgrees reports whether the model is the box the photo shows: its footprint
// fills the smallest rectangle around it (remoteBoxFill), and that rectangle's sides
// over the model's height match the fitted box's width and depth over its height,
// in either order, within remoteBoxTolerance.
func boxAgrees(tris []glbio.ModelTri, box shape.CuboidFit) bool {
	yaw, a, b, h := footprintRectangle(tris)
	if h <= 0 || a <= 0 || b <= 0 {
		return false
	}
	if footprintFill(tris, yaw) < remoteBoxFill {
		return false
	}
	within := func(x, y float64) bool { return math.Abs(math.Log(x/y)) <= math.Log(remoteBoxTolerance) }
	w, d := a/h, b/h
	return (within(w, box.Wr) && within(d, box.Dr)) || (within(w, box.Dr) && within(d, box.Wr))
}

// remoteBoxFill is the least share of its smallest rectangle a box's footprint fills
// (a disc fills π/4 of its square).
const remoteBoxFill = 0.9

// footprintRectangle is the smallest rectangle around the model's footprint (seen
// from above, +Y up), over yaws in steps of a degree: its yaw, its sides, and the
// model's height.
func footprintRectangle(tris []glbio.ModelTri) (yaw, a, b, h float64) {
	ylo, yhi := math.Inf(1), math.Inf(-1)
	for _, t := range tris {
		for _, v := range t.V {
			ylo, yhi = min(ylo, v[1]), max(yhi, v[1])
		}
	}
	best := math.Inf(1)
	for deg := 0; deg < 90; deg++ {
		r := float64(deg) * math.Pi / 180
		lo, hi := footprintExtent(tris, r)
		if area := (hi[0] - lo[0]) * (hi[1] - lo[1]); area < best {
			best, yaw, a, b = area, r, hi[0]-lo[0], hi[1]-lo[1]
		}
	}
	return yaw, a, b, yhi - ylo
}

// footprintExtent is the box of the model's footprint in axes turned by yaw.
func footprintExtent(tris []glbio.ModelTri, yaw float64) (lo, hi [2]float64) {
	c, s := math.Cos(yaw), math.Sin(yaw)
	lo, hi = [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
	for _, t := range tris {
		for _, v := range t.V {
			x, z := v[0]*c+v[2]*s, -v[0]*s+v[2]*c
			lo[0], hi[0] = min(lo[0], x), max(hi[0], x)
			lo[1], hi[1] = min(lo[1], z), max(hi[1], z)
		}
	}
	return lo, hi
}

// RemoteRoundFootprint is the least overlap of a model's footprint with the ellipse
// inscribed in its box for the model to be round as seen from above: a disc's is
// about 1, a square's π/4 ≈ 0.79 (the prism a model that only extruded the outline
// would make).
const RemoteRoundFootprint = 0.9

// FootprintRoundness is the IoU of the model's footprint with the ellipse inscribed
// in its box (axis-aligned).
func FootprintRoundness(tris []glbio.ModelTri) float64 {
	cover, ok := footprintCover(tris, 0)
	if !ok {
		return 0
	}
	inter, union := 0, 0
	for z := range footprintGrid {
		for x := range footprintGrid {
			dx, dz := (float64(x)+0.5)/footprintGrid*2-1, (float64(z)+0.5)/footprintGrid*2-1
			e := dx*dx+dz*dz <= 1
			c := cover[z*footprintGrid+x]
			if e && c {
				inter++
			}
			if e || c {
				union++
			}
		}
	}
	return float64(inter) / float64(union)
}

// footprintFill is the share of its box, in axes turned by yaw, that the model's
// footprint covers.
func footprintFill(tris []glbio.ModelTri, yaw float64) float64 {
	cover, ok := footprintCover(tris, yaw)
	if !ok {
		return 0
	}
	n := 0
	for _, c := range cover {
		if c {
			n++
		}
	}
	return float64(n) / float64(len(cover))
}

// footprintGrid is the side of the grid footprints are rasterised on.
const footprintGrid = 64

// footprintCover rasterises the model's triangles seen from above (+Y up, as
// normalised), in axes turned by yaw, on a footprintGrid² grid over their box: a
// cell is covered when its centre lies in a triangle. ok is false for a model
// with no extent.
func footprintCover(tris []glbio.ModelTri, yaw float64) ([]bool, bool) {
	const n = footprintGrid
	lo, hi := footprintExtent(tris, yaw)
	if !(hi[0] > lo[0] && hi[1] > lo[1]) {
		return nil, false
	}
	c, s := math.Cos(yaw), math.Sin(yaw)
	sx, sz := n/(hi[0]-lo[0]), n/(hi[1]-lo[1])
	cover := make([]bool, n*n)
	for _, t := range tris {
		var q [3][2]float64
		for k, v := range t.V {
			x, z := v[0]*c+v[2]*s, -v[0]*s+v[2]*c
			q[k] = [2]float64{(x - lo[0]) * sx, (z - lo[1]) * sz}
		}
		area := (q[1][0]-q[0][0])*(q[2][1]-q[0][1]) - (q[2][0]-q[0][0])*(q[1][1]-q[0][1])
		if area == 0 {
			continue
		}
		x0, x1 := int(min(q[0][0], q[1][0], q[2][0])), int(max(q[0][0], q[1][0], q[2][0]))
		z0, z1 := int(min(q[0][1], q[1][1], q[2][1])), int(max(q[0][1], q[1][1], q[2][1]))
		for z := max(0, z0); z <= min(n-1, z1); z++ {
			for x := max(0, x0); x <= min(n-1, x1); x++ {
				if cover[z*n+x] {
					continue
				}
				px, pz := float64(x)+0.5, float64(z)+0.5
				// Barycentric sign test (either winding).
				w0 := ((q[1][0]-px)*(q[2][1]-pz) - (q[2][0]-px)*(q[1][1]-pz)) / area
				w1 := ((q[2][0]-px)*(q[0][1]-pz) - (q[0][0]-px)*(q[2][1]-pz)) / area
				if w0 >= 0 && w1 >= 0 && w0+w1 <= 1 {
					cover[z*n+x] = true
				}
			}
		}
	}
	return cover, true
}
