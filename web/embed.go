// Package web embeds the built single-page app (web/dist, produced by
// `npm run build`) into the api binary, so one file serves the whole product.
//
// web/dist/.keep is committed (and rewritten by every build, see
// vite.config.ts) so the embed pattern always matches: a fresh clone builds
// and vets with Go alone, and the api then serves notBuiltPage.
package web

import (
	"embed"
	"io"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

//go:embed all:dist
var dist embed.FS

// Handler serves the built app: real files with long-lived caching for hashed
// assets, and index.html for every other path so client-side routes work on
// reload (the SPA fallback). When the app has not been built it says so.
func Handler() http.Handler {
	root, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // the embed pattern guarantees the directory
	}
	return handlerFor(root)
}

// notBuiltPage answers every app route of a binary built before the web app.
const notBuiltPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Photo3D: web app not built</title></head>
<body style="font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;line-height:1.5">
<h1>Web app not built: run make run</h1>
<p>This api binary was compiled before the web app was built, so it has no pages to serve.
Run <code>make run</code> (it builds <code>web/</code> first and then the api), or
<code>make build</code> to produce <code>bin/api</code> with the app inside.</p>
<p>The JSON API under <code>/api</code> works without it.</p>
</body></html>
`

func handlerFor(root fs.FS) http.Handler {
	index, indexErr := fs.ReadFile(root, "index.html")
	files := http.FileServerFS(root)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		p := strings.TrimPrefix(path.Clean(r.URL.Path), "/")
		if p != "" && p != "index.html" {
			if st, err := fs.Stat(root, p); err == nil && !st.IsDir() {
				if strings.HasPrefix(p, "assets/") {
					w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
				}
				if servePrecompressed(w, r, root, p) {
					return
				}
				files.ServeHTTP(w, r)
				return
			}
			if strings.HasPrefix(p, "assets/") || path.Ext(p) != "" {
				http.NotFound(w, r)
				return
			}
		}
		if indexErr != nil {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, notBuiltPage)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(index)
	})
}
