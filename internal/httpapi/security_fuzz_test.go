package httpapi

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/photo3d/photo3d/internal/account"
)

// svgBypasses are the review's sanitiser bypasses (item 11) and their
// relatives; they seed FuzzSanitizeSVG and TestSecuritySVGLogoBypasses.
var svgBypasses = []string{
	`<svg xmlns="http://www.w3.org/2000/svg"><style><a/>@import url(https://evil.example/x.css);</style></svg>`,
	`<svg xmlns="http://www.w3.org/2000/svg"><style>@\69mport url(https://evil.example/x.css);</style></svg>`,
	`<svg xmlns="http://www.w3.org/2000/svg"><style>.a{background:u\72l(https://evil.example/t)}</style><rect class="a"/></svg>`,
	`<svg xmlns="http://www.w3.org/2000/svg"><style>.a{background:image-set("https://evil.example/t" 1x)}</style></svg>`,
	`<svg xmlns="http://www.w3.org/2000/svg"><rect style="background:u\72l(https://evil.example/t)"/></svg>`,
	`<svg xmlns="http://www.w3.org/2000/svg"><rect style="background:image-set('https://evil.example/t' 1x)"/></svg>`,
	`<svg xmlns="http://www.w3.org/2000/svg"><rect style="background:url(#ok)"/></svg>`,
	`<svg xmlns="http://www.w3.org/2000/svg"><rect fill="u&#92;72l(https://evil.example/t)"/></svg>`,
	`<svg xmlns="http://www.w3.org/2000/svg"><rect style="x:1;@import 'https://evil.example/x.css'"/></svg>`,
	`<svg xmlns="http://www.w3.org/2000/svg"><rect style="background:u/**/rl(https://evil.example/t)"/></svg>`,
	`<svg xmlns="http://www.w3.org/2000/svg"><rect fill="cross-fade(url(https://evil.example/t))"/></svg>`,
	`<svg xmlns="http://www.w3.org/2000/svg"><style><![CDATA[@import "https://evil.example/x.css";]]></style></svg>`,
	`<svg xmlns="http://www.w3.org/2000/svg"><defs><linearGradient id="g"/></defs><rect fill="url(#g)" transform="rotate(45)"/></svg>`,
}

var externalRef = regexp.MustCompile(`(?i)https?:|//evil|@import|\\|image-set|cross-fade|<style|javascript:`)

// checkCleanSVG asserts what the sanitiser promises about its output: it
// re-parses, keeps only allow-listed elements, no event handler, no style
// sheet, no escapes and no reference outside the document.
func checkCleanSVG(t *testing.T, out []byte) {
	t.Helper()
	// The namespace names are identifiers, never fetched.
	bare := strings.NewReplacer(`"http://www.w3.org/2000/svg"`, "", `"http://www.w3.org/1999/xlink"`, "").Replace(string(out))
	if m := externalRef.FindString(bare); m != "" {
		t.Fatalf("sanitised SVG still holds %q: %s", m, out)
	}
	dec := xml.NewDecoder(bytes.NewReader(out))
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("sanitised SVG does not parse: %v: %s", err, out)
		}
		if se, ok := tok.(xml.StartElement); ok {
			if strings.EqualFold(se.Name.Local, "style") || strings.EqualFold(se.Name.Local, "script") {
				t.Fatalf("sanitised SVG keeps <%s>: %s", se.Name.Local, out)
			}
			for _, a := range se.Attr {
				if strings.HasPrefix(strings.ToLower(a.Name.Local), "on") {
					t.Fatalf("sanitised SVG keeps handler %s: %s", a.Name.Local, out)
				}
			}
		}
	}
}

// FuzzSanitizeSVG: whatever the input, the output is clean and
// sanitising it again changes nothing. `go test` runs the seeds;
// `go test -fuzz FuzzSanitizeSVG ./internal/httpapi` explores further.
func FuzzSanitizeSVG(f *testing.F) {
	for _, s := range svgBypasses {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := account.SanitizeSVG(data)
		if err != nil {
			return
		}
		checkCleanSVG(t, out)
		again, err := account.SanitizeSVG(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: %v\n%s\n%s", err, out, again)
		}
	})
}

// FuzzDecodeStrict: the strict decoder accepts exactly one JSON value; a
// body it accepts is one encoding/json also accepts whole, and appending
// any non-space byte makes it refuse.
func FuzzDecodeStrict(f *testing.F) {
	for _, s := range []string{`{"email":"a@b.c"}`, `{"email":"a@b.c"} x`, `{"email":"a@b.c"}{}`, `{"email":"a@b.c"}"`,
		` {"a":1} `, `[]`, `null`, `{"email":"a@b.c","email":"victim@b.c"}`, "{\"email\":\"a@b.c\"}\x00"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var v any
		if err := decodeStrict(bytes.NewReader(body), &v); err != nil {
			return
		}
		var whole any
		if err := json.Unmarshal(body, &whole); err != nil {
			t.Fatalf("strict decoder accepted what json.Unmarshal refuses: %q: %v", body, err)
		}
		if err := decodeStrict(bytes.NewReader(append(append([]byte{}, body...), 'x')), &v); err == nil {
			t.Fatalf("trailing byte accepted after %q", body)
		}
	})
}

// Item 11: every known bypass is neutralised (refused or rebuilt clean).
func TestSecuritySVGLogoBypasses(t *testing.T) {
	t.Parallel()
	for _, s := range svgBypasses {
		out, err := account.SanitizeSVG([]byte(s))
		if err != nil {
			continue
		}
		checkCleanSVG(t, out)
	}
	// Local references, colours and transforms still work.
	out, err := account.SanitizeSVG([]byte(svgBypasses[len(svgBypasses)-1]))
	if err != nil || !bytes.Contains(out, []byte(`fill="url(#g)"`)) || !bytes.Contains(out, []byte(`transform="rotate(45)"`)) {
		t.Fatalf("a harmless logo lost its paint: %v %s", err, out)
	}
}
