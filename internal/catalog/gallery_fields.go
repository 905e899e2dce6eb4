package catalog

import (
	"fmt"
	"hash/fnv"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/photo3d/photo3d/internal/fault"
)

// GalleryPalette holds the tile colours a gallery gets until its merchant
// picks one (spec §3 Gallery.thumbnailColor): soft enough that a product's
// cover reads on top of them.
var GalleryPalette = []string{"#E0E7FF", "#DBEAFE", "#CCFBF1", "#DCFCE7", "#FEF3C7", "#FFE4E6", "#F3E8FF", "#E2E8F0"}

// Overlay colours: what is drawn over a tile (its icon, a name) in the one
// of the two that contrasts more with thumbnailColor.
const (
	OverlayDark  = "#0F172A"
	OverlayLight = "#FFFFFF"
)

var hexColor = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)

// CleanGalleryColor checks a tile colour: "#RRGGBB", stored upper-case; ""
// means "the default" and is kept as "".
func CleanGalleryColor(c string) (string, error) {
	c = strings.TrimSpace(c)
	if c == "" {
		return "", nil
	}
	if !hexColor.MatchString(c) {
		return "", fault.New(fault.Invalid, "invalid_thumbnail_color", "Use a colour like #4F46E5 for the gallery's tile.")
	}
	return strings.ToUpper(c), nil
}

// GalleryColor is the tile colour shown for a gallery: the chosen one, else
// a palette colour picked by its id, so it is stable across reads and replays.
func GalleryColor(id, chosen string) string {
	if chosen != "" {
		return chosen
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(id))
	return GalleryPalette[h.Sum32()%uint32(len(GalleryPalette))]
}

// GalleryOverlay is thumbnailOverlay: the colour of the icon and text laid
// over a tile of colour c, whichever of dark and light gives the higher WCAG
// contrast ratio.
func GalleryOverlay(c string) string {
	l, err := luminance(c)
	if err != nil {
		return OverlayDark
	}
	// contrast(a, b) = (max+0.05)/(min+0.05); white has luminance 1, the dark one ~0.0079.
	dark, _ := luminance(OverlayDark)
	if (l+0.05)/(dark+0.05) >= 1.05/(l+0.05) {
		return OverlayDark
	}
	return OverlayLight
}

// luminance is the WCAG relative luminance of "#RRGGBB".
func luminance(c string) (float64, error) {
	if !hexColor.MatchString(c) {
		return 0, fmt.Errorf("not a colour: %q", c)
	}
	ch := func(i int) float64 {
		v, _ := strconv.ParseUint(c[i:i+2], 16, 8)
		s := float64(v) / 255
		if s <= 0.03928 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*ch(1) + 0.7152*ch(3) + 0.0722*ch(5), nil
}

// CleanGalleryTags applies the product tag rules to a gallery's own tags,
// naming the gallery in the limit's message.
func CleanGalleryTags(tags []string) ([]string, error) {
	if len(tags) > MaxTags*4 { // bound the work before de-duplicating
		return nil, fault.Invalidf("too_many_tags", "A gallery can have at most %d tags.", MaxTags)
	}
	out, err := CleanTags(tags)
	if f, ok := err.(*fault.Error); ok && f.Code == "too_many_tags" {
		return nil, fault.Invalidf("too_many_tags", "A gallery can have at most %d tags.", MaxTags)
	}
	return out, err
}
