package reconstruct

import (
	"context"
	"fmt"

	"github.com/photo3d/photo3d/internal/reconstruct/spinvideo"
)

// Turntable videos (issue 48): a merchant films one full turn per camera
// height instead of stopping the turntable for every photo; each video becomes
// one ring of a spin set (package spinvideo) and the spin set is built as any
// other (ReconstructSpin).

// VideoElevationsDeg are the nominal camera heights of the first, second and
// third video, lowest first: level with the product, a little above, well
// above: the heights the capture guide asks for. The pose search refines each
// within ±20° (multiview.SearchTurntable), so a ring filmed 10° to 50° is found
// from 30°, and 35° to 75° from 55°.
var VideoElevationsDeg = [MaxVideos]float64{0, 30, 55}

// MaxVideos is how many turntable videos one model takes: one per height.
const MaxVideos = 3

// VideoFramesPerTurn is how many photos a video becomes in the product (the
// worker's builds; `worker convert -frames` may choose others): a 12-photo
// ring, the spin sets' most common layout.
const VideoFramesPerTurn = spinvideo.DefaultFrames

// SpinSetFromVideos reads one video per camera height (local files, lowest
// first) and makes framesPerTurn photos of each (≤ 0: spinvideo.DefaultFrames),
// evenly spaced over one turn: a spin set, with each video's report. A video a
// merchant must film again is refused with an error wrapping spinvideo.ErrVideo
// that names it ("video 2: …").
func SpinSetFromVideos(ctx context.Context, paths []string, framesPerTurn int) (SpinSet, []spinvideo.Report, error) {
	if framesPerTurn <= 0 {
		framesPerTurn = spinvideo.DefaultFrames
	}
	if len(paths) == 0 || len(paths) > MaxVideos {
		return SpinSet{}, nil, fmt.Errorf("%w: film 1 to %d videos, one full turn at each camera height; got %d", ErrSpinSet, MaxVideos, len(paths))
	}
	if n := framesPerTurn * len(paths); framesPerTurn < MinRingPhotos || n < MinSpinPhotos || n > MaxSpinPhotos {
		return SpinSet{}, nil, fmt.Errorf("%w: %d videos of %d photos each", ErrSpinSet, len(paths), framesPerTurn)
	}
	var spin SpinSet
	reports := make([]spinvideo.Report, 0, len(paths))
	for i, p := range paths {
		frames, rep, err := spinvideo.Extract(ctx, p, framesPerTurn)
		reports = append(reports, rep)
		if err != nil {
			if len(paths) > 1 {
				err = fmt.Errorf("video %d: %w", i+1, err)
			}
			return SpinSet{}, reports, err
		}
		// Each video starts wherever the merchant pressed record: only the
		// first fixes the front, the others' phase is searched (AnyPhase).
		spin.Rings = append(spin.Rings, SpinRing{ElevationDeg: VideoElevationsDeg[i], Images: frames, AnyPhase: i > 0})
	}
	return spin, reports, nil
}
