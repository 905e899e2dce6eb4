package job

import (
	"context"
	"fmt"
	"time"

	"github.com/photo3d/photo3d/internal/reconstruct"
)

// The worker's side of spin-set builds (issue 48 §5; the api side is spin.go).

// SpinSubjectMessage is the failure of a spin set in which the product could
// not be told from its background (in a photo, or across the turn): a retry
// fails the same way, so it says what to shoot instead; no credit is used.
const SpinSubjectMessage = "We could not separate the product from its background in every photo of this spin set. " +
	"Shoot the product alone on a plain background, the whole product in every photo, and upload the spin set again. No credit was used."

// SpinLayoutMessage is the failure of a spin set whose layout the
// reconstructor refuses (reconstruct.ErrSpinSet). The api checks the same
// limits before queueing, so only a job queued under older limits sees it.
var SpinLayoutMessage = fmt.Sprintf("These photos cannot be built as a spin set: it takes %d to %d photos, "+
	"each ring at least %d taken over one full turn of the turntable, from an elevation between −%d° and %d°. No credit was used.",
	reconstruct.MinSpinPhotos, reconstruct.MaxSpinPhotos, reconstruct.MinRingPhotos, reconstruct.MaxRingElevDeg, reconstruct.MaxRingElevDeg)

// DefaultSpinSlots is how many spin-set builds one worker process runs at
// once. A spin set is by far the largest build: every photo is read into
// memory (up to MaxSpinPhotos of 10 MB) and kept, with its decoded and
// segmented working-size copy, until the model is written. Measured with
// `worker convert -rings 36@0,36@30` (the same reconstructor call) on a quiet
// 16-core machine, 2026-11-29, peak resident memory was: 72 photos of 10 MB
// (12 MP JPEG) 3.5 GB; 72 of 0.5 MB 2.8 GB; 48 of 0.5 MB 1.9 GB; 24 of 0.5 MB
// 0.65 GB; against 0.14 GB for four photos and 0.06 GB for one. With
// GOMEMLIMIT=1800MiB the 72-photo set still peaked at 2.4 GB and had not
// finished after 500 s (the collector ran without end), so the memory is live,
// not garbage. Two spin sets beside each other can never share a worker pod
// (its 4 GiB limit holds the largest alone, ops/deploy), so one at a time:
// with RECONSTRUCT_WORKERS=2 the other slot keeps serving ordinary builds
// (0.15 GB at most), and a second spin set waits, queued.
const DefaultSpinSlots = 1

// spinTooLongMessage ends a spin set that ran out of time on every attempt.
// The turntable search grows faster than the photo count (same 12 MP photo,
// one core: 24 photos 82 CPU-s, 48 photos 231, 72 photos 474, against a
// five-minute RECONSTRUCT_TIMEOUT by default; a spin set gets SpinTimeout),
// so the advice is fewer photos.
func spinTooLongMessage(photos int) string {
	return fmt.Sprintf("This spin set of %d photos took longer to build than this server allows. "+
		"Build it again from fewer photos: 24, in two rings of 12, is usually enough. No credit was used.", photos)
}

// photoNumber is the photo (from 1, in the build's order) a reconstructor
// error is about, as the multi-photo decode names it ("photo 7: …"); 0 when
// the error names none.
func photoNumber(err error) int {
	var n int
	if _, e := fmt.Sscanf(err.Error(), "photo %d:", &n); e != nil || n < 1 {
		return 0
	}
	return n
}

// SpinTimeoutFactor is how many times a build's time limit a spin-set build
// gets. A 72-photo set of 12 MP photos took 474 CPU-s on one core (24
// photos: 82), against RECONSTRUCT_TIMEOUT's default of 5 minutes; three
// times that (15 minutes) leaves room on a busy worker. River must not
// rescue a job before its own limit has passed, so cmd/worker sets
// RescueStuckJobsAfter from the longest limit, SpinTimeout.
const SpinTimeoutFactor = 3

// SpinTimeout is the time limit of one attempt at a spin-set build when
// other builds get timeout.
func SpinTimeout(timeout time.Duration) time.Duration { return SpinTimeoutFactor * timeout }

// SpinBusySnooze is how long a spin set waits before trying again for a
// slot when every one is taken: a spin build takes a minute or more, and a
// retry costs River one fetch and this package one read of the job row.
const SpinBusySnooze = 5 * time.Second

// spinGate bounds the spin-set builds of one worker process. It never
// blocks: a build that finds it full is snoozed (river.JobSnooze, which
// counts no attempt), so a waiting spin set holds neither a River slot nor
// memory, and its job stays queued for the merchant.
type spinGate struct{ slots chan struct{} }

func newSpinGate(n int) *spinGate { return &spinGate{slots: make(chan struct{}, max(n, 1))} }

// tryAcquire takes a slot if one is free; release gives it back (once).
func (g *spinGate) tryAcquire() (release func(), ok bool) {
	select {
	case g.slots <- struct{}{}:
		done := false
		return func() {
			if !done {
				done = true
				<-g.slots
			}
		}, true
	default:
		return nil, false
	}
}

// reconstructSpin builds a job with a spin layout from its photos (views,
// the first photo then MoreViews, in shooting order) and returns the
// reconstructor that built it. The configured reconstructor builds it when
// it can (reconstruct.SpinReconstructor); one that cannot, the remote GPU
// server, which takes one photo per request and has no spin-set path,
// leaves it to the built-in pipeline on this worker's CPU, and the model
// records the built-in as its maker.
func (w *ReconstructWorker) reconstructSpin(ctx context.Context, j Job, views []reconstruct.View, progress reconstruct.ProgressFunc) (reconstruct.Reconstructor, *reconstruct.Result, *reconstruct.SpinReport, error) {
	rec := w.cfg.Reconstructor
	sr, ok := rec.(reconstruct.SpinReconstructor)
	if !ok {
		rec = reconstruct.NewBuiltin()
		if sr, ok = rec.(reconstruct.SpinReconstructor); !ok {
			return rec, nil, nil, fmt.Errorf("no reconstructor of this worker builds spin sets")
		}
	}
	rings := make([]reconstruct.RingSpec, len(j.Spin.Rings))
	for i, r := range j.Spin.Rings {
		rings[i] = reconstruct.RingSpec{Photos: r.Photos, ElevationDeg: r.ElevationDeg}
	}
	images := make([][]byte, len(views))
	for i, v := range views {
		images[i] = v.Image
	}
	spin, err := reconstruct.NewSpinSet(rings, images)
	if err != nil {
		return rec, nil, nil, err
	}
	res, report, err := sr.ReconstructSpin(ctx, spin, w.cfg.Options, progress)
	if err != nil {
		return rec, nil, nil, err
	}
	return rec, res, &report, nil
}
