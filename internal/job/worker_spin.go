package job

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/photo3d/photo3d/internal/blobstore"
	"github.com/photo3d/photo3d/internal/reconstruct"
	"github.com/photo3d/photo3d/internal/reconstruct/spinvideo"
	"github.com/photo3d/photo3d/internal/videocheck"
)

// The worker's side of spin-set builds (issue 48 §5; the api side is spin.go).

// SpinSubjectMessage is the failure of a spin set in which the product could
// not be told from its background (in a photo, or across the turn): a retry
// fails the same way, so it says what to shoot instead; no credit is used.
const SpinSubjectMessage = "We could not separate the product from its background in every photo of this spin set. " +
	"Shoot the product alone on a plain background, the whole product in every photo, and upload the spin set again. No credit was used."

// SpinRefusedMessage is the failure of a spin set refused for what some of
// its photos show (reconstruct.SpinRefusal): which photos, the reason with
// what to do, and that nothing was charged.
func SpinRefusedMessage(j Job, r *reconstruct.SpinRefusal) string {
	const listed = 6 // a longer list is read as "and N more"
	var names []string
	for k, n := range r.Photos {
		if k == listed {
			names = append(names, fmt.Sprintf("%d more", len(r.Photos)-listed))
			break
		}
		names = append(names, spinPhotoName(j, n))
	}
	if !j.FromVideos() && len(names) > 1 {
		// "Photos 3, 8 and 12" rather than "Photo 3, Photo 8 and Photo 12".
		for k := range names {
			names[k] = strings.TrimPrefix(names[k], "Photo ")
		}
		names[0] = "Photos " + names[0]
	}
	list := names[0]
	if n := len(names); n > 1 {
		list = strings.Join(names[:n-1], ", ") + " and " + names[n-1]
	}
	if j.FromVideos() {
		return fmt.Sprintf("%s: %s. Film it again and start a new build. No credit was used.", list, r.Reason)
	}
	them := "it"
	if len(r.Photos) > 1 {
		them = "them"
	}
	return fmt.Sprintf("%s: %s. Shoot %s again and upload the spin set again. No credit was used.", list, r.Reason, them)
}

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
// not garbage. Since a spin set's halves are searched beside its whole set
// (reconstruct/multiview/beside.go) both live at once: on this 2-core machine,
// 2026-12-01, a rendered box's 72 photos of 12 MP peaked at 2.5 GB against
// 2.3 GB with the halves after the search (4.4 MB photos), 2.2 against 1.7 GB
// (0.43 MB photos); its 24 photos at 0.86 against 0.51 GB. The largest set of
// 10 MB photos, 3.5 GB and up to 0.5 GB more, beside an ordinary build's
// 0.15 GB, stays under the pod's 4 GiB (4.29 GB).
// Two spin sets beside each other can never share a worker pod
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

// spinPhotoName names photo n (from 1, in the build's order) of a spin set
// as the merchant knows it: "Photo 7", or for a build cut from videos
// "Video 2, frame 3", since the merchant sent videos, not photos.
func spinPhotoName(j Job, n int) string {
	if j.FromVideos() {
		at := n
		for v, r := range j.Spin.Rings {
			if at <= r.Photos {
				return fmt.Sprintf("Video %d, frame %d", v+1, at)
			}
			at -= r.Photos
		}
	}
	return fmt.Sprintf("Photo %d", n)
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
	if j.FromVideos() {
		// As reconstruct.SpinSetFromVideos cut them: each further video
		// starts wherever the merchant pressed record.
		for i := 1; i < len(spin.Rings); i++ {
			spin.Rings[i].AnyPhase = true
		}
	}
	res, report, err := sr.ReconstructSpin(ctx, spin, w.cfg.Options, progress)
	if err != nil {
		return rec, nil, nil, err
	}
	return rec, res, &report, nil
}

// spinStats is a spin build's record in the job's stats ("spin"): the
// turntable fit and, for a build from videos, what was read from each video
// (its length, the turn found, which moments became photos).
type spinStats struct {
	reconstruct.SpinReport
	Videos []spinvideo.Report `json:"videos,omitempty"`
}

// VideoMissingMessage ends a build whose video is no longer in the store.
const VideoMissingMessage = "We could not find one of the uploaded videos. Please upload it again. " + BuildRefusedMessage

// workVideos builds a job from turntable videos: each is copied from the
// store into a private temporary folder (ffmpeg reads files, and a video
// is never held in memory), cut into its ring of photos
// (reconstruct.SpinSetFromVideos, reported as the first step), and the
// photos are built as a spin set of photos is. A video the merchant must
// film again fails the build with the reason and returns the credits.
func (w *ReconstructWorker) workVideos(ctx context.Context, rj *river.Job[ReconstructArgs], j Job, log *slog.Logger) error {
	dir, err := os.MkdirTemp("", "photo3d-videos-")
	if err != nil {
		return w.retryOrFail(ctx, rj, j, err)
	}
	defer os.RemoveAll(dir)
	keys := []string{j.ImageKey}
	for _, v := range j.MoreViews {
		keys = append(keys, v.ImageKey)
	}
	paths := make([]string, len(keys))
	for i, key := range keys {
		paths[i] = filepath.Join(dir, fmt.Sprintf("video-%d", i+1))
		if err := w.fetchVideo(ctx, key, paths[i]); err != nil {
			if errors.Is(err, blobstore.ErrNotFound) {
				return w.refuse(ctx, rj, j, VideoMissingMessage, err.Error(), err)
			}
			return w.retryOrFail(ctx, rj, j, err)
		}
	}
	progress := w.progress(ctx, j.ID, log)
	progress.report(reconstruct.StepAnalyzing, 0)
	spin, reports, err := reconstruct.SpinSetFromVideos(ctx, paths, j.Spin.Rings[0].Photos)
	if err != nil {
		progress.wait()
		switch {
		case errors.Is(err, spinvideo.ErrVideo):
			return w.refuse(ctx, rj, j, VideoRefusedMessage(err), err.Error(), err)
		case errors.Is(err, reconstruct.ErrSpinSet):
			return w.refuse(ctx, rj, j, SpinLayoutMessage, err.Error(), err)
		}
		return w.retryOrFail(ctx, rj, j, err)
	}
	var views []reconstruct.View
	for _, ring := range spin.Rings {
		for _, img := range ring.Images {
			views = append(views, reconstruct.View{Image: img, Azimuth: math.NaN()})
		}
	}
	if len(views) != j.Spin.Photos() {
		progress.wait()
		return w.refuse(ctx, rj, j, SpinLayoutMessage, fmt.Sprintf("the videos gave %d photos, the layout names %d", len(views), j.Spin.Photos()), nil)
	}
	return w.build(ctx, rj, j, views, progress, reports, log)
}

// fetchVideo copies a stored video to path, refusing more than a video may
// be (a corrupted or replaced object cannot fill the disk).
func (w *ReconstructWorker) fetchVideo(ctx context.Context, key, path string) error {
	rd, err := w.cfg.Blobs.Open(ctx, key)
	if err != nil {
		return err
	}
	defer rd.Close()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	n, err := io.Copy(f, io.LimitReader(rd, videocheck.MaxBytes+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > videocheck.MaxBytes {
		err = fmt.Errorf("stored video %s is over %d bytes", key, int64(videocheck.MaxBytes))
	}
	return err
}

// VideoRefusedMessage is what the merchant reads when a video cannot be
// used: spinvideo's reason, which video it was, and that nothing was charged.
func VideoRefusedMessage(err error) string {
	msg := err.Error()
	if msg != "" {
		msg = strings.ToUpper(msg[:1]) + msg[1:]
	}
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg + " Film it again and start a new build. No credit was used."
}
