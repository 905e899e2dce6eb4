package reconstruct

import (
	"context"
	"slices"
)

// buildClassShape builds a silhouette that no geometric fit took, with the depth its
// class has (depthprior.go). Every class is a height field over the silhouette like
// buildInflate (so parts stay closed and welded); furniture also gets rear legs, a
// copy of the legs band placed at the back, since a front photo hides them behind the
// front legs. The rear legs are appended to pm as their own part.
func buildClassShape(ctx context.Context, seg *segmentation, pm *partMap, uvm uvMapper, maxTris int, cls silClass) ([]*mesh, error) {
	if cls.class != ShapeClassFurniture {
		return buildShaped(ctx, seg, pm, uvm, maxTris, shaping{depth: cls.depthFn(true)})
	}
	bodyTris := maxTris * 85 / 100
	meshes, err := buildShaped(ctx, seg, pm, uvm, bodyTris, shaping{depth: cls.depthFn(true)})
	if err != nil {
		return nil, err
	}
	legs, info := legsBand(seg, pm, cls.legTop)
	if info.area == 0 || len(pm.parts) >= 16 {
		return meshes, nil
	}
	frame := shaping{depth: cls.depthFn(false), frameSet: true,
		base: float64(seg.bbox.Max.Y), cx: float64(seg.bbox.Min.X+seg.bbox.Max.X) / 2}
	rear, err := buildShaped(ctx, legs, info.pm, uvm, maxTris-bodyTris, frame)
	if err != nil {
		return nil, err
	}
	m := &mesh{}
	for _, r := range rear {
		if r != nil {
			appendMesh(m, r)
		}
	}
	if m.triangles() > 0 {
		pm.parts = append(pm.parts, info.part)
		meshes = append(meshes, m)
	}
	return meshes, nil
}

// legsInfo is the legs band as a one-part part map, with its summary as a part.
type legsInfo struct {
	pm   *partMap
	part partInfo
	area int
}

// legsBand returns a copy of seg holding only the rows from legTop down (the legs),
// with the same bounding box so lattice and frame match the whole model's, and a
// part map in which the band is a single part named "Rear legs".
func legsBand(seg *segmentation, pm *partMap, legTop int) (*segmentation, legsInfo) {
	legs := *seg
	legs.alpha = slices.Clone(seg.alpha)
	clear(legs.alpha[:min(len(legs.alpha), max(0, legTop)*seg.w)])
	one := &partMap{w: pm.w, h: pm.h, labels: slices.Clone(pm.labels)}
	info := partInfo{name: "Rear legs", minX: pm.w, minY: pm.h}
	for i, l := range one.labels {
		if l < 0 {
			continue
		}
		one.labels[i] = 0
		gx, gy := i%pm.w, i/pm.w
		if (gy+1)*seg.f <= legTop {
			continue
		}
		info.area++
		c := seg.srgb[i]
		info.sum[0] += float64(c[0])
		info.sum[1] += float64(c[1])
		info.sum[2] += float64(c[2])
		info.minX, info.maxX = min(info.minX, gx), max(info.maxX, gx)
		info.minY, info.maxY = min(info.minY, gy), max(info.maxY, gy)
	}
	one.parts = []partInfo{info}
	return &legs, legsInfo{pm: one, part: info, area: info.area}
}
