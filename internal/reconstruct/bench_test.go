package reconstruct

import (
	"context"
	"testing"

	"github.com/photo3d/photo3d/internal/reconstruct/glbio"
	"github.com/photo3d/photo3d/internal/reconstruct/segment"
	"github.com/photo3d/photo3d/internal/reconstruct/shape"
	"github.com/photo3d/photo3d/internal/reconstruct/texture"
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
	p    *segment.Photo
	seg  *segment.Segmentation
	pm   *segment.PartMap
	rows *shape.SilhouetteRows
	fit  shape.LatheFit
	uvm  texture.UVMapper
}

func prepare(b *testing.B, lathe bool) *stages {
	b.Helper()
	ctx := context.Background()
	s := &stages{data: benchPhoto(b, lathe)}
	var err error
	if s.p, err = segment.DecodePhoto(ctx, s.data, DefaultWorkingSize); err != nil {
		b.Fatal(err)
	}
	if s.seg, err = segment.Segment(ctx, s.p); err != nil {
		b.Fatal(err)
	}
	if s.pm, err = segment.DetectParts(ctx, s.seg); err != nil {
		b.Fatal(err)
	}
	s.rows = shape.MeasureRows(s.seg)
	s.fit = shape.FitLathe(s.rows)
	if s.fit.Ok {
		s.pm.ToBands(s.seg)
	}
	s.pm.NameParts()
	if _, s.uvm, err = texture.BuildAtlas(ctx, s.p, s.seg); err != nil {
		b.Fatal(err)
	}
	return s
}

func BenchmarkStageDecode(b *testing.B) {
	s := prepare(b, true)
	for b.Loop() {
		if _, err := segment.DecodePhoto(context.Background(), s.data, DefaultWorkingSize); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStageSegment(b *testing.B) {
	s := prepare(b, true)
	for b.Loop() {
		if _, err := segment.Segment(context.Background(), s.p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStageParts(b *testing.B) {
	s := prepare(b, true)
	for b.Loop() {
		pm, err := segment.DetectParts(context.Background(), s.seg)
		if err != nil {
			b.Fatal(err)
		}
		pm.ToBands(s.seg)
		pm.NameParts()
	}
}

func BenchmarkStageShapeLathe(b *testing.B) {
	s := prepare(b, true)
	if !s.fit.Ok {
		b.Fatal("bench photo should be a lathe")
	}
	for b.Loop() {
		shape.BuildLathe(s.seg, s.pm, s.fit, s.rows, s.uvm, DefaultMaxTriangles)
	}
}

func BenchmarkStageShapeInflate(b *testing.B) {
	s := prepare(b, false)
	for b.Loop() {
		if _, err := shape.BuildInflate(context.Background(), s.seg, s.pm, s.uvm, DefaultMaxTriangles); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStageAtlas(b *testing.B) {
	s := prepare(b, false)
	for b.Loop() {
		src, _, err := texture.BuildAtlas(context.Background(), s.p, s.seg)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := src.Encode(DefaultAtlasSize, texture.AtlasQuality); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStageFinalize(b *testing.B) {
	s := prepare(b, false)
	src, uvm, err := texture.BuildAtlas(context.Background(), s.p, s.seg)
	if err != nil {
		b.Fatal(err)
	}
	atlas, err := src.Encode(DefaultAtlasSize, texture.AtlasQuality)
	if err != nil {
		b.Fatal(err)
	}
	meshes, err := shape.BuildInflate(context.Background(), s.seg, s.pm, uvm, DefaultMaxTriangles)
	if err != nil {
		b.Fatal(err)
	}
	_, gparts := assembleParts(s.seg, s.pm, meshes, DefaultHeightMetres)
	for b.Loop() {
		if _, err := glbio.EncodeGLB(gparts, atlas, "bench", 0); err != nil {
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
