package httpapi

import (
	"html/template"
	"net"
	"net/http"
	"net/netip"
	"regexp"
	"strings"
	"time"

	"github.com/photo3d/photo3d/internal/mail"
)

// devMailPage serves GET /dev/mail in DEV_MODE: the "Outbox" a newcomer
// running `make run` without an SMTP relay opens to read account mail (the
// verification link a new account needs before it can sign in). It lists
// every kept message with its links clickable, so it answers only a browser
// on this machine: the connection must come from a loopback address, name a
// loopback host (no DNS rebinding from a web page) and carry no proxy header.
func devMailPage(outbox mail.Lister) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !fromLoopback(r) {
			http.NotFound(w, r)
			return
		}
		type part struct {
			Text string
			Link bool
		}
		type row struct {
			To, Subject string
			At          string
			Body        []part
		}
		var rows []row
		for _, m := range outbox.List() {
			rw := row{To: m.To, Subject: m.Subject, At: m.SentAt.Local().Format(time.DateTime)}
			last := 0
			for _, loc := range linkRE.FindAllStringIndex(m.Body, -1) {
				rw.Body = append(rw.Body, part{Text: m.Body[last:loc[0]]}, part{Text: m.Body[loc[0]:loc[1]], Link: true})
				last = loc[1]
			}
			rw.Body = append(rw.Body, part{Text: m.Body[last:]})
			rows = append(rows, rw)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Referrer-Policy", "no-referrer")
		_ = devMailTemplate.Execute(w, rows)
	}
}

var linkRE = regexp.MustCompile(`https?://[^\s<>"]+`)

// fromLoopback: a loopback peer, a loopback Host and no forwarding header.
func fromLoopback(r *http.Request) bool {
	if r.Header.Get("X-Forwarded-For") != "" || r.Header.Get("Forwarded") != "" {
		return false
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	peer, err := netip.ParseAddr(host)
	if err != nil || !peer.Unmap().IsLoopback() {
		return false
	}
	h := r.Host
	if hh, _, err := net.SplitHostPort(h); err == nil {
		h = hh
	}
	h = strings.Trim(h, "[]")
	if h == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.Unmap().IsLoopback()
}

var devMailTemplate = template.Must(template.New("mail").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Outbox · Photo3D (development)</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1d2330}
main{max-width:760px;margin:0 auto;padding:24px}
h1{font-size:22px;margin:0 0 4px}
p.note{color:#5b6375;margin:0 0 20px}
article{background:#fff;border:1px solid #e2e5ea;border-radius:10px;padding:16px 18px;margin:0 0 14px}
h2{font-size:16px;margin:0 0 4px}
.meta{color:#5b6375;font-size:13px;margin-bottom:10px}
pre{white-space:pre-wrap;word-break:break-word;font:inherit;margin:0}
a{color:#2456d6}
</style></head><body><main>
<h1>Outbox</h1>
<p class="note">Account mail this development server would have sent (no SMTP relay is configured). Newest first; only this computer can open this page.</p>
{{range .}}<article><h2>{{.Subject}}</h2><div class="meta">To {{.To}} · {{.At}}</div>
<pre>{{range .Body}}{{if .Link}}<a href="{{.Text}}">{{.Text}}</a>{{else}}{{.Text}}{{end}}{{end}}</pre></article>
{{else}}<p>No mail yet. Sign up or ask for a password reset, then reload this page.</p>{{end}}
</main></body></html>
`))
