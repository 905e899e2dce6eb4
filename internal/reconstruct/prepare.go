package reconstruct

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/photo3d/photo3d/internal/reconstruct/multiview"
	"github.com/photo3d/photo3d/internal/reconstruct/segment"
)

// prepareSideBySide is how many photos of a set are decoded and segmented at
// once: the worker's two cores. Before the pose search nothing else runs, so
// the other core idled while one decoded and segmented a spin set's 24 photos
// of 12 MP (BenchmarkSpin24x12MPBox on a slow machine: 83 s one at a time, 74 s
// two at a time). Each photo is decoded, segmented and made a view on its own (no
// state is shared but read-only tables), so the views are the same, bit for
// bit, whichever goroutine made them (TestPhotosPreparedSideBySideAreTheSameViews).
const prepareSideBySide = 2

// preparing counts the goroutines preparing photos: 0 once every
// prepareViews has returned (TestPhotosPreparedSideBySideAreTheSameViews).
var preparing atomic.Int32

// prepareViews decodes and segments every photo and sets its starting pose.
// The error is that of the first photo, in the set's order, that fails, as
// when the photos were prepared one after the other: a failure stops the
// photos after it that have not started, never one before it. Warnings come in
// the set's order too.
func prepareViews(ctx context.Context, views []View, opts Options, pr *progressReporter) ([]*multiview.View, []string, error) {
	az := Azimuths(views)
	type prepared struct {
		view    *multiview.View
		warning bool // the subject check doubts the photo (not strict)
		err     error
	}
	out := make([]prepared, len(views))
	next := make(chan int, len(views))
	for i := range views {
		next <- i
	}
	close(next)
	done := make(chan int, len(views))
	var mu sync.Mutex
	failed := len(views) // the first photo, in order, known to have failed
	var wg sync.WaitGroup
	for range min(prepareSideBySide, len(views)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			preparing.Add(1)
			defer preparing.Add(-1) // before wg.Done: prepareViews's return sees it
			for i := range next {
				mu.Lock()
				start := i < failed // a photo after one that failed is left empty
				mu.Unlock()
				if start {
					out[i].view, out[i].warning, out[i].err = prepareView(ctx, views[i].Image, az[i], opts, i)
					if out[i].err != nil {
						mu.Lock()
						failed = min(failed, i)
						mu.Unlock()
					}
				}
				done <- i
			}
		}()
	}
	// Progress is reported here, on the caller's goroutine, as the photos
	// finish in the set's order.
	finished := make([]bool, len(views))
	reported := 0
	for range views {
		finished[<-done] = true
		for reported < len(views) && finished[reported] && out[reported].view != nil {
			reported++
			if pr != nil {
				pr.report(StepAnalyzing, 5+20*reported/len(views))
			}
		}
	}
	wg.Wait()
	vs := make([]*multiview.View, len(views))
	var warnings []string
	for i, o := range out {
		if o.err != nil {
			return nil, nil, o.err
		}
		if o.warning {
			warnings = append(warnings, segment.ErrSubjectNotSeparated.Error())
		}
		vs[i] = o.view
	}
	return vs, warnings, nil
}

// prepareView decodes and segments photo i (image) and makes its view at
// azimuth azDeg; warning says the subject check doubts it.
func prepareView(ctx context.Context, image []byte, azDeg float64, opts Options, i int) (*multiview.View, bool, error) {
	p, err := segment.DecodePhoto(ctx, image, opts.WorkingSize)
	if err != nil {
		return nil, false, fmt.Errorf("photo %d: %w", i+1, err)
	}
	seg, err := segment.Segment(ctx, p)
	if err != nil {
		return nil, false, fmt.Errorf("segment photo %d: %w", i+1, err)
	}
	warning := false
	if !segment.SubjectSeparated(seg) {
		if opts.StrictSubject {
			return nil, false, segment.ErrSubjectNotSeparated
		}
		warning = true
	}
	if seg.Area == 0 {
		return nil, false, segment.ErrSubjectNotSeparated
	}
	return multiview.NewView(p, seg, azDeg*math.Pi/180), warning, nil
}
