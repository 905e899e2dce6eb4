package reconstruct

import (
	"image"
	"image/png"
	"context"
	"math"
	"os"
	"strings"
	"testing"
)

func TestMVDebugPoses(t *testing.T) {
	cls := os.Getenv("MVDEBUG")
	if cls == "" {
		t.Skip()
	}
	for _, class := range strings.Split(cls, ",") {
		m := makeMVScene(class, 0, 960, 720)
		var vs []*mvView
		for k, p := range m.photos() {
			ph, _ := decodePhoto(context.Background(), p, 1024)
			seg, _ := segment(context.Background(), ph)
			vs = append(vs, newMVView(ph, seg, m.stated[k]*math.Pi/180))
		}
		pr, err := estimatePoses(context.Background(), vs)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s coherence %.3f", class, pr.coherence)
		for k, v := range vs {
			c := m.cams[k]
			taz := math.Atan2(c.pos[0], c.pos[2]) * 180 / math.Pi
			tel := math.Asin(-c.fwd[1]) * 180 / math.Pi
			t.Logf("  view %d: az %.1f (true %.1f) el %.1f (true %.1f) ls %.3f", k, v.az*180/math.Pi, taz, v.el*180/math.Pi, tel, v.ls)
		}
	}
}

func TestMVDebugShadow(t *testing.T) {
	cls := os.Getenv("MVSHADOW")
	if cls == "" {
		t.Skip()
	}
	m := makeMVScene(cls, 0, 960, 720)
	p := m.photos()[0]
	ph, _ := decodePhoto(context.Background(), p, 1024)
	seg, _ := segment(context.Background(), ph)
	v := newMVView(ph, seg, 0)
	img := image.NewRGBA(image.Rect(0, 0, seg.w, seg.h))
	for i := range seg.alpha {
		img.Pix[4*i] = seg.alpha[i]
		img.Pix[4*i+1] = v.alpha[i]
		img.Pix[4*i+3] = 255
	}
	f, _ := os.Create("/tmp/mvr/shadow.png")
	png.Encode(f, img)
	f.Close()
	os.WriteFile("/tmp/mvr/shadow-photo.jpg", p, 0o644)
}

func TestMVDebugFrame(t *testing.T) {
	cls := os.Getenv("MVFRAME")
	if cls == "" {
		t.Skip()
	}
	m := makeMVScene(cls, 0, 960, 720)
	var views []View
	for k, p := range m.photos() {
		views = append(views, View{Image: p, Azimuth: m.stated[k]})
	}
	res, err := NewBuiltin().(MultiViewReconstructor).ReconstructViews(context.Background(), views, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	truth := alignTruth(m.base.tris)
	model := alignedModel(t, res.GLB)
	ext := func(tr []qtri) (lo, hi v3) {
		lo, hi = v3{9, 9, 9}, v3{-9, -9, -9}
		for _, x := range tr {
			for _, p := range x.p {
				for c := range 3 {
					lo[c], hi[c] = min(lo[c], p[c]), max(hi[c], p[c])
				}
			}
		}
		return
	}
	l1, h1 := ext(truth)
	l2, h2 := ext(model)
	t.Logf("truth %v %v model %v %v", l1, h1, l2, h2)
	for _, tf := range []struct {
		n string
		f func(p v3) v3
	}{{"id", func(p v3) v3 { return p }}, {"mirrorX", func(p v3) v3 { return v3{-p[0], p[1], p[2]} }}, {"mirrorZ", func(p v3) v3 { return v3{p[0], p[1], -p[2]} }}, {"rot90", func(p v3) v3 { return v3{p[2], p[1], -p[0]} }}, {"rot-90", func(p v3) v3 { return v3{-p[2], p[1], p[0]} }}} {
		mm := make([]qtri, len(model))
		for i, x := range model {
			for c := range 3 {
				mm[i].p[c] = tf.f(x.p[c])
			}
		}
		t.Logf("%s F5 %.3f", tf.n, f5(mm, truth))
	}
}
