package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"image/jpeg"
	"net/http"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/job/jobtest"
	"github.com/photo3d/photo3d/internal/publish"
)

// Merchant walk 4, P14: an email-gated product in a public gallery was a
// blank grey "3D" tile. It now shows the gate's teaser (a few dozen pixels
// made from the poster, blurred on the page) with "Email to view"; the poster
// itself stays behind the gate (security review 3, L1), on the tile route and
// on the product's own page.
func TestGalleryGatedTileShowsTheTeaserNotThePoster(t *testing.T) {
	t.Parallel()
	s := newProductPubStack(t)
	user, gated := s.readyProduct(t, "Puffin")
	open := s.productFor(t, user, "Vase")
	for _, id := range []string{gated, open} {
		var pd struct {
			BlueprintID string `json:"blueprintId"`
		}
		require.NoError(t, json.Unmarshal(s.ok(t, user, "GET", "/api/products/"+id, nil), &pd))
		require.NoError(t, s.env.Blobs.Bucket.WriteAll(context.Background(), "models/"+pd.BlueprintID+"/thumbnail.png", jobtest.PNG(t, 300, 200), nil))
	}
	g := publishedGallery(t, s, user, []string{gated, open}, map[string]bool{gated: true})

	page := g.from(t, "/g/"+g.slug, "192.0.2.1", shopperUA).Body.String()
	m := regexp.MustCompile(`<span class="p3d-tile-img p3d-tile-gated"><img src="(/v/([^/"]+)/teaser\.jpg\?v=[^"]+)"`).FindStringSubmatch(page)
	require.NotNil(t, m, "the gated tile shows its teaser:\n%s", page)
	require.Contains(t, page, "Email to view")
	require.NotContains(t, page, "/t/0.png", "no tile picture of the gated product")
	require.NotContains(t, page, `aria-hidden="true">3D</span>`, "no blank 3D tile")

	teaserURL := regexp.MustCompile(`&amp;`).ReplaceAllString(m[1], "&")
	rec := g.from(t, teaserURL, "192.0.2.1", shopperUA)
	require.Equal(t, http.StatusOK, rec.Code)
	img, err := jpeg.Decode(bytes.NewReader(rec.Body.Bytes()))
	require.NoError(t, err)
	require.LessOrEqual(t, max(img.Bounds().Dx(), img.Bounds().Dy()), publish.TeaserMaxSide)

	require.Equal(t, http.StatusNotFound, g.from(t, "/g/"+g.slug+"/t/0.png", "192.0.2.1", shopperUA).Code)
	require.Equal(t, http.StatusForbidden, g.from(t, "/v/"+m[2]+"/poster.png", "192.0.2.1", shopperUA).Code,
		"opening the product still meets the gate")
}
