package shape

import (
	"context"
	"slices"

	"github.com/photo3d/photo3d/internal/reconstruct/geom"
	"github.com/photo3d/photo3d/internal/reconstruct/segment"
	"github.com/photo3d/photo3d/internal/reconstruct/texture"
)

// BuildClassShape builds a silhouette that no geometric fit took, with the depth its
// class has (depthprior.go). Every class is a height field over the silhouette like
// BuildInflate (so parts stay closed and welded); furniture also gets rear legs, a
// copy of the legs band placed at the back, since a front photo hides them behind the
// front legs. The rear legs are appended to pm as their own part.
func BuildClassShape(ctx context.Context, seg *segment.Segmentation, pm *segment.PartMap, uvm texture.UVMapper, maxTris int, cls SilClass) ([]*geom.Mesh, error) {
	if cls.Class != ShapeClassFurniture {
		return BuildShaped(ctx, seg, pm, uvm, maxTris, Shaping{Depth: cls.DepthFn(true)})
	}
	bodyTris := maxTris * 85 / 100
	meshes, err := BuildShaped(ctx, seg, pm, uvm, bodyTris, Shaping{Depth: cls.DepthFn(true)})
	if err != nil {
		return nil, err
	}
	legs, info := legsBand(seg, pm, cls.legTop)
	if info.area == 0 || len(pm.Parts) >= 16 {
		return meshes, nil
	}
	frame := Shaping{Depth: cls.DepthFn(false), frameSet: true,
		base: float64(seg.Bbox.Max.Y), cx: float64(seg.Bbox.Min.X+seg.Bbox.Max.X) / 2}
	rear, err := BuildShaped(ctx, legs, info.pm, uvm, maxTris-bodyTris, frame)
	if err != nil {
		return nil, err
	}
	m := &geom.Mesh{}
	for _, r := range rear {
		if r != nil {
			appendMesh(m, r)
		}
	}
	if m.Triangles() > 0 {
		pm.Parts = append(pm.Parts, info.part)
		meshes = append(meshes, m)
	}
	return meshes, nil
}

// legsInfo is the legs band as a one-part part map, with its summary as a part.
type legsInfo struct {
	pm   *segment.PartMap
	part segment.PartInfo
	area int
}

// legsBand returns a copy of seg holding only the rows from legTop down (the legs),
// with the same bounding box so lattice and frame match the whole model's, and a
// part map in which the band is a single part named "Rear legs".
func legsBand(seg *segment.Segmentation, pm *segment.PartMap, legTop int) (*segment.Segmentation, legsInfo) {
	legs := *seg
	legs.Alpha = slices.Clone(seg.Alpha)
	clear(legs.Alpha[:min(len(legs.Alpha), max(0, legTop)*seg.W)])
	one := &segment.PartMap{W: pm.W, H: pm.H, Labels: slices.Clone(pm.Labels)}
	info := segment.PartInfo{Name: "Rear legs", MinX: pm.W, MinY: pm.H}
	for i, l := range one.Labels {
		if l < 0 {
			continue
		}
		one.Labels[i] = 0
		gx, gy := i%pm.W, i/pm.W
		if (gy+1)*seg.F <= legTop {
			continue
		}
		info.Area++
		c := seg.Srgb[i]
		info.Sum[0] += float64(c[0])
		info.Sum[1] += float64(c[1])
		info.Sum[2] += float64(c[2])
		info.MinX, info.MaxX = min(info.MinX, gx), max(info.MaxX, gx)
		info.MinY, info.MaxY = min(info.MinY, gy), max(info.MaxY, gy)
	}
	one.Parts = []segment.PartInfo{info}
	return &legs, legsInfo{pm: one, part: info, area: info.Area}
}
