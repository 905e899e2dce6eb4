package samples

import (
	"math"
	"strconv"
)

// material is a plain PBR metallic-roughness look. color is in sRGB (what a designer
// picks); the GLB stores it linear, as glTF requires.
type material struct {
	name      string
	color     [3]float64 // sRGB, 0..1
	alpha     float64    // < 1 makes the material alpha-blended
	metallic  float64
	roughness float64
}

// hex parses "#rrggbb" into sRGB components; the palette below reads like a design spec.
func hex(s string) [3]float64 {
	v, err := strconv.ParseUint(s[1:], 16, 32)
	if err != nil || len(s) != 7 {
		panic("samples: bad colour " + s) // only constants in this package reach here
	}
	return [3]float64{float64(v>>16&0xff) / 255, float64(v>>8&0xff) / 255, float64(v&0xff) / 255}
}

// srgbToLinear is the sRGB transfer function's inverse (IEC 61966-2-1).
func srgbToLinear(c float64) float64 {
	if c <= 0.04045 {
		return c / 12.92
	}
	return math.Pow((c+0.055)/1.055, 2.4)
}

// piece is one coloured surface of a part: one glTF primitive.
type piece struct {
	mesh *mesh
	mat  int
}

// part is one named node of a model. Its meshes are modelled in assembled position;
// explode is how far the part moves in the exploded view.
type part struct {
	name    string
	pieces  []piece
	explode vec3
}

// model is one sample before encoding.
type model struct {
	name      string
	materials []material
	parts     []*part
	// exploded places every part at its explode offset and adds the Explode
	// animation from assembled to exploded, which the viewer plays on demand.
	exploded bool
}

// translation is where a part's node sits in the model's rest pose.
func (m *model) translation(p *part) vec3 {
	if m.exploded {
		return p.explode
	}
	return vec3{}
}

// add appends a part made of the given pieces and returns it for further settings.
func (m *model) add(name string, pieces ...piece) *part {
	p := &part{name: name, pieces: pieces}
	m.parts = append(m.parts, p)
	return p
}

// mat registers a material and returns its index, so builders can say
// `wood := m.mat(...)` and use it in pieces.
func (m *model) mat(name, color string, roughness float64) int {
	m.materials = append(m.materials, material{name: name, color: hex(color), alpha: 1, roughness: roughness})
	return len(m.materials) - 1
}

// triangles counts the model's triangles, for the size budget and the report.
func (m *model) triangles() int {
	n := 0
	for _, p := range m.parts {
		for _, pc := range p.pieces {
			n += pc.mesh.triangles()
		}
	}
	return n
}

// centreBase moves every part so that the assembled model's footprint is centred on
// the origin and it stands on y = 0, the origin convention viewers and AR placement
// expect. Builders can then model in whatever frame is natural for the object.
func (m *model) centreBase() {
	lo := vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := vec3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, p := range m.parts {
		for _, pc := range p.pieces {
			l, h := pc.mesh.bounds()
			for c := range 3 {
				lo[c], hi[c] = min(lo[c], l[c]), max(hi[c], h[c])
			}
		}
	}
	shift := vec3{-(lo[0] + hi[0]) / 2, -lo[1], -(lo[2] + hi[2]) / 2}
	for _, p := range m.parts {
		for _, pc := range p.pieces {
			pc.mesh.move(shift)
		}
	}
}
