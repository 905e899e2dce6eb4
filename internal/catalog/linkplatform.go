package catalog

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// Store platform detection (spec §3, §5): a purchase link's host names the
// store it sells on, shown as a chip with the store's label and accent
// colour. The same rule table exists in TypeScript
// (web/src/entities/product/link-platform.ts); both test suites run the
// shared vectors in web/src/entities/product/link-platform-vectors.json, so
// the chip the configurator shows is the chip the server answers.
//
// To keep the two languages' answers identical, parsing is deliberately
// narrow: the URL parser only validates; the host is checked against one
// ASCII pattern and the path is cut from the raw text, not re-encoded.

// LinkPlatform is the verdict for one URL: {key, label, accent, shortUrl}.
type LinkPlatform struct {
	Key      string `json:"key"`
	Label    string `json:"label"`
	Accent   string `json:"accent"`
	ShortURL string `json:"shortUrl"`
}

// GenericPlatformKey is the key of a link on a store we do not know; its
// label is the host.
const (
	GenericPlatformKey    = "link"
	GenericPlatformAccent = "#64748B"
)

// platformRule: a host matches a domain when it equals it or is a subdomain
// of it (m.amazon.in, dl.flipkart.com, shop.myshopify.com). pathSegments,
// when set, additionally requires one path segment among them (Facebook is a
// shop only on its shop and marketplace pages).
type platformRule struct {
	key, label, accent string
	domains            []string
	pathSegments       []string
}

// platformRules is the one rule table, first match wins.
var platformRules = []platformRule{
	{key: "amazon", label: "Amazon", accent: "#FF9900", domains: []string{
		"amazon.com", "amazon.in", "amazon.co.uk", "amazon.de", "amazon.fr", "amazon.it", "amazon.es", "amazon.ca",
		"amazon.com.au", "amazon.co.jp", "amazon.com.br", "amazon.com.mx", "amazon.nl", "amazon.se", "amazon.pl",
		"amazon.sg", "amazon.ae", "amazon.sa", "amazon.com.tr", "amazon.eg", "amzn.to", "amzn.in", "amzn.eu", "a.co"}},
	{key: "flipkart", label: "Flipkart", accent: "#2874F0", domains: []string{"flipkart.com", "fkrt.it"}},
	{key: "facebook", label: "Facebook Shop", accent: "#1877F2", domains: []string{"facebook.com", "fb.com"},
		pathSegments: []string{"shop", "marketplace"}},
	{key: "instagram", label: "Instagram Shop", accent: "#E1306C", domains: []string{"instagram.com", "instagr.am"}},
	{key: "etsy", label: "Etsy", accent: "#F1641E", domains: []string{"etsy.com", "etsy.me"}},
	{key: "ebay", label: "eBay", accent: "#E53238", domains: []string{
		"ebay.com", "ebay.co.uk", "ebay.de", "ebay.in", "ebay.com.au", "ebay.ca", "ebay.fr", "ebay.it", "ebay.es", "ebay.us"}},
	{key: "shopify", label: "Shopify Store", accent: "#95BF47", domains: []string{"myshopify.com", "shop.app"}},
	{key: "walmart", label: "Walmart", accent: "#0071CE", domains: []string{"walmart.com", "walmart.ca", "walmart.com.mx"}},
	{key: "target", label: "Target", accent: "#CC0000", domains: []string{"target.com"}},
	{key: "myntra", label: "Myntra", accent: "#FF3F6C", domains: []string{"myntra.com", "myntr.it"}},
	{key: "meesho", label: "Meesho", accent: "#F43397", domains: []string{"meesho.com", "msho.in"}},
}

var (
	schemePattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://`)
	hostPattern   = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$`)
	// Whitespace, control characters and backslashes are read differently by
	// browsers and Go; a link holding them gets no chip.
	unsafeChars = regexp.MustCompile(`[\x00-\x20\x7f\\]`)
)

// NormalizeLinkURL trims the text and prepends https:// when it has no
// scheme (spec §5).
func NormalizeLinkURL(raw string) string {
	s := strings.TrimSpace(raw)
	if s != "" && !schemePattern.MatchString(s) {
		s = "https://" + s
	}
	return s
}

// DetectPlatform returns the store of a link, a generic verdict labelled
// with the host for other sites, or nil when the URL cannot be read (no
// chip): empty, not http(s), credentials in it, or a host that is not a
// plain ASCII domain name.
func DetectPlatform(raw string) *LinkPlatform {
	s := NormalizeLinkURL(raw)
	if s == "" || unsafeChars.MatchString(s) {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil || u.Opaque != "" {
		return nil
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n > 65535 {
			return nil
		}
	}
	host := strings.ToLower(u.Hostname())
	if !hostPattern.MatchString(host) || strings.Contains(host, "xn--") {
		return nil
	}
	host = strings.TrimPrefix(host, "www.")
	short := host + rawPath(s)
	for _, r := range platformRules {
		if r.matches(host, rawPath(s)) {
			return &LinkPlatform{Key: r.key, Label: r.label, Accent: r.accent, ShortURL: short}
		}
	}
	return &LinkPlatform{Key: GenericPlatformKey, Label: host, Accent: GenericPlatformAccent, ShortURL: short}
}

// rawPath is the path as typed: after scheme://authority, before ? or #;
// a lone "/" is dropped so "amazon.in/" and "amazon.in" read the same.
func rawPath(s string) string {
	rest := s[strings.Index(s, "://")+3:]
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[i:]
	} else {
		rest = ""
	}
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest = rest[:i]
	}
	if rest == "/" {
		return ""
	}
	return rest
}

func (r platformRule) matches(host, path string) bool {
	hostOK := false
	for _, d := range r.domains {
		if host == d || strings.HasSuffix(host, "."+d) {
			hostOK = true
			break
		}
	}
	if !hostOK || len(r.pathSegments) == 0 {
		return hostOK
	}
	for _, seg := range strings.Split(strings.ToLower(path), "/") {
		for _, want := range r.pathSegments {
			if seg == want {
				return true
			}
		}
	}
	return false
}
