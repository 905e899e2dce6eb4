package samples

// wallbedAngle is how far the bed panel stands up from the floor: 90° is stowed in
// the cabinet, 0° is fully down. Half lowered shows both what it is and how it works.
const wallbedAngle = 45

// wallbed builds a fold-away (Murphy) bed: a white wall cabinet between two oak side
// panels, and the bed panel, hinged at the cabinet's lower front edge, half lowered
// with its mattress, pillow and blanket strapped on and the folding foot leg hanging
// down.
func wallbed() *model {
	m := &model{name: "Wallbed"}
	lacquer := m.mat("White lacquer", "#ebe7e0", 0.45)
	oak := m.mat("Oak", "#b3814f", 0.6)
	mattress := m.mat("Mattress", "#f2efe9", 0.85)
	pillow := m.mat("Pillow", "#fcfcf9", 0.9)
	blanket := m.mat("Blanket", "#5d8270", 0.9)
	metal := m.mat("Brushed steel", "#8c9096", 0.35)
	m.materials[metal].metallic = 1

	const (
		width  = 1.7
		height = 2.25
		depth  = 0.45
		side   = 0.04 // side panel thickness
	)
	hx := width / 2
	// The cabinet's front is the plane z = 0; the bed folds out towards +Z.
	m.add("Cabinet", piece{merge(
		boxAt(vec3{-hx + side, 0, -depth}, vec3{hx - side, height - 0.04, -depth + 0.02}), // back
		boxAt(vec3{-hx + side, height - 0.04, -depth}, vec3{hx - side, height, 0}),        // top
		boxAt(vec3{-hx + side, 0, -depth + 0.02}, vec3{hx - side, 0.1, -0.06}),            // plinth
	), lacquer})
	m.add("SidePanel_Left", piece{boxAt(vec3{-hx, 0, -depth}, vec3{-hx + side, height, 0.02}), oak})
	m.add("SidePanel_Right", piece{boxAt(vec3{hx - side, 0, -depth}, vec3{hx, height, 0.02}), oak})

	// The panel is modelled lying flat with the hinge on the X axis and then turned up
	// by wallbedAngle about the hinge; its underside is the cabinet front when stowed.
	const (
		panelW   = width - 2*side - 0.04
		panelL   = 1.95
		panelT   = 0.05
		matT     = 0.18
		hingeY   = 0.16
		hingeZ   = -0.02
		footLegH = 0.2 // reaches the floor once the bed is down
	)
	rot := rotX(-wallbedAngle)
	hinge := vec3{0, hingeY, hingeZ}
	fold := func(mm *mesh) *mesh { return mm.transform(rot, hinge) }
	m.add("BedPanel", piece{fold(boxAt(vec3{-panelW / 2, 0, 0}, vec3{panelW / 2, panelT, panelL})), oak})
	m.add("Mattress", piece{fold(roundedBox(vec3{panelW - 0.06, matT, panelL - 0.08}, 0.05, 3).
		move(vec3{0, panelT + matT/2, panelL / 2})), mattress})
	m.add("Pillow", piece{fold(roundedBox(vec3{0.62, 0.13, 0.38}, 0.06, 4).
		move(vec3{0, panelT + matT + 0.055, 0.3})), pillow})
	m.add("Blanket", piece{fold(roundedBox(vec3{panelW - 0.02, 0.07, 1.1}, 0.03, 3).
		move(vec3{0, panelT + matT - 0.005, panelL - 0.04 - 0.55})), blanket})
	// Straps that hold the bedding while the bed is up.
	straps := &mesh{}
	for _, z := range []float64{0.75, 1.55} {
		straps.append(boxAt(vec3{-panelW/2 + 0.01, panelT, z - 0.025}, vec3{panelW/2 - 0.01, panelT + matT + 0.045, z + 0.025}))
	}
	m.add("Straps", piece{fold(straps), metal})

	// The foot leg hangs straight down from the panel's far end.
	foot := rot.apply(vec3{0, 0, panelL - 0.03}).add(hinge)
	x0 := panelW/2 - 0.06
	leg := merge(
		boxAt(vec3{-x0 - 0.02, foot[1] - footLegH, foot[2] - 0.02}, vec3{-x0 + 0.02, foot[1], foot[2] + 0.02}),
		boxAt(vec3{x0 - 0.02, foot[1] - footLegH, foot[2] - 0.02}, vec3{x0 + 0.02, foot[1], foot[2] + 0.02}),
		boxAt(vec3{-x0 + 0.02, foot[1] - footLegH, foot[2] - 0.015}, vec3{x0 - 0.02, foot[1] - footLegH + 0.04, foot[2] + 0.015}),
	)
	m.add("FoldingLeg", piece{leg, metal})
	return m
}
