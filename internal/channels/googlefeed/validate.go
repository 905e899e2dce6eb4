package googlefeed

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// price is "<number> <ISO 4217 code>", e.g. "899.00 INR".
var price = regexp.MustCompile(`^[0-9]+(\.[0-9]{1,2})? [A-Z]{3}$`)

type rssDoc struct {
	XMLName xml.Name   `xml:"rss"`
	Version string     `xml:"version,attr"`
	Attrs   []xml.Attr `xml:",any,attr"`
	Channel struct {
		Title       string    `xml:"title"`
		Link        string    `xml:"link"`
		Description string    `xml:"description"`
		Items       []rssItem `xml:"item"`
	} `xml:"channel"`
}

type rssItem struct {
	Fields []struct {
		XMLName xml.Name
		Value   string `xml:",chardata"`
	} `xml:",any"`
}

// Validate checks a feed against the rules of Google's product data
// specification that apply to what this feed sends, and returns every
// violation (none: a valid feed):
//
//   - RSS 2.0 with the g: namespace bound to Google's URI; a channel with
//     title, link and description;
//   - per item, the required attributes id, title, description, link,
//     image_link, price, availability, and brand (no GTIN/MPN is sent, so
//     brand is required) each once;
//   - id at most 50 characters and unique in the feed; title at most 150;
//     description at most 5000; brand at most 70;
//   - link, image_link and virtual_model_link absolute http(s) URLs of at
//     most 2000 characters; virtual_model_link a .glb or .gltf file;
//   - price "<number> <ISO 4217 code>"; availability one of in_stock,
//     out_of_stock, preorder, backorder; condition new, refurbished or used.
func Validate(feed []byte) []error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	var doc rssDoc
	if err := xml.NewDecoder(bytes.NewReader(feed)).Decode(&doc); err != nil {
		return []error{fmt.Errorf("not XML: %w", err)}
	}
	if doc.Version != "2.0" {
		bad("rss version %q, want 2.0", doc.Version)
	}
	if !slices.ContainsFunc(doc.Attrs, func(a xml.Attr) bool {
		return a.Name.Space == "xmlns" && a.Name.Local == "g" && a.Value == Namespace
	}) {
		bad("the g: prefix is not bound to %s", Namespace)
	}
	if doc.Channel.Title == "" || doc.Channel.Link == "" || doc.Channel.Description == "" {
		bad("channel needs title, link and description")
	}
	ids := map[string]bool{}
	for i, it := range doc.Channel.Items {
		f := map[string][]string{}
		for _, x := range it.Fields {
			if x.XMLName.Space != Namespace {
				bad("item %d: %s is not in Google's namespace", i, x.XMLName.Local)
				continue
			}
			f[x.XMLName.Local] = append(f[x.XMLName.Local], x.Value)
		}
		one := func(name string, required bool) string {
			switch len(f[name]) {
			case 0:
				if required {
					bad("item %d: %s is required", i, name)
				}
				return ""
			case 1:
				return f[name][0]
			}
			bad("item %d: %s given %d times", i, name, len(f[name]))
			return f[name][0]
		}
		maxLen := func(name, v string, n int) {
			if utf8.RuneCountInString(v) > n {
				bad("item %d: %s has %d characters, at most %d", i, name, utf8.RuneCountInString(v), n)
			}
			if strings.TrimSpace(v) == "" && v != "" {
				bad("item %d: %s is blank", i, name)
			}
		}
		link := func(name, v string) {
			if v == "" {
				return
			}
			u, err := url.Parse(v)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				bad("item %d: %s %q is not an absolute http(s) URL", i, name, v)
			}
			maxLen(name, v, MaxURL)
		}
		id := one("id", true)
		maxLen("id", id, MaxID)
		if ids[id] {
			bad("item %d: id %q is not unique", i, id)
		}
		ids[id] = true
		maxLen("title", one("title", true), MaxTitle)
		maxLen("description", one("description", true), MaxDescription)
		maxLen("brand", one("brand", true), MaxBrand)
		link("link", one("link", true))
		link("image_link", one("image_link", true))
		if m := one("virtual_model_link", false); m != "" {
			link("virtual_model_link", m)
			if u, err := url.Parse(m); err == nil && !strings.HasSuffix(u.Path, ".glb") && !strings.HasSuffix(u.Path, ".gltf") {
				bad("item %d: virtual_model_link %q is not a GLB or glTF file", i, m)
			}
		}
		if p := one("price", true); p != "" && !price.MatchString(p) {
			bad("item %d: price %q is not \"<number> <ISO 4217 code>\"", i, p)
		}
		if a := one("availability", true); a != "" && !slices.Contains(Availability, a) {
			bad("item %d: availability %q is not one of %v", i, a, Availability)
		}
		if c := one("condition", false); c != "" && c != "new" && c != "refurbished" && c != "used" {
			bad("item %d: condition %q", i, c)
		}
	}
	return errs
}
