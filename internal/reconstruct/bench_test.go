package reconstruct

import (
	"context"
	"testing"
)

// benchPhoto is a 1024×1024 product shot: a two-tone bottle with a soft shadow on a
// mild studio gradient, JPEG-encoded like a phone upload.
func benchPhoto(b *testing.B, lathe bool) []byte {
	b.Helper()
	if lathe {
		s := twoToneBottle(1024, 1024)
		s.backdrop = gradient([3]float64{248, 248, 250}, [3]float64{222, 224, 228}, 1024)
		s.shadow = true
		return encodeJPEGBytes(b, s.render())
	}
	s := twoToneBlob(1024, 1024)
	s.backdrop = gradient([3]float64{248, 248, 250}, [3]float64{222, 224, 228}, 1024)
	return encodeJPEGBytes(b, s.render())
}

func benchPipeline(b *testing.B, lathe bool) {
	data := benchPhoto(b, lathe)
	var res *Result
	for b.Loop() {
		var err error
		if res, err = NewBuiltin().Reconstruct(context.Background(), data, Options{}, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(res.GLB))/1024, "glbKiB")
	b.ReportMetric(float64(res.Stats.Triangles), "triangles")
}

func BenchmarkPipelineLathe(b *testing.B)   { benchPipeline(b, true) }
func BenchmarkPipelineInflate(b *testing.B) { benchPipeline(b, false) }

// stages prepares the inputs of every stage once so each can be timed alone.
type stages struct {
	data []byte
	p    *photo
	seg  *segmentation
	pm   *partMap
	rows *silhouetteRows
	fit  latheFit
	uvm  uvMapper
}

func prepare(b *testing.B, lathe bool) *stages {
	b.Helper()
	ctx := context.Background()
	s := &stages{data: benchPhoto(b, lathe)}
	var err error
	if s.p, err = decodePhoto(ctx, s.data, DefaultWorkingSize); err != nil {
		b.Fatal(err)
	}
	if s.seg, err = segment(ctx, s.p); err != nil {
		b.Fatal(err)
	}
	if s.pm, err = detectParts(ctx, s.seg); err != nil {
		b.Fatal(err)
	}
	s.rows = measureRows(s.seg)
	s.fit = fitLathe(s.rows)
	if s.fit.ok {
		s.pm.toBands(s.seg)
	}
	s.pm.nameParts()
	if _, s.uvm, err = buildAtlas(ctx, s.p, s.seg); err != nil {
		b.Fatal(err)
	}
	return s
}

func BenchmarkStageDecode(b *testing.B) {
	s := prepare(b, true)
	for b.Loop() {
		if _, err := decodePhoto(context.Background(), s.data, DefaultWorkingSize); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStageSegment(b *testing.B) {
	s := prepare(b, true)
	for b.Loop() {
		if _, err := segment(context.Background(), s.p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStageParts(b *testing.B) {
	s := prepare(b, true)
	for b.Loop() {
		pm, err := detectParts(context.Background(), s.seg)
		if err != nil {
			b.Fatal(err)
		}
		pm.toBands(s.seg)
		pm.nameParts()
	}
}

func BenchmarkStageShapeLathe(b *testing.B) {
	s := prepare(b, true)
	if !s.fit.ok {
		b.Fatal("bench photo should be a lathe")
	}
	for b.Loop() {
		buildLathe(s.seg, s.pm, s.fit, s.rows, s.uvm, DefaultMaxTriangles)
	}
}

func BenchmarkStageShapeInflate(b *testing.B) {
	s := prepare(b, false)
	for b.Loop() {
		if _, err := buildInflate(context.Background(), s.seg, s.pm, s.uvm, DefaultMaxTriangles); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStageAtlas(b *testing.B) {
	s := prepare(b, false)
	for b.Loop() {
		src, _, err := buildAtlas(context.Background(), s.p, s.seg)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := src.encode(DefaultAtlasSize, atlasQuality); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStageFinalize(b *testing.B) {
	s := prepare(b, false)
	src, uvm, err := buildAtlas(context.Background(), s.p, s.seg)
	if err != nil {
		b.Fatal(err)
	}
	atlas, err := src.encode(DefaultAtlasSize, atlasQuality)
	if err != nil {
		b.Fatal(err)
	}
	meshes, err := buildInflate(context.Background(), s.seg, s.pm, uvm, DefaultMaxTriangles)
	if err != nil {
		b.Fatal(err)
	}
	_, gparts := assembleParts(s.seg, s.pm, meshes, DefaultHeightMetres)
	for b.Loop() {
		if _, err := encodeGLB(gparts, atlas, "bench", 0); err != nil {
			b.Fatal(err)
		}
		if _, err := thumbnailPNG(s.p, s.seg); err != nil {
			b.Fatal(err)
		}
		if _, err := maskPNG(s.seg); err != nil {
			b.Fatal(err)
		}
		if _, err := partsMapPNG(s.pm); err != nil {
			b.Fatal(err)
		}
	}
}
