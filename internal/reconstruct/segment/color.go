package segment

import (
	"fmt"
	"math"
)

// Lab is a CIELAB colour (D65). Segmentation and part detection measure colour
// differences in CIELAB because its distances follow what people see as "different".
type Lab struct{ L, A, B float32 }

// srgbToLinear is the sRGB transfer function inverse, tabulated once per call site
// (a 256-entry table is cheaper to build than to share as mutable package state).
func SrgbLinearTable() *[256]float32 {
	var t [256]float32
	for i := range t {
		c := float64(i) / 255
		if c <= 0.04045 {
			t[i] = float32(c / 12.92)
		} else {
			t[i] = float32(math.Pow((c+0.055)/1.055, 2.4))
		}
	}
	return &t
}

func labF(t float64) float64 {
	if t > 216.0/24389.0 {
		return math.Cbrt(t)
	}
	return (24389.0/27.0*t + 16) / 116
}

// ToLab converts one sRGB colour (channels 0..255, already linearised by table).
func ToLab(table *[256]float32, r, g, b uint8) Lab {
	rl, gl, bl := float64(table[r]), float64(table[g]), float64(table[b])
	x := (0.4124564*rl + 0.3575761*gl + 0.1804375*bl) / 0.95047
	y := 0.2126729*rl + 0.7151522*gl + 0.0721750*bl
	z := (0.0193339*rl + 0.1191920*gl + 0.9503041*bl) / 1.08883
	fx, fy, fz := labF(x), labF(y), labF(z)
	return Lab{L: float32(116*fy - 16), A: float32(500 * (fx - fy)), B: float32(200 * (fy - fz))}
}

// HexColor formats an sRGB colour as #rrggbb for the parts list and configurator.
func HexColor(r, g, b float64) string {
	c := func(v float64) int { return int(math.Round(min(max(v, 0), 255))) }
	return fmt.Sprintf("#%02x%02x%02x", c(r), c(g), c(b))
}

// colorName gives a readable name for a colour so parts without a structural role
// still get a label a merchant understands ("Red Part", "Blue Part").
func colorName(r, g, b float64) string {
	r, g, b = r/255, g/255, b/255
	mx := max(r, g, b)
	mn := min(r, g, b)
	v := mx
	s := 0.0
	if mx > 0 {
		s = (mx - mn) / mx
	}
	if s < 0.18 || mx-mn < 0.08 {
		switch {
		case v < 0.22:
			return "Black"
		case v > 0.85:
			return "White"
		case v > 0.6:
			return "Silver"
		}
		return "Grey"
	}
	var h float64
	switch mx {
	case r:
		h = math.Mod((g-b)/(mx-mn), 6)
	case g:
		h = (b-r)/(mx-mn) + 2
	default:
		h = (r-g)/(mx-mn) + 4
	}
	h *= 60
	if h < 0 {
		h += 360
	}
	switch {
	case h < 15 || h >= 340:
		if v < 0.45 {
			return "Maroon"
		}
		return "Red"
	case h < 42:
		if v < 0.6 {
			return "Brown"
		}
		if s < 0.45 {
			return "Tan"
		}
		return "Orange"
	case h < 68:
		if v < 0.55 {
			return "Olive"
		}
		return "Yellow"
	case h < 160:
		return "Green"
	case h < 195:
		return "Teal"
	case h < 255:
		if v < 0.4 {
			return "Navy"
		}
		return "Blue"
	case h < 290:
		return "Purple"
	}
	return "Pink"
}
