package samples

import "math"

// bumblee builds a stylised bumblebee, toy sized (about 0.22 m long) so it reads in
// AR, facing +Z: a round thorax with a yellow collar, a plump abdomen in alternating
// yellow and black bands, a black head with big eyes and elbowed antennae, two pairs
// of translucent wings (alpha-blended, so the body shows through) and six legs.
func bumblee() *model {
	m := &model{name: "Bumblee"}
	yellow := m.mat("Yellow fur", "#f2bd1d", 0.9)
	black := m.mat("Black fur", "#1c1c1f", 0.85)
	eyeMat := m.mat("Eye", "#2b303b", 0.2)
	wingMat := m.mat("Wing", "#dceeff", 0.4)
	m.materials[wingMat].alpha = 0.35

	const bodyY = 0.072
	alongZ := rotX(90) // lathes are built along +Y; the body runs along +Z

	// Thorax: black with a yellow collar at the front.
	thorax := vec3{0, bodyY, 0}
	meshes, tags := bandedEllipsoid(0.042, 0.045, []float64{-1, 0.3, 1}, []int{black, yellow}, 32)
	var pieces []piece
	for i, tm := range meshes {
		pieces = append(pieces, piece{tm.transform(alongZ, thorax), tags[i]})
	}
	m.add("Thorax", pieces...)

	// Abdomen: banded from the tail (-1) to the waist (+1), its tail dipping down.
	tilt := rotX(-12).mul(alongZ)
	abdomen := vec3{0, bodyY - 0.004, -0.092}
	meshes, tags = bandedEllipsoid(0.072, 0.056,
		[]float64{-1, -0.72, -0.42, -0.1, 0.25, 0.6, 1},
		[]int{black, yellow, black, yellow, black, yellow}, 32)
	pieces = nil
	for i, am := range meshes {
		pieces = append(pieces, piece{am.transform(tilt, abdomen), tags[i]})
	}
	tailDir := tilt.apply(vec3{0, -1, 0})
	tip := abdomen.add(tailDir.scale(0.068))
	pieces = append(pieces, piece{frustum(0.007, 0, 0.02, 12).transform(alignY(tailDir), tip), black})
	m.add("Abdomen", pieces...)

	head := vec3{0, bodyY + 0.002, 0.064}
	m.add("Head", piece{ellipsoid(head, vec3{0.034, 0.033, 0.026}, 28, 14), black})
	for _, s := range []float64{-1, 1} {
		side := "Left"
		if s > 0 {
			side = "Right"
		}
		eye := place(ellipsoid(vec3{}, vec3{0.011, 0.02, 0.014}, 20, 10), rotY(s*20), head.add(vec3{s * 0.026, 0.006, 0.006}))
		m.add("Eye_"+side, piece{eye, eyeMat})

		base := head.add(vec3{s * 0.012, 0.026, 0.014})
		elbow := base.add(vec3{s * 0.01, 0.032, 0.012})
		end := elbow.add(vec3{s * 0.014, 0.008, 0.034})
		m.add("Antenna_"+side, piece{merge(
			capsule(base, elbow, 0.0032, 12),
			capsule(elbow, end, 0.0032, 12),
			sphere(0.0055, 12, 6).move(end),
		), black})

		// Wings spread from the top of the thorax, swept back and lifted a little, the
		// way a cartoon bee holds them.
		for _, w := range []struct {
			name        string
			root        vec3
			size        vec3 // width, thickness, length
			splay, lift float64
		}{
			{"Forewing_" + side, vec3{s * 0.016, bodyY + 0.042, 0.006}, vec3{0.032, 0.0025, 0.078}, 62, 20},
			{"Hindwing_" + side, vec3{s * 0.014, bodyY + 0.04, -0.014}, vec3{0.022, 0.0025, 0.054}, 38, 14},
		} {
			sp, cp := math.Sincos(w.splay * math.Pi / 180)
			sl, cl := math.Sincos(w.lift * math.Pi / 180)
			long := vec3{s * sp * cl, sl, -cp * cl}
			rot := basis(long)
			centre := w.root.add(long.scale(w.size[2] * 0.92))
			m.add(w.name, piece{place(ellipsoid(vec3{}, w.size, 24, 8), rot, centre), wingMat})
		}

		// Six legs: femur out and slightly up from the thorax's underside, tibia
		// down to the ground.
		var legs []*mesh
		for _, l := range []struct{ z, reach float64 }{{0.022, 0.03}, {0, 0}, {-0.024, -0.04}} {
			hip := vec3{s * 0.02, bodyY - 0.034, l.z}
			knee := vec3{s * 0.066, bodyY - 0.022, l.z + l.reach*0.5}
			foot := vec3{s * 0.082, 0.005, l.z + l.reach}
			legs = append(legs, capsule(hip, knee, 0.0056, 12), capsule(knee, foot, 0.005, 12))
		}
		m.add("Legs_"+side, piece{merge(legs...), black})
	}
	return m
}

// bandedEllipsoid is an ellipsoid of revolution about Y (half-length a along Y,
// radius b) cut into bands, each its own material: bounds are the band edges as
// heights from -1 (bottom pole) to 1 (top pole). It returns one mesh per material.
// Neighbouring bands share their edge ring exactly, so the whole stays closed.
func bandedEllipsoid(a, b float64, bounds []float64, mats []int, seg int) ([]*mesh, []int) {
	phis := make([]float64, len(bounds))
	for i, s := range bounds {
		phis[i] = math.Asin(s)
	}
	point := func(phi float64) pt {
		sin, cos := math.Sincos(phi)
		r := b * cos
		if math.Abs(phi) >= math.Pi/2 {
			r, cos = 0, 0
		}
		return pt{r: r, y: a * sin, nr: cos / b, ny: sin / a}
	}
	runs := make([]run, 0, len(mats))
	for i, mat := range mats {
		steps := max(2, int(math.Ceil((phis[i+1]-phis[i])/(math.Pi/16))))
		pts := make([]pt, 0, steps+1)
		for k := range steps + 1 {
			phi := phis[i] + (phis[i+1]-phis[i])*float64(k)/float64(steps)
			switch k {
			case 0:
				phi = phis[i]
			case steps:
				phi = phis[i+1]
			}
			pts = append(pts, point(phi))
		}
		runs = append(runs, run{pts: pts, mat: mat})
	}
	return lathe(runs, seg, 0)
}

// basis returns the rotation taking +Z to the unit direction long while keeping +Y as
// close to up as it can: how a flat wing built along Z is laid along long.
func basis(long vec3) mat3 {
	l := long.unit()
	w := vec3{0, 1, 0}.cross(l).unit()
	n := l.cross(w)
	return mat3{
		{w[0], n[0], l[0]},
		{w[1], n[1], l[1]},
		{w[2], n[2], l[2]},
	}
}
