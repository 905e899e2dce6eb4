package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// Item 10 of the security review (see security_test.go for the rest): the
// model file and poster of a publication whose views ran out are not served,
// so fetching them directly is no way around the metered page.
func TestSecurityExhaustedPublicationAssetsAreNotServed(t *testing.T) {
	t.Parallel()
	b := pubSetup(t, 0)
	owner := b.Owner(t, "trial")
	p := b.Publish(t, owner, b.Blueprint(t, owner, "Rocking chair"))
	b.Downgrade(t, owner)
	b.SetViewBalance(t, owner, 1)

	require.Equal(t, http.StatusOK, b.view(t, "GET", "/v/"+p.Slug+"/model.glb", "192.0.2.1", browserUA).Code, "views left: served")
	rec := b.look(t, "/v/"+p.Slug, "192.0.2.1", browserUA, "viewer-exhausts-000001")
	require.Contains(t, rec.Body.String(), "<model-viewer")
	rec = b.view(t, "GET", "/v/"+p.Slug, "192.0.2.2", browserUA)
	require.Contains(t, rec.Body.String(), unavailable)
	for _, asset := range []string{"/model.glb", "/poster.png"} {
		rec := b.view(t, "GET", "/v/"+p.Slug+asset, "198.51.100.7", browserUA)
		require.Equal(t, http.StatusNotFound, rec.Code, asset)
	}
}
