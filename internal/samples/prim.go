package samples

import (
	"math"
)

// The primitive builders below each return a closed mesh with outward normals. Every
// model in this package is assembled from them, so closing and orienting the surface
// correctly once here is what makes all samples watertight.

// hexa builds a six-sided solid from eight corners with flat faces. Corner i has bit 0
// set for the +X side, bit 1 for +Y and bit 2 for +Z, so a box and a tapered leg are
// the same code.
func hexa(c [8]vec3) *mesh {
	faces := [6][4]int{
		{0, 4, 6, 2}, // -X
		{1, 3, 7, 5}, // +X
		{0, 1, 5, 4}, // -Y
		{2, 6, 7, 3}, // +Y
		{0, 2, 3, 1}, // -Z
		{4, 5, 7, 6}, // +Z
	}
	m := &mesh{}
	for _, f := range faces {
		a, b, cc, d := c[f[0]], c[f[1]], c[f[2]], c[f[3]]
		n := cc.sub(a).cross(d.sub(b)).unit()
		m.quad(m.vertex(a, n), m.vertex(b, n), m.vertex(cc, n), m.vertex(d, n))
	}
	return m
}

// box is an axis-aligned box of the given size whose centre is at the origin.
func box(sx, sy, sz float64) *mesh {
	return taperedBox(sx, sz, sx, sz, sy).move(vec3{0, -sy / 2, 0})
}

// boxAt is an axis-aligned box spanning lo..hi, the easiest way to place panels.
func boxAt(lo, hi vec3) *mesh {
	var c [8]vec3
	for i := range 8 {
		for a := range 3 {
			if i&(1<<a) != 0 {
				c[i][a] = hi[a]
			} else {
				c[i][a] = lo[a]
			}
		}
	}
	return hexa(c)
}

// taperedBox is a square-section frustum standing on y = 0: bx×bz at the bottom, tx×tz
// at the top, h high. Table and bed legs are tapered like this.
func taperedBox(bx, bz, tx, tz, h float64) *mesh {
	var c [8]vec3
	for i := range 8 {
		sx, sz := bx, bz
		y := 0.0
		if i&2 != 0 {
			sx, sz, y = tx, tz, h
		}
		x, z := -sx/2, -sz/2
		if i&1 != 0 {
			x = sx / 2
		}
		if i&4 != 0 {
			z = sz / 2
		}
		c[i] = vec3{x, y, z}
	}
	return hexa(c)
}

// roundedBox is a box of the given size centred at the origin whose edges and corners
// are rounded with radius r (r at most half the smallest side), seg steps per quarter
// circle. It is a cube lattice whose points are pushed onto the rounded surface, and
// lattice points are shared between faces, so the surface is closed by construction.
func roundedBox(size vec3, r float64, seg int) *mesh {
	half := size.scale(0.5)
	var coords [3][]float64
	for a := range 3 {
		coords[a] = roundedAxis(half[a], r, seg)
	}
	nx, ny, nz := len(coords[0]), len(coords[1]), len(coords[2])
	m := &mesh{}
	index := map[[3]int]uint32{}
	vert := func(l [3]int) uint32 {
		if v, ok := index[l]; ok {
			return v
		}
		p := vec3{coords[0][l[0]], coords[1][l[1]], coords[2][l[2]]}
		var inner vec3
		for a := range 3 {
			inner[a] = math.Max(-(half[a] - r), math.Min(half[a]-r, p[a]))
		}
		n := p.sub(inner).unit()
		v := m.vertex(inner.add(n.scale(r)), n)
		index[l] = v
		return v
	}
	n := [3]int{nx, ny, nz}
	// For each face: the fixed axis and the two in-plane axes ordered so that u×v
	// points outwards on the + side.
	planes := [3][3]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}}
	for _, pl := range planes {
		a, u, v := pl[0], pl[1], pl[2]
		for side := range 2 {
			fixed := 0
			if side == 1 {
				fixed = n[a] - 1
			}
			for i := 0; i+1 < n[u]; i++ {
				for j := 0; j+1 < n[v]; j++ {
					corner := func(di, dj int) uint32 {
						var l [3]int
						l[a], l[u], l[v] = fixed, i+di, j+dj
						return vert(l)
					}
					if side == 1 {
						m.quad(corner(0, 0), corner(1, 0), corner(1, 1), corner(0, 1))
					} else {
						m.quad(corner(0, 0), corner(0, 1), corner(1, 1), corner(1, 0))
					}
				}
			}
		}
	}
	return m
}

// roundedAxis lists the lattice coordinates along one axis of a rounded box: seg
// steps through each rounded band (spaced by equal angles, so the curve is even) and
// one step across the flat middle when there is one.
func roundedAxis(h, r float64, seg int) []float64 {
	flat := h - r
	band := make([]float64, seg+1)
	for k := range seg + 1 {
		band[k] = flat + r*math.Tan(math.Pi/4*float64(k)/float64(seg))
	}
	band[seg] = h
	out := make([]float64, 0, 2*seg+2)
	for k := seg; k >= 0; k-- {
		out = append(out, -band[k])
	}
	if flat <= 1e-9 {
		out = out[:len(out)-1]
	}
	return append(out, band...)
}

// pt is one point of a lathe profile in (radius, height); nr, ny is its normal in the
// same plane, or zero to derive it from the neighbouring points.
type pt struct{ r, y, nr, ny float64 }

// run is one smooth stretch of a lathe profile. Neighbouring runs share their end
// point but not its normal, which makes a crease (a cylinder's rim) or a colour
// boundary (a bee's stripes). mat says which material the run uses.
type run struct {
	pts    []pt
	mat    int
	closed bool // the profile loops back to its first point (a torus)
}

// lathe revolves profile runs about the Y axis with seg sides and returns one mesh
// per material index (in order of first use). A profile walks from the bottom pole to
// the top pole with the body on its left, like a counter-clockwise outline in the
// (radius, height) plane; points with radius 0 become a single pole vertex.
func lathe(runs []run, seg int, phase float64) (meshes []*mesh, mats []int) {
	cs := make([][2]float64, seg)
	for j := range seg {
		s, c := math.Sincos(phase + 2*math.Pi*float64(j)/float64(seg))
		cs[j] = [2]float64{c, s}
	}
	byMat := map[int]*mesh{}
	for _, rn := range runs {
		m, ok := byMat[rn.mat]
		if !ok {
			m = &mesh{}
			byMat[rn.mat] = m
			meshes = append(meshes, m)
			mats = append(mats, rn.mat)
		}
		latheRun(m, rn, cs)
	}
	return meshes, mats
}

// latheOne is lathe for a single-material shape.
func latheOne(runs []run, seg int) *mesh {
	meshes, _ := lathe(runs, seg, 0)
	return merge(meshes...)
}

func latheRun(m *mesh, rn run, cs [][2]float64) {
	p := rn.pts
	n := len(p)
	seg := len(cs)
	segNormal := func(a, b pt) [2]float64 {
		dr, dy := b.r-a.r, b.y-a.y
		l := math.Hypot(dr, dy)
		return [2]float64{dy / l, -dr / l}
	}
	rings := make([][]uint32, n)
	for i, q := range p {
		nr, ny := q.nr, q.ny
		if nr == 0 && ny == 0 {
			var acc [2]float64
			if i > 0 || rn.closed {
				s := segNormal(p[(i-1+n)%n], q)
				acc[0], acc[1] = acc[0]+s[0], acc[1]+s[1]
			}
			if i < n-1 || rn.closed {
				s := segNormal(q, p[(i+1)%n])
				acc[0], acc[1] = acc[0]+s[0], acc[1]+s[1]
			}
			nr, ny = acc[0], acc[1]
		}
		if q.r == 0 {
			rings[i] = []uint32{m.vertex(vec3{0, q.y, 0}, vec3{0, ny, 0})}
			continue
		}
		ring := make([]uint32, seg)
		for j, c := range cs {
			ring[j] = m.vertex(vec3{q.r * c[0], q.y, q.r * c[1]}, vec3{nr * c[0], ny, nr * c[1]})
		}
		rings[i] = ring
	}
	at := func(ring []uint32, j int) uint32 {
		if len(ring) == 1 {
			return ring[0]
		}
		return ring[j%seg]
	}
	last := n - 1
	if rn.closed {
		last = n
	}
	for i := range last {
		a, b := rings[i], rings[(i+1)%n]
		for j := range seg {
			// Profile direction × around direction points outwards.
			switch {
			case len(a) == 1 && len(b) == 1:
			case len(a) == 1:
				m.tri(a[0], at(b, j), at(b, j+1))
			case len(b) == 1:
				m.tri(at(a, j), b[0], at(a, j+1))
			default:
				m.quad(at(a, j), at(b, j), at(b, j+1), at(a, j+1))
			}
		}
	}
}

// arc returns the points of a circular arc in the profile plane around (cr, cy) from
// angle a0 to a1 (degrees, 0 = +radius, 90 = +height) with analytic normals; sign -1
// makes the normals point to the centre (a concave fillet). Points that land on the
// axis get radius exactly 0 so they become poles.
func arc(cr, cy, rad, a0, a1 float64, steps int) []pt {
	out := make([]pt, 0, steps+1)
	for k := range steps + 1 {
		a := (a0 + (a1-a0)*float64(k)/float64(steps)) * math.Pi / 180
		s, c := math.Sincos(a)
		r := cr + rad*c
		if math.Abs(r) < 1e-12 {
			r, c = 0, 0
		}
		out = append(out, pt{r: r, y: cy + rad*s, nr: c, ny: s})
	}
	return out
}

// sphere is a UV sphere of radius r centred at the origin.
func sphere(r float64, seg, rings int) *mesh {
	return latheOne([]run{{pts: arc(0, 0, r, -90, 90, rings)}}, seg)
}

// ellipsoid is a sphere scaled to the three radii, centred at c.
func ellipsoid(c, radii vec3, seg, rings int) *mesh {
	return sphere(1, seg, rings).transform(scaling(radii[0], radii[1], radii[2]), c)
}

// frustum is a capped cone section standing on y = 0 (r1 = 0 gives a cone).
func frustum(r0, r1, h float64, seg int) *mesh {
	runs := []run{
		{pts: []pt{{r: 0, y: 0}, {r: r0, y: 0}}},
		{pts: []pt{{r: r0, y: 0}, {r: r1, y: h}}},
	}
	if r1 > 0 {
		runs = append(runs, run{pts: []pt{{r: r1, y: h}, {r: 0, y: h}}})
	}
	return latheOne(runs, seg)
}

// cylinder is a capped cylinder standing on y = 0.
func cylinder(r, h float64, seg int) *mesh { return frustum(r, r, h, seg) }

// capsule is a cylinder with hemispherical ends whose axis runs from a to b.
func capsule(a, b vec3, r float64, seg int) *mesh {
	d := b.sub(a)
	l := d.length()
	q := seg / 4
	pts := arc(0, 0, r, -90, 0, q)
	pts = append(pts, arc(0, l, r, 0, 90, q)...)
	return latheOne([]run{{pts: pts}}, seg).transform(alignY(d), a)
}

// torus is a ring around the Y axis: centre-line radius big, tube radius small.
func torus(big, small float64, seg, tubeSeg int) *mesh {
	pts := arc(big, 0, small, -180, 180, tubeSeg)
	return latheOne([]run{{pts: pts[:len(pts)-1], closed: true}}, seg)
}

// place is the common "rotate, then move" for a built part.
func place(m *mesh, rot mat3, at vec3) *mesh { return m.transform(rot, at) }
