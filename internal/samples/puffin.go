package samples

import "math"

// puffin builds a stylised Atlantic puffin about 0.3 m tall, standing and facing +Z:
// black back, wings and crown, white belly and face, the big laterally flattened beak
// striped slate, yellow and orange-red, a red eye ring and orange webbed feet. Those
// are the marks people recognise a puffin by, so they are exaggerated a little.
func puffin() *model {
	m := &model{name: "Puffin"}
	black := m.mat("Black plumage", "#1d1f24", 0.8)
	white := m.mat("White plumage", "#f3f2ee", 0.85)
	face := m.mat("Face", "#e6e8ea", 0.85)
	orange := m.mat("Orange", "#f07b1f", 0.55)
	red := m.mat("Beak red", "#e2472b", 0.4)
	yellow := m.mat("Beak yellow", "#f5c33b", 0.45)
	slate := m.mat("Beak slate", "#5d6f86", 0.45)
	eye := m.mat("Eye", "#0b0b0d", 0.15)
	ring := m.mat("Eye ring", "#d9412c", 0.5)

	lean := rotX(10) // the body leans slightly forward
	m.add("Body",
		piece{place(sphere(1, 32, 16).transform(scaling(0.085, 0.105, 0.095), vec3{}), lean, vec3{0, 0.135, -0.005}), black},
		piece{place(sphere(1, 32, 16).transform(scaling(0.074, 0.094, 0.083), vec3{}), lean, vec3{0, 0.127, 0.02}), white},
	)
	for _, s := range []float64{-1, 1} {
		name := "Wing_Left"
		if s > 0 {
			name = "Wing_Right"
		}
		w := ellipsoid(vec3{}, vec3{0.02, 0.082, 0.052}, 24, 12)
		m.add(name, piece{place(w, rotZ(-s*6).mul(rotX(16)), vec3{s * 0.07, 0.14, -0.028}), black})
	}
	m.add("Tail", piece{place(frustum(0.03, 0, 0.06, 16).transform(scaling(1, 1, 0.45), vec3{}), rotX(-120), vec3{0, 0.07, -0.07}), black})

	const headY, headZ = 0.255, 0.02
	m.add("Head",
		piece{sphere(0.062, 32, 16).move(vec3{0, headY, headZ}), black},
		piece{ellipsoid(vec3{0, headY - 0.006, headZ + 0.015}, vec3{0.0645, 0.046, 0.052}, 32, 16), face},
	)

	// Beak: a cone turned to point forward, squeezed sideways and striped along its
	// length. Its base is buried in the face.
	const beakLen, beakR = 0.06, 0.037
	t := []float64{0, 0.14, 0.4, 0.48, 0.64, 0.7, 1}
	tags := []int{yellow, slate, yellow, red, orange, red}
	runs := []run{{pts: []pt{{r: 0, y: 0}, {r: beakR, y: 0}}, mat: yellow}}
	for i := range len(tags) {
		var pts []pt
		const steps = 3
		for k := range steps + 1 {
			u := t[i] + (t[i+1]-t[i])*float64(k)/steps
			if k == steps {
				u = t[i+1] // bit-identical to the next run's first point: no cracks
			}
			pts = append(pts, pt{r: beakRadius(u, beakR), y: u * beakLen})
		}
		runs = append(runs, run{pts: pts, mat: tags[i]})
	}
	meshes, mats := lathe(runs, 24, 0)
	var beak []piece
	for i, bm := range meshes {
		// Lathe axis +Y → +Z, narrow in X, the tip bent a little down.
		bm.transform(scaling(0.38, 1, 1), vec3{})
		bm.transform(rotX(90+8), vec3{0, headY - 0.01, headZ + 0.052})
		beak = append(beak, piece{bm, mats[i]})
	}
	m.add("Beak", beak...)

	for _, s := range []float64{-1, 1} {
		name := "Eye_Left"
		if s > 0 {
			name = "Eye_Right"
		}
		// On the face's surface, on the side of the head above the beak line.
		const ex, ey, ax, ay, az = 0.048, 0.018, 0.0645, 0.046, 0.052
		ez := az * math.Sqrt(1-(ex*ex)/(ax*ax)-(ey*ey)/(ay*ay))
		c := vec3{s * ex, headY - 0.006 + ey, headZ + 0.015 + ez}
		n := vec3{s * ex / (ax * ax), ey / (ay * ay), ez / (az * az)}.unit()
		m.add(name,
			piece{sphere(0.0095, 16, 8).move(c), eye},
			piece{place(torus(0.0115, 0.0028, 20, 8), alignY(n), c.sub(n.scale(0.002))), ring},
		)
	}

	for _, s := range []float64{-1, 1} {
		name := "Foot_Left"
		if s > 0 {
			name = "Foot_Right"
		}
		leg := cylinder(0.011, 0.06, 12).move(vec3{s * 0.032, 0.008, 0})
		web := place(ellipsoid(vec3{}, vec3{0.03, 0.008, 0.045}, 20, 8), rotY(s*14), vec3{s * 0.036, 0.008, 0.03})
		m.add(name, piece{merge(leg, web), orange})
	}
	return m
}

// beakRadius is the beak's half-height along its length (u from 0 at the base to 1 at
// the tip): full at the base, curving in to a point.
func beakRadius(u, r float64) float64 {
	if u >= 1 {
		return 0
	}
	return r * math.Pow(1-u, 0.75) * (1 - 0.15*u)
}
