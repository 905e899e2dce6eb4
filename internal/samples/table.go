package samples

// table builds a wooden dining table (1.6 × 0.9 m, 0.75 m high): a top with softened
// edges, an apron of four rails under it and four legs that taper towards the floor.
func table() *model {
	m := &model{name: "Table"}
	top := m.mat("Oak top", "#b07c4f", 0.5)
	frame := m.mat("Oak", "#8f623d", 0.6)

	const (
		height = 0.75
		thick  = 0.035
		under  = height - thick // underside of the top
		apronH = 0.1
		legX   = 0.70 // leg centres, inset from the top's edge
		legZ   = 0.35
		legTop = 0.065
		legBot = 0.038
		rail   = 0.022 // apron thickness
	)
	m.add("Top", piece{roundedBox(vec3{1.6, thick, 0.9}, 0.012, 2).move(vec3{0, under + thick/2, 0}), top})

	// Rails run between the legs, flush with the legs' outer faces.
	ox, oz := legX+legTop/2, legZ+legTop/2
	apron := merge(
		boxAt(vec3{-legX, under - apronH, oz - rail}, vec3{legX, under, oz}),
		boxAt(vec3{-legX, under - apronH, -oz}, vec3{legX, under, -oz + rail}),
		boxAt(vec3{-ox, under - apronH, -legZ}, vec3{-ox + rail, under, legZ}),
		boxAt(vec3{ox - rail, under - apronH, -legZ}, vec3{ox, under, legZ}),
	)
	m.add("Apron", piece{apron, frame})
	for _, l := range []struct {
		name string
		x, z float64
	}{
		{"Leg_BackLeft", -legX, -legZ}, {"Leg_BackRight", legX, -legZ},
		{"Leg_FrontLeft", -legX, legZ}, {"Leg_FrontRight", legX, legZ},
	} {
		m.add(l.name, piece{taperedBox(legBot, legBot, legTop, legTop, under).move(vec3{l.x, 0, l.z}), frame})
	}
	return m
}
