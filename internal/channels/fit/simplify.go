package fit

import (
	"fmt"
	"math"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// simplify reduces the model to about target triangles by vertex
// clustering: each primitive's vertices are snapped to a grid over its
// bounds and merged per cell (position and normal averaged, the first
// texture coordinate kept), and triangles that collapse are dropped. It is
// crude next to quadric decimation, but it never breaks the mesh's
// validity and runs in linear time; the packager uses it only when a file
// is over a channel's budget, and the Channels panel says so.
// Primitives with attributes other than POSITION, NORMAL and TEXCOORD_0,
// or with morph targets, are left as they are.
func simplify(doc *gltf.Document, target int) error {
	total := triangles(doc)
	if total <= target || total == 0 {
		return nil
	}
	ratio := float64(target) / float64(total)
	for _, m := range doc.Meshes {
		for _, p := range m.Primitives {
			if p.Mode != gltf.PrimitiveTriangles || len(p.Targets) > 0 || !simplifiable(p) {
				continue
			}
			if err := simplifyPrimitive(doc, p, ratio); err != nil {
				return err
			}
		}
	}
	return nil
}

func simplifiable(p *gltf.Primitive) bool {
	for k := range p.Attributes {
		if k != gltf.POSITION && k != gltf.NORMAL && k != gltf.TEXCOORD_0 {
			return false
		}
	}
	_, ok := p.Attributes[gltf.POSITION]
	return ok
}

func simplifyPrimitive(doc *gltf.Document, p *gltf.Primitive, ratio float64) error {
	pos, err := modeler.ReadPosition(doc, doc.Accessors[p.Attributes[gltf.POSITION]], nil)
	if err != nil {
		return fmt.Errorf("read positions: %w", err)
	}
	var nrm [][3]float32
	if ai, ok := p.Attributes[gltf.NORMAL]; ok {
		if nrm, err = modeler.ReadNormal(doc, doc.Accessors[ai], nil); err != nil || len(nrm) != len(pos) {
			return fmt.Errorf("read normals: %v", err)
		}
	}
	var uv [][2]float32
	if ai, ok := p.Attributes[gltf.TEXCOORD_0]; ok {
		if uv, err = modeler.ReadTextureCoord(doc, doc.Accessors[ai], nil); err != nil || len(uv) != len(pos) {
			return fmt.Errorf("read texture coordinates: %v", err)
		}
	}
	var idx []uint32
	if p.Indices != nil {
		if idx, err = modeler.ReadIndices(doc, doc.Accessors[*p.Indices], nil); err != nil {
			return fmt.Errorf("read indices: %w", err)
		}
	} else {
		idx = make([]uint32, len(pos))
		for i := range idx {
			idx[i] = uint32(i)
		}
	}
	tris := len(idx) / 3
	want := max(int(float64(tris)*ratio), 4)
	if tris <= want {
		return nil
	}
	lo := [3]float32{math.MaxFloat32, math.MaxFloat32, math.MaxFloat32}
	hi := [3]float32{-math.MaxFloat32, -math.MaxFloat32, -math.MaxFloat32}
	for _, v := range pos {
		for k := range 3 {
			lo[k], hi[k] = min(lo[k], v[k]), max(hi[k], v[k])
		}
	}
	// A grid of res cells along the longest side; fewer cells until the
	// triangles fit (each try is linear in the vertices).
	res := math.Sqrt(float64(want)) * 2
	for range 24 {
		out := cluster(pos, nrm, uv, idx, lo, hi, res)
		if len(out.idx)/3 <= want || res < 2 {
			writeSimplified(doc, p, out)
			return nil
		}
		res *= 0.8
	}
	return nil
}

type clustered struct {
	pos [][3]float32
	nrm [][3]float32
	uv  [][2]float32
	idx []uint32
}

func cluster(pos, nrm [][3]float32, uv [][2]float32, idx []uint32, lo, hi [3]float32, res float64) clustered {
	span := math.Max(float64(hi[0]-lo[0]), math.Max(float64(hi[1]-lo[1]), float64(hi[2]-lo[2])))
	cell := span / res
	if cell <= 0 {
		cell = 1
	}
	type key [3]int32
	cellOf := map[key]uint32{}
	remap := make([]uint32, len(pos))
	var out clustered
	var sum [][3]float64
	var nsum [][3]float64
	var count []float64
	for i, v := range pos {
		k := key{int32(float64(v[0]-lo[0]) / cell), int32(float64(v[1]-lo[1]) / cell), int32(float64(v[2]-lo[2]) / cell)}
		c, ok := cellOf[k]
		if !ok {
			c = uint32(len(sum))
			cellOf[k] = c
			sum = append(sum, [3]float64{})
			nsum = append(nsum, [3]float64{})
			count = append(count, 0)
			if uv != nil {
				out.uv = append(out.uv, uv[i])
			}
		}
		remap[i] = c
		for j := range 3 {
			sum[c][j] += float64(v[j])
			if nrm != nil {
				nsum[c][j] += float64(nrm[i][j])
			}
		}
		count[c]++
	}
	out.pos = make([][3]float32, len(sum))
	for c := range sum {
		out.pos[c] = [3]float32{float32(sum[c][0] / count[c]), float32(sum[c][1] / count[c]), float32(sum[c][2] / count[c])}
	}
	if nrm != nil {
		out.nrm = make([][3]float32, len(sum))
		for c, n := range nsum {
			l := math.Sqrt(n[0]*n[0] + n[1]*n[1] + n[2]*n[2])
			if l == 0 {
				out.nrm[c] = [3]float32{0, 1, 0}
				continue
			}
			out.nrm[c] = [3]float32{float32(n[0] / l), float32(n[1] / l), float32(n[2] / l)}
		}
	}
	seen := map[[3]uint32]bool{}
	for t := 0; t+2 < len(idx); t += 3 {
		a, b, c := remap[idx[t]], remap[idx[t+1]], remap[idx[t+2]]
		if a == b || b == c || a == c {
			continue
		}
		k := [3]uint32{a, b, c}
		// One key per triangle whatever vertex it starts from.
		for k[0] > k[1] || k[0] > k[2] {
			k = [3]uint32{k[1], k[2], k[0]}
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		out.idx = append(out.idx, a, b, c)
	}
	// Drop the vertices no triangle uses any more.
	used := make([]int64, len(out.pos))
	for i := range used {
		used[i] = -1
	}
	var final clustered
	for i, v := range out.idx {
		if used[v] < 0 {
			used[v] = int64(len(final.pos))
			final.pos = append(final.pos, out.pos[v])
			if out.nrm != nil {
				final.nrm = append(final.nrm, out.nrm[v])
			}
			if out.uv != nil {
				final.uv = append(final.uv, out.uv[v])
			}
		}
		out.idx[i] = uint32(used[v])
	}
	final.idx = out.idx
	return final
}

func writeSimplified(doc *gltf.Document, p *gltf.Primitive, c clustered) {
	p.Attributes[gltf.POSITION] = modeler.WritePosition(doc, c.pos)
	if c.nrm != nil {
		p.Attributes[gltf.NORMAL] = modeler.WriteNormal(doc, c.nrm)
	}
	if c.uv != nil {
		p.Attributes[gltf.TEXCOORD_0] = modeler.WriteTextureCoord(doc, c.uv)
	}
	if len(c.pos) <= math.MaxUint16 {
		small := make([]uint16, len(c.idx))
		for i, v := range c.idx {
			small[i] = uint16(v)
		}
		p.Indices = gltf.Index(modeler.WriteIndices(doc, small))
	} else {
		p.Indices = gltf.Index(modeler.WriteIndices(doc, c.idx))
	}
}
