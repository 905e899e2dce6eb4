package publish

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// TestIsCrawler: crawlers and unfurlers in any letter case are recognised,
// browsers are not.
func TestIsCrawler(t *testing.T) {
	t.Parallel()
	crawlers := []string{
		"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
		"facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
		"Twitterbot/1.0", "WhatsApp/2.23.20.0", "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120 Safari/537.36 Google-InspectionTool/1.0",
		"Mozilla/5.0 (compatible; Yahoo! SLURP; http://help.yahoo.com/help/us/ysearch/slurp)",
		"ia_archiver (+http://www.alexa.com/site/help/webmasters; crawler@alexa.com)",
		"Mozilla/5.0 (Linux) Chrome/140 " + strings.Repeat("x", 600) + " PINTEREST/0.2", // longer than the stack buffer
	}
	for _, ua := range crawlers {
		if !IsCrawler(ua) {
			t.Errorf("IsCrawler(%.60q) = false, want true", ua)
		}
	}
	browsers := []string{
		"", "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Mobile Safari/537.36",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1",
		"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
		"Mozilla/5.0 (Linux) Chrome/140 " + strings.Repeat("x", 600),
	}
	for _, ua := range browsers {
		if IsCrawler(ua) {
			t.Errorf("IsCrawler(%.60q) = true, want false", ua)
		}
	}
}

// TestValidSlug: the shape check of page slugs (^[A-Za-z0-9_-]{16,64}$).
func TestValidSlug(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"A6uQniXE3lRwffpB":       true,
		"abc_DEF-0123456789":     true,
		strings.Repeat("a", 64):  true,
		strings.Repeat("a", 15):  false,
		strings.Repeat("a", 65):  false,
		"":                       false,
		"A6uQniXE3lRwffp.":       false,
		"A6uQniXE3lRwffp/":       false,
		"A6uQniXE3lRwffpB%2e":    false,
		"A6uQniXE3lRwffpé":       false,
		"A6uQniXE3lRwffp B":      false,
		"A6uQniXE3lRwffpB\n":     false,
		"../../A6uQniXE3lRwffpB": false,
	} {
		if validSlug(s) != want {
			t.Errorf("validSlug(%q) = %v, want %v", s, !want, want)
		}
	}
}

// TestPrefetchIsNoView: speculative loads, in any of the headers browsers
// use and in any letter case, are not views; other requests are.
func TestPrefetchIsNoView(t *testing.T) {
	t.Parallel()
	for h, want := range map[[2]string]bool{
		{"Sec-Purpose", "prefetch;prerender"}: false,
		{"Purpose", "Prefetch"}:               false,
		{"X-Purpose", "preview"}:              true,
		{"X-Moz", "prefetch"}:                 false,
		{"Accept", "text/html"}:               true,
	} {
		r := httptest.NewRequest("GET", "/v/A6uQniXE3lRwffpB", nil)
		r.Header.Set("User-Agent", "Mozilla/5.0 (Linux; Android 14) Chrome/140.0 Mobile")
		r.Header.Set(h[0], h[1])
		if counts(r) != want {
			t.Errorf("%s: %s counts = %v, want %v", h[0], h[1], !want, want)
		}
	}
}
