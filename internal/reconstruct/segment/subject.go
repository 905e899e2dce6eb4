package segment

import "errors"

// ErrSubjectNotSeparated is returned (with Options.StrictSubject) or reported as a
// warning when no single object could be told apart from its background: the mask
// touches three or more sides of the frame, covers almost all of it, segmentation
// found nothing that stands out, or its confidence is low (the kept object is a small
// share of everything the cut told apart from the backdrop). Without this check such photos become the whole
// photo printed on a pillow. The text is shown to users verbatim.
var ErrSubjectNotSeparated = errors.New("We could not separate the product from its background. Use a photo of the product alone on a plain background, or standing clear on a table or floor with nothing else in view.")

// Thresholds of the separation check.
const (
	subjectMaxCover     = 0.9  // share of the frame the mask may cover
	subjectSideTouch    = 0.05 // share of a frame side the mask must cover to "touch" it
	subjectMaxSidesSeen = 2    // sides the mask may touch (a product cut off at the bottom is fine)
	// subjectMinConfidence is the least share of the graph cut's foreground the kept
	// object must hold. A product with a stray highlight or a loose shadow keeps far
	// more than half; a busy backdrop cut into many blobs, of which one small piece
	// was kept, keeps little (segmentation.confidence).
	subjectMinConfidence = 0.5
)

// SubjectSeparated says whether seg holds one object clear of the frame.
func SubjectSeparated(seg *Segmentation) bool {
	if seg.WholeFrame || float64(seg.Area) > subjectMaxCover*float64(seg.W*seg.H) || seg.confidence < subjectMinConfidence {
		return false
	}
	sides := 0
	length := [4]int{seg.W, seg.W, seg.H, seg.H}
	for side, hits := range seg.SidePixels() {
		if float64(hits) >= subjectSideTouch*float64(length[side]) {
			sides++
		}
	}
	return sides <= subjectMaxSidesSeen
}

// Frame sides, in the order SidePixels gives them.
const (
	SideTop = iota
	SideBottom
	SideLeft
	SideRight
)

// SidePixels counts, for each side of the frame (SideTop, SideBottom,
// SideLeft, SideRight), the mask's pixels on it: above zero where the product
// runs off the photo.
func (seg *Segmentation) SidePixels() [4]int {
	w, h := seg.W, seg.H
	count := func(x0, y0, dx, dy, n int) int {
		c := 0
		for i := range n {
			if seg.Alpha[(y0+i*dy)*w+x0+i*dx] >= 128 {
				c++
			}
		}
		return c
	}
	return [4]int{count(0, 0, 1, 0, w), count(0, h-1, 1, 0, w), count(0, 0, 0, 1, h), count(w-1, 0, 0, 1, h)}
}

func countTrue(b []bool) int {
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	return n
}
