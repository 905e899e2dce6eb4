package web

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
)

// Entry is one built entry point as the server-rendered pages need it: the
// script to load, the chunks it imports (to preload in parallel instead of
// discovering them one by one) and every stylesheet it and its chunks use.
// Paths are absolute URL paths served by Handler.
type Entry struct {
	Script  string
	Preload []string
	Styles  []string
	// Environment is the Radiance (.hdr) lighting map the entry itself
	// bundles, if any: the public viewer's pre-rendered neutral room. The
	// pages name it on <model-viewer> and preload it in their first response,
	// so a phone fetches it with the model instead of after the viewer's
	// script has run (issue 18).
	Environment string
}

// manifestChunk is one record of Vite's build manifest (dist/.vite/manifest.json).
type manifestChunk struct {
	File    string   `json:"file"`
	Imports []string `json:"imports"`
	CSS     []string `json:"css"`
	Assets  []string `json:"assets"`
}

// LookupEntry finds the built files of the entry whose source is src (for
// example "src/public-viewer/viewer.ts") in the embedded build manifest. It
// fails when the app was built without that entry or not built at all, so
// cmd/api can say so at start-up instead of serving pages without a viewer.
func LookupEntry(src string) (Entry, error) {
	raw, err := fs.ReadFile(dist, "dist/.vite/manifest.json")
	if err != nil {
		return Entry{}, fmt.Errorf("read web build manifest (build the web app first): %w", err)
	}
	return entryFrom(raw, src)
}

func entryFrom(raw []byte, src string) (Entry, error) {
	var m map[string]manifestChunk
	if err := json.Unmarshal(raw, &m); err != nil {
		return Entry{}, fmt.Errorf("decode web build manifest: %w", err)
	}
	root, ok := m[src]
	if !ok {
		return Entry{}, fmt.Errorf("web build manifest has no entry %q", src)
	}
	e := Entry{Script: "/" + root.File}
	for _, a := range root.Assets {
		if strings.HasSuffix(a, ".hdr") {
			e.Environment = "/" + a
			break
		}
	}
	seen := map[string]bool{src: true}
	styles := map[string]bool{}
	var walk func(c manifestChunk)
	walk = func(c manifestChunk) {
		for _, css := range c.CSS {
			if !styles[css] {
				styles[css] = true
				e.Styles = append(e.Styles, "/"+css)
			}
		}
		for _, imp := range c.Imports {
			if seen[imp] {
				continue
			}
			seen[imp] = true
			if ic, ok := m[imp]; ok {
				e.Preload = append(e.Preload, "/"+ic.File)
				walk(ic)
			}
		}
	}
	walk(root)
	return e, nil
}
