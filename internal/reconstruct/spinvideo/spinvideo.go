package spinvideo

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// Limits of a turntable video.
const (
	MinSeconds = 2.0
	MaxSeconds = 60.0
	// MaxLongSide is the largest side of an extracted frame: more pixels than the
	// reconstruction works with, and about a third of a 4K frame's JPEG bytes.
	MaxLongSide = 1920
	// MinShortSide: below it the silhouettes are too coarse to carve.
	MinShortSide = 240
	// DefaultFrames is how many frames one turn becomes when the caller does not
	// say: a 12-photo ring, the spin sets' most common layout.
	DefaultFrames = 12
	// MinFrames and MaxFrames bound the frames of one turn (a spin set's ring
	// needs at least four; 72 is a whole spin set's limit).
	MinFrames = 4
	MaxFrames = 72
)

// ErrVideo is wrapped by every refusal of a video: errors.Is(err, ErrVideo)
// says the merchant's video, not the server, is the problem, and err.Error() is
// the sentence to show them.
var ErrVideo = errors.New("the turntable video cannot be used")

// The reasons a video is refused, each a sentence a merchant can act on.
var (
	ErrNotVideo    = errors.New("this file is not a video we can read: upload an MP4, MOV or WebM video")
	ErrTooShort    = errors.New("the video is too short: film at least 2 seconds, one full turn of the turntable")
	ErrTooLong     = errors.New("the video is too long: film at most 60 seconds, one full turn of the turntable")
	ErrTooSmall    = errors.New("the video's picture is too small: film at 720p or more")
	ErrNoFullTurn  = errors.New("the video shows less than one full turn: keep filming until the product has turned all the way round and a little past where it started")
	ErrCameraMoved = errors.New("the camera moved during the video: put the phone on a stand and keep it still while the turntable turns")
	ErrLeavesFrame = errors.New("the product leaves the frame: step back or zoom out so the whole product stays in view as it turns")
	ErrCut         = errors.New("the video jumps to a different scene: film one product, in one continuous shot")
)

// Error is a refused video: Reason is one of the Err* sentences above, Detail
// where in the video it was seen.
type Error struct {
	Reason error
	Detail string
}

func (e *Error) Error() string {
	if e.Detail == "" {
		return e.Reason.Error()
	}
	return e.Reason.Error() + " (" + e.Detail + ")"
}

// Unwrap lets errors.Is match both the reason and ErrVideo.
func (e *Error) Unwrap() []error { return []error{e.Reason, ErrVideo} }

func refuse(reason error, format string, args ...any) error {
	return &Error{Reason: reason, Detail: fmt.Sprintf(format, args...)}
}

// Report says what was read from one video: enough for a merchant to see which
// moments became photos and for support to see why a turn was found where it was.
type Report struct {
	DurationSec float64 `json:"durationSec"`
	FPS         float64 `json:"fps"` // the video's own frame rate
	Width       int     `json:"width"`
	Height      int     `json:"height"` // as displayed (rotation applied)
	// TurnSec is one turn of the turntable, in seconds.
	TurnSec float64 `json:"turnSec"`
	// SameFromEverySide: the product looked the same all the way round (a solid of
	// revolution, or a plain one), so no turn could be seen and the whole video was
	// taken as one turn. Its shape does not depend on the angles.
	SameFromEverySide bool `json:"sameFromEverySide,omitempty"`
	// TurnMatch is how closely the frame one turn in matches the first, 0–1.
	TurnMatch float64 `json:"turnMatch"`
	Frames    []Frame `json:"frames"`
	Dropped   []Drop  `json:"dropped,omitempty"`
}

// Frame is one frame taken as a photo.
type Frame struct {
	Sec      float64 `json:"sec"`      // where it was taken
	IdealSec float64 `json:"idealSec"` // where even spacing puts it
	// Sharpness is the variance of the Laplacian of the frame (grey, working size):
	// only comparable within one video.
	Sharpness float64 `json:"sharpness"`
}

// Drop is a stretch of the video that gave no photo, and why.
type Drop struct {
	FromSec float64 `json:"fromSec"`
	ToSec   float64 `json:"toSec"`
	Reason  string  `json:"reason"`
}

// Extract reads the video at path (a local file: the caller saves an upload
// first) and returns frames evenly spaced over its first full turn, as JPEG, the
// first frame first; frames ≤ 0 means DefaultFrames.
func Extract(ctx context.Context, path string, frames int) ([][]byte, Report, error) {
	if frames <= 0 {
		frames = DefaultFrames
	}
	if frames < MinFrames || frames > MaxFrames {
		return nil, Report{}, fmt.Errorf("spinvideo: %d frames per turn is outside %d–%d", frames, MinFrames, MaxFrames)
	}
	demuxer, err := sniff(path)
	if err != nil {
		return nil, Report{}, err
	}
	info, err := probe(ctx, path, demuxer)
	if err != nil {
		return nil, Report{}, err
	}
	rep := Report{DurationSec: round2(info.duration), FPS: round2(info.fps), Width: info.w, Height: info.h}
	if info.duration < MinSeconds {
		return nil, rep, refuse(ErrTooShort, "%.1f s", info.duration)
	}
	if info.duration > MaxSeconds {
		return nil, rep, refuse(ErrTooLong, "%.0f s", info.duration)
	}
	if min(info.w, info.h) < MinShortSide {
		return nil, rep, refuse(ErrTooSmall, "%d×%d", info.w, info.h)
	}
	st, err := decodeAnalysis(ctx, path, demuxer, info)
	if err != nil {
		return nil, rep, err
	}
	plan, err := analyse(st, frames, &rep)
	if err != nil {
		return nil, rep, err
	}
	jpegs, err := extractFrames(ctx, path, demuxer, info, plan)
	if err != nil {
		return nil, rep, err
	}
	return jpegs, rep, nil
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }
