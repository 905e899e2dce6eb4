package web

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEntryFromManifest(t *testing.T) {
	t.Parallel()
	raw := []byte(`{
	  "src/public-viewer/viewer.ts": {"file": "assets/public-viewer-a.js", "isEntry": true,
	    "imports": ["_model-viewer-b.js"], "css": ["assets/public-viewer-c.css"],
	    "assets": ["assets/logo-g.svg", "assets/neutral-env-h.hdr"]},
	  "_model-viewer-b.js": {"file": "assets/model-viewer-b.js", "imports": ["_shared-d.js"], "css": ["assets/mv-e.css"]},
	  "_shared-d.js": {"file": "assets/shared-d.js", "imports": ["_model-viewer-b.js"]},
	  "index.html": {"file": "assets/index-f.js", "isEntry": true}
	}`)
	e, err := entryFrom(raw, "src/public-viewer/viewer.ts")
	require.NoError(t, err)
	require.Equal(t, Entry{
		Script:  "/assets/public-viewer-a.js",
		Preload: []string{"/assets/model-viewer-b.js", "/assets/shared-d.js"},
		Styles:  []string{"/assets/public-viewer-c.css", "/assets/mv-e.css"},
		// The entry's own lighting map, named on the page and preloaded.
		Environment: "/assets/neutral-env-h.hdr",
	}, e)
	// An entry without a bundled .hdr lets model-viewer light the model itself.
	app, err := entryFrom(raw, "index.html")
	require.NoError(t, err)
	require.Empty(t, app.Environment)

	_, err = entryFrom(raw, "src/missing.ts")
	require.ErrorContains(t, err, `no entry "src/missing.ts"`)
	_, err = entryFrom([]byte(`not json`), "x")
	require.Error(t, err)
}
