package multiview

import "github.com/photo3d/photo3d/internal/reconstruct/segment"

// View is one decoded, segmented photo with its camera.
type View struct {
	P   *segment.Photo
	Seg *segment.Segmentation
	Cam Camera
	// Pose parameters (see pose.go): azimuth and elevation (radians), log of the
	// distance factor, and the pixel the world origin projects to.
	Az, El, Ls, Du, Dv float64
	Lf                 float64 // log of the focal length over f0
	F0                 float64 // focal length assumed at first (a phone's main camera), pixels
	az0                float64 // stated azimuth
	BaseZ              float64 // distance at ls = 0
	bbox               [4]float64
	// Coverage of the object on a coarse grid (cell lcell working pixels), used by the
	// pose search.
	Lw, Lh int
	Lcell  float64
	Lcov   []float32
	// LcovLoose is lcov of the loose mask (nil: none); see takeback.go.
	LcovLoose []float32
	// Alpha is the mask carved from: seg.alpha grown by growMask.
	Alpha []uint8
	// Loose is alpha plus every cell that differs from the backdrop, shadow-like
	// ones included, except what a row's mask encloses (nil: none, as when
	// UseTakeBack is off); see takeback.go.
	Loose []uint8
	// Unseparated: the segmenter told no product from the backdrop in this
	// photo (its mask fell back to the whole frame). A spin set's search and
	// carve leave such a photo out, and its report names it.
	Unseparated bool
	// Distrust leaves the view out of the carve (HullField); set only by the
	// real-set experiment in realmulti_diag_test.go.
	Distrust bool
}
