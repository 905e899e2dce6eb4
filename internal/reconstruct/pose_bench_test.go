package reconstruct

import (
	"context"
	"testing"

	"github.com/photo3d/photo3d/internal/reconstruct/multiview"
)

// BenchmarkPoseSearch is the pose search of BenchmarkMultiView4x12MP's chair on
// its own (four 1000×750 photos, decoded and segmented once), the stage that
// took over half of that benchmark's time:
//
//	go test -run '^$' -bench PoseSearch -cpu 1 ./internal/reconstruct
func BenchmarkPoseSearch(b *testing.B) {
	m := makeMVScene("chair", 0, 1000, 750)
	var views []View
	for k, p := range m.photos() {
		views = append(views, View{Image: p, Azimuth: m.stated[k]})
	}
	vs, _, err := prepareViews(context.Background(), views, Options{}.WithDefaults(), nil)
	if err != nil {
		b.Fatal(err)
	}
	start := make([]multiview.View, len(vs))
	for i, v := range vs {
		start[i] = *v
	}
	cpu0 := cpuSeconds()
	b.ResetTimer()
	defer func() { b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op") }()
	for range b.N {
		for i, v := range vs {
			*v = start[i]
		}
		if _, err := multiview.EstimatePoses(context.Background(), vs); err != nil {
			b.Fatal(err)
		}
	}
}
