package catalog

import (
	"math"
	"strconv"
	"strings"
)

// OrbitInWords says a model-viewer camera orbit ("0deg 75deg 118%") the way a
// merchant would (issue 50 P7): the side it looks from, how high, and how close,
// e.g. "from the front, slightly from above". Unreadable parts are left out; an
// orbit with nothing readable is "as saved".
func OrbitInWords(orbit string) string {
	f := strings.Fields(orbit)
	var words []string
	if len(f) > 0 {
		if th, ok := orbitAngle(f[0]); ok {
			words = append(words, sideWords(th))
		}
	}
	if len(f) > 1 {
		if ph, ok := orbitAngle(f[1]); ok {
			words = append(words, heightWords(ph))
		}
	}
	if len(f) > 2 {
		if w := distanceWords(f[2]); w != "" {
			words = append(words, w)
		}
	}
	if len(words) == 0 {
		return "as saved"
	}
	return strings.Join(words, ", ")
}

// orbitAngle reads "30deg" or "0.5rad" as degrees.
func orbitAngle(s string) (float64, bool) {
	switch {
	case strings.HasSuffix(s, "deg"):
		v, err := strconv.ParseFloat(strings.TrimSuffix(s, "deg"), 64)
		return v, err == nil
	case strings.HasSuffix(s, "rad"):
		v, err := strconv.ParseFloat(strings.TrimSuffix(s, "rad"), 64)
		return v * 180 / math.Pi, err == nil
	}
	return 0, false
}

// sideWords: model-viewer's theta turns the camera round the model, 0 in
// front, positive towards the model's right.
func sideWords(theta float64) string {
	t := math.Mod(theta, 360)
	if t >= 180 {
		t -= 360
	} else if t < -180 {
		t += 360
	}
	side := "right"
	if t < 0 {
		side, t = "left", -t
	}
	switch {
	case t <= 22.5:
		return "from the front"
	case t <= 67.5:
		return "from the front " + side
	case t <= 112.5:
		return "from the " + side + " side"
	case t <= 157.5:
		return "from the back " + side
	}
	return "from the back"
}

// heightWords: phi is measured from straight above (0) to straight below (180).
func heightWords(phi float64) string {
	switch {
	case phi < 20:
		return "looking straight down"
	case phi < 60:
		return "from above"
	case phi < 85:
		return "slightly from above"
	case phi <= 95:
		return "at eye level"
	}
	return "from below"
}

// distanceWords: the radius as a share of the framing distance; near 100 %
// needs no words.
func distanceWords(r string) string {
	if !strings.HasSuffix(r, "%") {
		return ""
	}
	v, err := strconv.ParseFloat(strings.TrimSuffix(r, "%"), 64)
	switch {
	case err != nil:
		return ""
	case v < 80:
		return "close up"
	case v > 140:
		return "zoomed out"
	}
	return ""
}
