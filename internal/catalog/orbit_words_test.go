package catalog

import "testing"

// The preview checklist prints the default camera angle in words, not
// "0deg 75deg 118%" (issue 50 P7).
func TestOrbitInWords(t *testing.T) {
	for orbit, want := range map[string]string{
		"0deg 75deg 118%":   "from the front, slightly from above",
		"90deg 90deg 100%":  "from the right side, at eye level",
		"-45deg 40deg 60%":  "from the front left, from above, close up",
		"180deg 10deg 200%": "from the back, looking straight down, zoomed out",
		"3.14159rad 120deg": "from the back, from below",
		"auto auto auto":    "as saved",
		"":                  "as saved",
		"400deg 75deg 105%": "from the front right, slightly from above",
	} {
		if got := OrbitInWords(orbit); got != want {
			t.Errorf("OrbitInWords(%q) = %q, want %q", orbit, got, want)
		}
	}
}
