package job

import (
	"context"
	"fmt"
	"math"
	"path"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/reconstruct"
)

// Builds from a turntable spin set (issue 48 §5): the 8 to 72 photos a
// merchant shoots on a turntable for a 360° spin viewer, in one or more
// rings (one full turn each, from one camera height), become one job. The
// job records the photos as any multi-photo build does (the first as its
// upload and image key, the rest as MoreViews, in shooting order, ring
// after ring) plus the ring layout (events.JobSpin), and the worker builds
// it with reconstruct.SpinReconstructor.
//
// Price: CreditsFor(photos), one AI credit per photo like every other
// build, so a 24-photo spin set costs 24. Measured on one quiet core,
// 2026-11-29, the same 12 MP photo of a vase built through `worker convert`
// (the reconstructor call the worker makes), CPU seconds per photo:
//
//	one photo                    0.7  (0.7 CPU-s in all)
//	four photos (multi-view)     2.2  (8.8, median of 3)
//	spin set of 8 (320×240 px)   2.0  (16)
//	spin set of 24               3.4  (82)
//	spin set of 48               4.8  (231)
//	spin set of 72               6.6  (474)
//
// and docs/benchmarks.md's chair: 24 photos 35.7 CPU-s (1.5 per photo), four
// photos 2.76 (0.69 per photo). A spin photo costs 1–3× a four-photo build's
// photo, rising with the set (the turntable search compares every photo with
// the others), and up to about 9× a one-photo build's. One credit per photo
// is still the fair price: the four-photo build already costs about three
// one-photo builds of CPU per credit, and the spec prices credits, not CPU;
// even the 72-photo set's 8 CPU-minutes (6.6 CPU-s a credit) are worth well
// under a rupee at on-demand cloud CPU prices (cents an hour), against the
// ₹25 a credit sells for (spec §9: 20 for ₹500); a price linear in photos is
// one a merchant can work out from the count alone; and the cost a long
// build puts on other merchants is its run time, which the fair share
// (fairshare.go: one build holds one slot, an account's second build queues
// behind every account's first) and the worker's one-spin-set-at-a-time gate
// (DefaultSpinSlots) bound, not its price. Charging spin photos more would push merchants to
// shoot fewer photos, which makes worse models.

// SpinRing is one ring of a spin set as POST /api/jobs names it: how many
// photos were taken over one full turn, and the camera's elevation in
// degrees above the product's middle (0: level with it).
type SpinRing struct {
	Photos    int
	Elevation float64
}

// CodeInvalidSpinSet is the error code of every refused spin set layout.
const CodeInvalidSpinSet = "invalid_spin_set"

// ErrSpinWithImage refuses a request that sends a spin set and imageURL or
// moreImages: a spin set's photos are all in its own imageURLs.
var ErrSpinWithImage = fault.New(fault.Invalid, CodeInvalidSpinSet,
	"Send either a spin set or imageURL (with moreImages), not both: a spin set's photos all go in spinSet.imageURLs, in shooting order.")

func spinRefusal(format string, args ...any) *fault.Error {
	return fault.New(fault.Invalid, CodeInvalidSpinSet, fmt.Sprintf(format, args...))
}

// CheckSpinLayout checks a spin set's rings against its photos (how many
// imageURLs came with them) with the reconstructor's own limits, and
// returns the layout as the job records it; a refusal is a 400
// invalid_spin_set that says what to change.
func CheckSpinLayout(rings []SpinRing, photos int) (*events.JobSpin, error) {
	if photos < reconstruct.MinSpinPhotos || photos > reconstruct.MaxSpinPhotos {
		return nil, spinRefusal("A spin set takes %d to %d photos; this one has %d.",
			reconstruct.MinSpinPhotos, reconstruct.MaxSpinPhotos, photos)
	}
	if len(rings) == 0 {
		return nil, spinRefusal("A spin set needs its rings: how many photos each turn of the turntable took, and the camera's elevation for that turn.")
	}
	layout := &events.JobSpin{Rings: make([]events.SpinRingSpec, 0, len(rings))}
	total := 0
	for i, r := range rings {
		if r.Photos < reconstruct.MinRingPhotos {
			return nil, spinRefusal("Ring %d has %d photos: each ring needs at least %d, taken over one full turn of the turntable.",
				i+1, r.Photos, reconstruct.MinRingPhotos)
		}
		if math.IsNaN(r.Elevation) || math.IsInf(r.Elevation, 0) || math.Abs(r.Elevation) > reconstruct.MaxRingElevDeg {
			return nil, spinRefusal("Ring %d: the camera's elevation must be between −%d° and %d° (0 is level with the middle of the product); it is %s.",
				i+1, reconstruct.MaxRingElevDeg, reconstruct.MaxRingElevDeg, degrees(r.Elevation))
		}
		total += r.Photos
		layout.Rings = append(layout.Rings, events.SpinRingSpec{Photos: r.Photos, ElevationDeg: r.Elevation})
	}
	if total != photos {
		return nil, spinRefusal("The rings add up to %d photos, but %d photos were sent: give each ring the number of photos taken in it, and send the photos in shooting order, ring after ring.",
			total, photos)
	}
	return layout, nil
}

func degrees(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "not a number"
	}
	return fmt.Sprintf("%g°", v)
}

// CreateSpin starts a build from a turntable spin set (POST /api/jobs with
// spinSet): the layout is checked first (CheckSpinLayout), then every
// imageURL exactly like a multi-photo build's further photos (one of the
// caller's completed uploads; a bad one is a 400 naming it, "Photo 7: …",
// counting from 1), all before anything is reserved. Then, in one
// transaction like every build (queueViewsTx): CreditsFor(photos) reserved
// (402 naming the price when short), JobQueued with the photos and the
// layout, the River job.
func (s *Service) CreateSpin(ctx context.Context, userID string, rings []SpinRing, imageURLs []string) (Job, error) {
	layout, err := CheckSpinLayout(rings, len(imageURLs))
	if err != nil {
		return Job{}, err
	}
	photos := make([]events.JobView, 0, len(imageURLs))
	filenames := make([]string, 0, len(imageURLs))
	for i, u := range imageURLs {
		up, err := s.resolvePhoto(ctx, userID, u, i+1)
		if err != nil {
			return Job{}, err
		}
		filenames = append(filenames, up.Filename)
		photos = append(photos, events.JobView{UploadID: up.ID, ImageKey: up.BlobKey})
	}
	name := spinName(filenames, s.now().UTC())
	return s.startBuild(ctx, userID, photos[0].UploadID, photos[0].ImageKey, name, photos[1:], layout)
}

// Builds from turntable videos (issue 48 §1, §5): one video per camera
// height, lowest first, each of at least one full turn. The worker cuts each
// into a ring of reconstruct.VideoFramesPerTurn photos at that height's
// nominal elevation (reconstruct.VideoElevationsDeg) and builds the spin set
// as it builds one of photos. The job records the videos as its uploads (the
// first as its upload, the rest as MoreViews) and the rings they become, with
// Videos set.
//
// Price: the photos the videos become, one credit each like every build
// (VideoFramesPerTurn a video, 12): two videos cost what a 24-photo spin set
// costs, and take the same build after the cut. Cutting the frames is the
// cheap part: ffmpeg decodes a 10-second 1080p video at a small size in a few
// CPU-seconds (docs/benchmarks.md, BenchmarkVideo20s1080p), against 40 CPU-s
// for the 24-photo build.

// ErrSpinVideosWithPhotos refuses a spin set that names both videos and photos.
var ErrSpinVideosWithPhotos = spinRefusal("Send a spin set's photos (spinSet.imageURLs with its rings) or its videos (spinSet.videoURLs), not both.")

// CheckVideoLayout checks how many videos a spin set names and returns the
// layout the job records: one ring per video, lowest first.
func CheckVideoLayout(videos int) (*events.JobSpin, error) {
	if videos < 1 || videos > reconstruct.MaxVideos {
		return nil, spinRefusal("A spin set takes 1 to %d videos, one full turn of the turntable at each camera height, lowest first; this one has %d.",
			reconstruct.MaxVideos, videos)
	}
	layout := &events.JobSpin{Videos: videos, Rings: make([]events.SpinRingSpec, videos)}
	for i := range videos {
		layout.Rings[i] = events.SpinRingSpec{Photos: reconstruct.VideoFramesPerTurn, ElevationDeg: reconstruct.VideoElevationsDeg[i]}
	}
	return layout, nil
}

// CreateSpinVideos starts a build from turntable videos (POST /api/jobs with
// spinSet.videoURLs): the count is checked first, then each video (one of
// the caller's completed uploads, and a video: "Video 2: …" names a bad
// one), all before anything is reserved; then, in one transaction like
// every build, CreditsFor the photos the videos become, JobQueued with the
// videos and the layout, and the River job.
func (s *Service) CreateSpinVideos(ctx context.Context, userID string, videoURLs []string) (Job, error) {
	layout, err := CheckVideoLayout(len(videoURLs))
	if err != nil {
		return Job{}, err
	}
	videos := make([]events.JobView, 0, len(videoURLs))
	filenames := make([]string, 0, len(videoURLs))
	for i, u := range videoURLs {
		up, err := s.uploads.ResolveVideo(ctx, userID, u)
		if err != nil {
			if fe, ok := fault.As(err); ok {
				return Job{}, fault.Wrap(err, fe.Kind, fe.Code, fmt.Sprintf("Video %d: %s", i+1, fe.Message))
			}
			return Job{}, err
		}
		filenames = append(filenames, up.Filename)
		videos = append(videos, events.JobView{UploadID: up.ID, ImageKey: up.BlobKey})
	}
	name := spinName(filenames, s.now().UTC())
	return s.startBuild(ctx, userID, videos[0].UploadID, videos[0].ImageKey, name, videos[1:], layout)
}

// cameraPrefixes are the file names cameras and phones give every photo and
// video: they name no product.
var cameraPrefixes = map[string]bool{"img": true, "dsc": true, "dscn": true, "dscf": true, "pxl": true, "vid": true,
	"mvi": true, "mov": true, "gopr": true, "photo": true, "image": true, "video": true, "p": true, "frame": true}

// spinName names a spin-set build after what its files have in common
// ("chair-01.jpg" … "chair-24.jpg": "chair"), with the numbering, the
// separators and a camera's own prefix ("IMG_0412") left out; when nothing
// is left, "Spin set" and the date, never "P01" (merchant's own photo names
// are shot by number).
func spinName(filenames []string, at time.Time) string {
	stems := make([]string, len(filenames))
	for i, f := range filenames {
		stems[i] = strings.TrimSuffix(f, path.Ext(f))
	}
	common := ""
	if len(stems) > 0 {
		common = stems[0]
		for _, s := range stems[1:] {
			for !strings.HasPrefix(s, common) {
				_, size := utf8.DecodeLastRuneInString(common)
				common = common[:len(common)-size]
			}
		}
	}
	name := strings.TrimRightFunc(common, func(r rune) bool {
		return unicode.IsDigit(r) || unicode.IsSpace(r) || strings.ContainsRune("_-.()[]#", r)
	})
	letters := 0
	for _, r := range name {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	if letters < 2 || cameraPrefixes[strings.ToLower(name)] {
		return "Spin set " + at.Format("2 Jan 2006 15:04")
	}
	return defaultName(name, at)
}
