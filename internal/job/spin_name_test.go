package job

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/reconstruct"
)

// A spin set is named after what its files share, never after its first
// photo's number or a camera's prefix.
func TestSpinNameComesFromWhatTheFilesShare(t *testing.T) {
	at := time.Date(2026, 11, 29, 21, 40, 0, 0, time.UTC)
	for _, c := range []struct {
		files []string
		want  string
	}{
		{[]string{"oak-chair-01.jpg", "oak-chair-02.jpg", "oak-chair-10.jpg"}, "oak-chair"},
		{[]string{"Vase (1).png", "Vase (2).png"}, "Vase"},
		{[]string{"P1.png", "P2.png", "P24.png"}, "Spin set 29 Nov 2026 21:40"},
		{[]string{"IMG_0412.JPG", "IMG_0413.JPG"}, "Spin set 29 Nov 2026 21:40"},
		{[]string{"PXL_20261129_101010.mp4"}, "Spin set 29 Nov 2026 21:40"},
		{[]string{"lamp level.mov", "lamp high.mov"}, "lamp"},
		{[]string{"a.jpg", "b.jpg"}, "Spin set 29 Nov 2026 21:40"},
		{[]string{"teapot.webm"}, "teapot"},
	} {
		require.Equal(t, c.want, spinName(c.files, at), "%v", c.files)
	}
}

// A spin photo a refusal names is the merchant's own: "Photo 7" of a spin
// set of photos, "Video 2, frame 3" of one cut from videos.
func TestSpinPhotoNameSaysWhichVideo(t *testing.T) {
	photos := Job{Spin: &events.JobSpin{Rings: []events.SpinRingSpec{{Photos: 12}, {Photos: 12, ElevationDeg: 30}}}}
	videos := Job{Spin: &events.JobSpin{Videos: 2, Rings: []events.SpinRingSpec{{Photos: 12}, {Photos: 12, ElevationDeg: 30}}}}
	require.Equal(t, "Photo 15", spinPhotoName(photos, 15))
	require.Equal(t, "Video 1, frame 12", spinPhotoName(videos, 12))
	require.Equal(t, "Video 2, frame 3", spinPhotoName(videos, 15))
}

// A refused spin set names the photos to shoot again as a merchant counts
// them, a long list cut short.
func TestSpinRefusalNamesThePhotos(t *testing.T) {
	photos := Job{Spin: &events.JobSpin{Rings: []events.SpinRingSpec{{Photos: 12}, {Photos: 12, ElevationDeg: 30}}}}
	videos := Job{Spin: &events.JobSpin{Videos: 2, Rings: []events.SpinRingSpec{{Photos: 12}, {Photos: 12, ElevationDeg: 30}}}}
	off := func(ns ...int) *reconstruct.SpinRefusal {
		return &reconstruct.SpinRefusal{Reason: reconstruct.ErrSpinLeavesFrame, Photos: ns}
	}
	const rest = ": the product runs off the edge of the frame; step back or zoom out so that the whole product, with some space around it, is in every photo. "
	require.Equal(t, "Photo 7"+rest+"Shoot it again and upload the spin set again. No credit was used.", SpinRefusedMessage(photos, off(7)))
	require.Equal(t, "Photos 3, 8 and 12"+rest+"Shoot them again and upload the spin set again. No credit was used.", SpinRefusedMessage(photos, off(3, 8, 12)))
	require.Equal(t, "Photos 1, 2, 3, 4, 5, 6 and 3 more"+rest+"Shoot them again and upload the spin set again. No credit was used.",
		SpinRefusedMessage(photos, off(1, 2, 3, 4, 5, 6, 7, 8, 9)))
	require.Equal(t, "Video 1, frame 4 and Video 2, frame 3"+rest+"Film it again and start a new build. No credit was used.",
		SpinRefusedMessage(videos, off(4, 15)))
}
