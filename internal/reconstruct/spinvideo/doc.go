// Package spinvideo turns a turntable video into the photos of one ring of a
// spin set (issue 48): a merchant films one full turn per camera height instead
// of stopping the turntable for every photo.
//
// A video holds far more views than the pose search wants, and most of them
// are blurred or redundant; what it does not say is how long one turn took.
// So the video is read twice through ffmpeg (run with fixed arguments, no
// shell, bounded in time and size, after its container is recognised in Go):
// once small and grey, to find the turn and the sharp frames (turn.go), and
// once at full size, only for the frames chosen (ffmpeg.go). The turn is the
// lag at which the product's appearance comes back to the first frame's; the
// frames are then spaced evenly in time over that turn (a turntable turns at
// a constant speed), each the sharpest of a small window about its ideal time.
//
// What a merchant can get wrong is refused with a reason they can act on (an
// *Error wrapping ErrVideo and one of the Err* reasons): not a video, too short
// or too long, less than one full turn, a camera that moved, a product that
// leaves the frame, a cut to another scene. Everything else is said in the
// Report: the turn found, the frames taken and what was left out.
package spinvideo
