package httpapi

import (
	"context"

	"github.com/photo3d/photo3d/internal/catalog"
)

// photoBuildView is what the product detail adds for the add-product wizard:
// the original photo (signed, "" when the product has none), the cutout
// options its builds use, and the current build's real progress (0–100) and
// stage ("Queued", the reconstructor's step, "Ready", "Failed"; "" for none).
type photoBuildView struct {
	PhotoURL   string `json:"photoUrl"`
	CleanEdges bool   `json:"cleanEdges"`
	KeepShadow bool   `json:"keepShadow"`
	Progress   int    `json:"progress"`
	Stage      string `json:"stage"`
	// Views is how many photos the current build uses ("Built from N photos");
	// absent without a build.
	Views int `json:"views,omitempty"`
}

func newPhotoBuildView(ctx context.Context, s *catalog.Service, p catalog.Product) (photoBuildView, error) {
	v := photoBuildView{CleanEdges: p.CleanEdges, KeepShadow: p.KeepShadow}
	var err error
	if v.PhotoURL, err = s.SignedURL(ctx, p.PhotoKey); err != nil {
		return v, err
	}
	bp, ok, err := s.Progress(ctx, p)
	if err != nil || !ok {
		return v, err
	}
	v.Progress, v.Stage, v.Views = bp.Progress, bp.Stage, bp.Views
	return v, nil
}
