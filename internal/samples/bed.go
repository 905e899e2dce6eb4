package samples

// bed builds a double bed (1.5 × 2.1 m): a wooden frame on four tapered legs, a
// rounded mattress, a headboard at the back (-Z), two pillows and a duvet with a
// turned-down sheet. With exploded set, every part is placed apart along the way it
// would be lifted off during assembly, and the Explode animation moves it there.
func bed(exploded bool) *model {
	m := &model{name: "Bed", exploded: exploded}
	if exploded {
		m.name = "Exploded Bed"
	}
	wood := m.mat("Wood", "#a06f45", 0.6)
	darkWood := m.mat("Dark wood", "#6b4631", 0.55)
	mattress := m.mat("Mattress", "#efece5", 0.85)
	pillow := m.mat("Pillow", "#fbfbf7", 0.9)
	duvet := m.mat("Duvet", "#4a6b92", 0.9)
	sheet := m.mat("Sheet", "#e9e3d6", 0.9)

	const (
		legH     = 0.16
		frameTop = 0.36
		matTop   = 0.58
	)
	m.add("Frame", piece{roundedBox(vec3{1.5, frameTop - legH, 2.05}, 0.015, 2).move(vec3{0, (legH + frameTop) / 2, 0.025}), wood}).
		explode = vec3{0, 0.22, 0}
	for _, l := range []struct {
		name string
		x, z float64
	}{
		{"Leg_BackLeft", -0.66, -0.9}, {"Leg_BackRight", 0.66, -0.9},
		{"Leg_FrontLeft", -0.66, 0.95}, {"Leg_FrontRight", 0.66, 0.95},
	} {
		leg := taperedBox(0.05, 0.05, 0.08, 0.08, legH).move(vec3{l.x, 0, l.z})
		m.add(l.name, piece{leg, darkWood}).explode = vec3{sign(l.x) * 0.3, 0, sign(l.z) * 0.3}
	}
	m.add("Mattress", piece{roundedBox(vec3{1.4, matTop - frameTop, 1.95}, 0.06, 3).move(vec3{0, (frameTop + matTop) / 2, 0.05}), mattress}).
		explode = vec3{0, 0.5, 0}
	m.add("Headboard", piece{roundedBox(vec3{1.58, 1.05, 0.08}, 0.035, 3).move(vec3{0, 0.625, -1.04}), darkWood}).
		explode = vec3{0, 0.22, -0.55}
	for _, x := range []float64{-0.34, 0.34} {
		name := "Pillow_Left"
		if x > 0 {
			name = "Pillow_Right"
		}
		// Tilted back so the pillows lean on the headboard.
		p := place(roundedBox(vec3{0.62, 0.14, 0.4}, 0.065, 4), rotX(14), vec3{x, matTop + 0.085, -0.7})
		m.add(name, piece{p, pillow}).explode = vec3{x * 0.35, 1.2, -0.1}
	}
	// The duvet is a thick cover over the lower two thirds, hanging over the mattress
	// sides; the sheet is folded back over its head end.
	body := roundedBox(vec3{1.48, 0.2, 1.36}, 0.05, 3).move(vec3{0, matTop + 0.03 - 0.1, 0.37})
	cuff := roundedBox(vec3{1.5, 0.05, 0.24}, 0.02, 2).move(vec3{0, matTop + 0.03, -0.2})
	m.add("Blanket", piece{body, duvet}, piece{cuff, sheet}).explode = vec3{0, 0.9, 0.15}
	return m
}

func sign(v float64) float64 {
	if v < 0 {
		return -1
	}
	return 1
}
