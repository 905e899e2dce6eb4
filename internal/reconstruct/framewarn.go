package reconstruct

import (
	"fmt"
	"strings"

	"github.com/photo3d/photo3d/internal/reconstruct/segment"
)

// A photo whose product runs off its left, right or top edge still builds: the
// outline stops at the frame, so the model stops there too (a lamp cropped at
// its shade loses the shade's top; a sofa cropped at one arm loses the arm).
// A spin set refuses such a photo (ErrSpinLeavesFrame), since its other photos
// would carve the part away; one photo, or one of a few hand-held photos, is
// built as it is and the merchant is told which edge cut it, so that a cut-off
// model is never presented as the whole product. The bottom edge is left out:
// a product standing on the frame's lower edge (a sofa's feet, a bottle's
// base) loses nothing a shopper looks at, and SubjectSeparated allows it.
// The remote (GPU) path sends the photo to a server that may complete the
// cut part, so its warning says the part is guessed (remoteCutOffWarning).

// cutOffAdvice ends every cut-off warning.
const cutOffAdvice = "For a faithful model, use a photo with the whole product in view and some space around it."

// cutOffSides names the sides of seg's frame, among left, right and top, that
// the product runs off (spinFrameTouch of the side covered, as a spin set
// judges its photos), in that order.
func cutOffSides(seg *segment.Segmentation) []string {
	px := seg.SidePixels()
	var sides []string
	for _, s := range []struct {
		side   int
		name   string
		length int
	}{{segment.SideLeft, "left", seg.H}, {segment.SideRight, "right", seg.H}, {segment.SideTop, "top", seg.W}} {
		if float64(px[s.side]) >= spinFrameTouch*float64(s.length) {
			sides = append(sides, s.name)
		}
	}
	return sides
}

// cutOffEdges names the edges seg's product runs off ("the top edge", "the
// left and top edges"), "" when none.
func cutOffEdges(seg *segment.Segmentation) string {
	sides := cutOffSides(seg)
	switch len(sides) {
	case 0:
		return ""
	case 1:
		return "the " + sides[0] + " edge"
	}
	return "the " + strings.Join(sides[:len(sides)-1], ", ") + " and " + sides[len(sides)-1] + " edges"
}

// cutOffWarning is the sentence shown to the merchant when the product runs off
// the left, right or top edge of its photo, "" when it does not. photo is the
// photo's 1-based number among several, 0 for a single photo.
func cutOffWarning(seg *segment.Segmentation, photo int) string {
	edges := cutOffEdges(seg)
	if edges == "" {
		return ""
	}
	if photo == 0 {
		return fmt.Sprintf("The product runs off %s of the photo, so the model stops there: the part outside the photo is missing. %s", edges, cutOffAdvice)
	}
	return fmt.Sprintf("Photo %d: the product runs off %s of the photo, so the model may miss the part outside it. %s", photo, edges, cutOffAdvice)
}

// remoteCutOffWarning is cutOffWarning for a model the remote server built from
// the whole photo: the part outside the frame is its guess.
func remoteCutOffWarning(seg *segment.Segmentation) string {
	edges := cutOffEdges(seg)
	if edges == "" {
		return ""
	}
	return fmt.Sprintf("The product runs off %s of the photo, so the part outside the photo is guessed. %s", edges, cutOffAdvice)
}
