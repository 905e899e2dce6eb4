package account

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// SVG logos are shown on public share pages, so an uploaded SVG is rebuilt
// from an allow-list instead of trusted: no scripts, no event handlers, no
// foreign content and no references outside the document (an external
// href or url() would leak viewers to third parties or pull in script).
// <style> elements are dropped whole: a style sheet's grammar (escapes,
// nested rules, image-set, child elements in CDATA) is too rich to vet
// with patterns, and a logo does not need one.

var svgElements = map[string]bool{
	"svg": true, "g": true, "defs": true, "symbol": true, "use": true, "title": true, "desc": true,
	"path": true, "rect": true, "circle": true, "ellipse": true, "line": true, "polyline": true, "polygon": true,
	"text": true, "tspan": true, "textpath": true, "lineargradient": true, "radialgradient": true, "stop": true,
	"clippath": true, "mask": true, "pattern": true, "marker": true, "image": true,
	"filter": true, "fegaussianblur": true, "feoffset": true, "feblend": true, "fecolormatrix": true,
	"feflood": true, "fecomposite": true, "femerge": true, "femergenode": true, "fedropshadow": true,
}

var (
	cssURL       = regexp.MustCompile(`(?i)url\s*\(\s*['"]?\s*([^'")\s]*)`)
	dangerousCSS = regexp.MustCompile(`(?i)@|expression|javascript:|behavior\s*:|-moz-binding|\\|/\*|<|image-set|image\s*\(|src\s*\(`)
	cssFunction  = regexp.MustCompile(`([A-Za-z_-]*)\s*\(`)
	dataImage    = regexp.MustCompile(`(?i)^data:image/(png|jpeg|jpg|gif|webp);base64,[A-Za-z0-9+/=\s]*$`)
)

// cssFunctions are the only functions an attribute may call: colours,
// transforms and url(#local). Anything else (image-set, cross-fade,
// element, an escaped u\72l…) is refused rather than understood.
var cssFunctions = map[string]bool{
	"url": true, "rgb": true, "rgba": true, "hsl": true, "hsla": true, "matrix": true, "translate": true,
	"scale": true, "rotate": true, "skewx": true, "skewy": true,
}

// ErrNotSVG means the bytes do not parse as an SVG document.
var ErrNotSVG = errors.New("not an SVG document")

// safeCSS allows only url(#local) references and allow-listed functions,
// and none of the script vectors. CSS escapes (\69mport, u\72l), comments
// and at-rules are refused outright: a value that needs them is not a logo's.
func safeCSS(s string) bool {
	if dangerousCSS.MatchString(s) {
		return false
	}
	for _, m := range cssFunction.FindAllStringSubmatch(s, -1) {
		if !cssFunctions[strings.ToLower(m[1])] {
			return false
		}
	}
	for _, m := range cssURL.FindAllStringSubmatch(s, -1) {
		if !strings.HasPrefix(m[1], "#") {
			return false
		}
	}
	return true
}

func keepAttr(elem string, a xml.Attr) bool {
	local := strings.ToLower(a.Name.Local)
	space := strings.ToLower(a.Name.Space)
	v := strings.TrimSpace(a.Value)
	switch {
	case space == "xmlns":
		return local == "xlink"
	case space == "" && local == "xmlns":
		return true
	case strings.HasPrefix(local, "on"):
		return false
	case local == "href" && (space == "" || space == "xlink"):
		return strings.HasPrefix(v, "#") || (elem == "image" && dataImage.MatchString(v))
	case space != "" && space != "xml":
		return false
	case strings.Contains(strings.ToLower(v), "javascript:"):
		return false
	case local == "style" && strings.Contains(strings.ToLower(v), "url"):
		return false // a style attribute never needs a reference
	}
	return safeCSS(v)
}

func attrEscape(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

func qname(n xml.Name) string {
	if n.Space != "" {
		return n.Space + ":" + n.Local
	}
	return n.Local
}

// SanitizeSVG rebuilds data keeping only allow-listed SVG elements and
// attributes. It fails with ErrNotSVG when the root is not <svg>.
func SanitizeSVG(data []byte) ([]byte, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	dec.Entity = map[string]string{}
	var out bytes.Buffer
	depth, skip := 0, 0 // skip > 0: inside a dropped element, counting its depth
	sawRoot := false
	for {
		tok, err := dec.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNotSVG, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name := strings.ToLower(t.Name.Local)
			if !sawRoot {
				if name != "svg" || (t.Name.Space != "" && t.Name.Space != "svg") {
					return nil, ErrNotSVG
				}
				sawRoot = true
			} else if depth == 0 {
				return nil, fmt.Errorf("%w: content after the root element", ErrNotSVG)
			}
			depth++
			if skip > 0 || !svgElements[name] || (t.Name.Space != "" && t.Name.Space != "svg") {
				skip++
				continue
			}
			out.WriteString("<" + t.Name.Local)
			hasNS := false
			for _, a := range t.Attr {
				if !keepAttr(name, a) {
					continue
				}
				if a.Name.Space == "" && a.Name.Local == "xmlns" {
					hasNS = true
					a.Value = "http://www.w3.org/2000/svg"
				}
				out.WriteString(" " + qname(a.Name) + `="` + attrEscape(a.Value) + `"`)
			}
			if depth == 1 && !hasNS {
				out.WriteString(` xmlns="http://www.w3.org/2000/svg"`)
			}
			out.WriteString(">")
		case xml.EndElement:
			depth--
			if skip > 0 {
				skip--
				continue
			}
			out.WriteString("</" + t.Name.Local + ">")
		case xml.CharData:
			if skip > 0 || depth == 0 {
				continue
			}
			_ = xml.EscapeText(&out, t)
		}
		// Comments, processing instructions and directives (DOCTYPE with its
		// entity declarations) are dropped.
	}
	if !sawRoot || depth != 0 {
		return nil, ErrNotSVG
	}
	return out.Bytes(), nil
}

// LooksLikeSVG is a cheap check before parsing: XML or <svg at the start.
func LooksLikeSVG(data []byte) bool {
	head := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), " \t\r\n")
	return bytes.HasPrefix(head, []byte("<?xml")) || bytes.HasPrefix(head, []byte("<svg")) ||
		bytes.HasPrefix(head, []byte("<!--")) || bytes.HasPrefix(bytes.ToLower(head), []byte("<!doctype svg"))
}
