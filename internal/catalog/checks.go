package catalog

import (
	"context"
	"fmt"
	"github.com/photo3d/photo3d/internal/glbvariants"
	"math"
)

// The preview checklist (issue 13, wizard "preview"): what the server can
// check for real before publishing.

// Check is one checklist item.
type Check struct {
	Key    string `json:"key"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

// HotspotTolerance is how far from the mesh a hotspot may sit, as a share of
// the model's bounding-box diagonal (model-viewer places hotspots on the
// surface it hit; more than this means the model changed under it).
const HotspotTolerance = 0.02

// Checks runs the checklist on the owner's product: variants, hotspots,
// links, camera (in that order). The two that read the model are cached per
// model and configuration (checks_cache.go).
func (s *Service) Checks(ctx context.Context, userID, id string) ([]Check, error) {
	p, err := getProductConfig(ctx, s.db, userID, id)
	if err != nil {
		return nil, err
	}
	if p.Status != StatusReady || p.ModelKey == "" || s.blobs == nil {
		return []Check{variantsCheck(p.Config, nil), hotspotsCheck(p.Config, nil, false),
			linksCheck(p.Config), cameraCheck(p.Config)}, nil
	}
	m, err := s.modelChecks(ctx, p)
	if err != nil {
		return nil, err
	}
	return []Check{m.variants, m.hotspots, linksCheck(p.Config), cameraCheck(p.Config)}, nil
}

// variantsCheck: every variant's materials are valid and obey the rules, and
// its own GLB (the AR file the public page serves, built by glbvariants from
// the model) really builds from the product's model. model is nil while
// there is no ready model.
func variantsCheck(c Config, model []byte) Check {
	ch := Check{Key: "variants"}
	if model == nil {
		ch.Detail = "The 3D model is not ready yet, so the variants cannot be built."
		return ch
	}
	for _, v := range c.Variants {
		if err := CheckMaterials(v.Material, v.Parts); err != nil {
			ch.Detail = fmt.Sprintf("%s: %v", v.Name, err)
			return ch
		}
		if _, err := glbvariants.AR(model, glbvariants.Variant{ID: v.ID, Material: v.Material, Parts: v.Parts}); err != nil {
			ch.Detail = fmt.Sprintf("%s could not be built from this model: %v", v.Name, err)
			return ch
		}
	}
	ch.OK, ch.Detail = true, plural(len(c.Variants), "variant builds", "variants build")
	return ch
}

// hotspotsCheck: every hotspot lies on the model's surface.
func hotspotsCheck(c Config, tris [][3][3]float64, hasModel bool) Check {
	ch := Check{Key: "hotspots"}
	if len(c.Hotspots) == 0 {
		ch.OK, ch.Detail = true, "No hotspots placed."
		return ch
	}
	if !hasModel || len(tris) == 0 {
		ch.Detail = "The 3D model is not ready yet, so hotspots cannot be checked."
		return ch
	}
	tol := HotspotTolerance * bboxDiagonal(tris)
	for _, h := range c.Hotspots {
		if d := distanceToMesh(h.Position, tris); d > tol {
			ch.Detail = fmt.Sprintf("%s is %.1f cm away from the model's surface. Place it again on the model.", h.Title, d*100)
			return ch
		}
	}
	ch.OK, ch.Detail = true, plural(len(c.Hotspots), "hotspot lies on the model", "hotspots lie on the model")
	return ch
}

// linksCheck: every purchase link gets a chip (a store platform or its host).
func linksCheck(c Config) Check {
	ch := Check{Key: "links"}
	if len(c.Links) == 0 {
		ch.Detail = "No purchase links yet."
		return ch
	}
	for _, l := range c.Links {
		if DetectPlatform(l.URL) == nil {
			ch.Detail = fmt.Sprintf("%s has no store or host shoppers can recognise.", l.URL)
			return ch
		}
	}
	ch.OK, ch.Detail = true, plural(len(c.Links), "link shows its store", "links show their store")
	return ch
}

// cameraCheck: a default camera angle is saved in the presets.
func cameraCheck(c Config) Check {
	if c.Presets.CameraOrbit == "" {
		return Check{Key: "camera", Detail: "Save the current view as the default camera angle."}
	}
	return Check{Key: "camera", OK: true, Detail: "Default camera angle: " + OrbitInWords(c.Presets.CameraOrbit) + "."}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func bboxDiagonal(tris [][3][3]float64) float64 {
	lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, t := range tris {
		for _, v := range t {
			for c := range 3 {
				lo[c], hi[c] = min(lo[c], v[c]), max(hi[c], v[c])
			}
		}
	}
	return math.Sqrt(sq(hi[0]-lo[0]) + sq(hi[1]-lo[1]) + sq(hi[2]-lo[2]))
}

func sq(v float64) float64 { return v * v }

// distanceToMesh is the distance from p to the nearest triangle.
func distanceToMesh(p [3]float64, tris [][3][3]float64) float64 {
	best := math.Inf(1)
	for _, t := range tris {
		best = min(best, pointTriangleDist2(p, t))
	}
	return math.Sqrt(best)
}

// pointTriangleDist2 is the squared distance from p to triangle t (Ericson,
// Real-Time Collision Detection, closest point on triangle).
func pointTriangleDist2(p [3]float64, t [3][3]float64) float64 {
	sub := func(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
	dot := func(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
	at := func(a [3]float64, u [3]float64, s float64) [3]float64 {
		return [3]float64{a[0] + u[0]*s, a[1] + u[1]*s, a[2] + u[2]*s}
	}
	a, b, c := t[0], t[1], t[2]
	ab, ac, ap := sub(b, a), sub(c, a), sub(p, a)
	d1, d2 := dot(ab, ap), dot(ac, ap)
	var q [3]float64
	switch {
	case d1 <= 0 && d2 <= 0:
		q = a
	default:
		bp := sub(p, b)
		d3, d4 := dot(ab, bp), dot(ac, bp)
		cp := sub(p, c)
		d5, d6 := dot(ab, cp), dot(ac, cp)
		vc := d1*d4 - d3*d2
		vb := d5*d2 - d1*d6
		va := d3*d6 - d5*d4
		switch {
		case d3 >= 0 && d4 <= d3:
			q = b
		case vc <= 0 && d1 >= 0 && d3 <= 0:
			q = at(a, ab, d1/(d1-d3))
		case d6 >= 0 && d5 <= d6:
			q = c
		case vb <= 0 && d2 >= 0 && d6 <= 0:
			q = at(a, ac, d2/(d2-d6))
		case va <= 0 && (d4-d3) >= 0 && (d5-d6) >= 0:
			q = at(b, sub(c, b), (d4-d3)/((d4-d3)+(d5-d6)))
		default:
			den := va + vb + vc
			if den == 0 {
				q = a
			} else {
				v, w := vb/den, vc/den
				q = at(at(a, ab, v), ac, w)
			}
		}
	}
	d := sub(p, q)
	return dot(d, d)
}
