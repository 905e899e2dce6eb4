package publish

import (
	"context"
	"net/http"
	"regexp"
	"strings"
)

// Links on the request's host (issue 29 item 10). With PUBLIC_BASE_URL set,
// every link, embed code and QR code names it. Without it (a laptop running
// `make run`), the merchant who opened the app at http://192.168.1.20:8080
// needs links and QR codes a phone on the same Wi-Fi can open, not
// http://localhost:8080. So the HTTP layer puts the request's own base URL
// into the context (WithBaseURL) and the links are computed from it per
// request; nothing derived from a Host header is ever stored (publications
// keep slugs, not URLs) or shown to anyone but that request's sender.

type baseURLKey struct{}

// WithBaseURL returns ctx carrying the base URL links are built on for this
// request (see RequestBaseURL).
func WithBaseURL(ctx context.Context, base string) context.Context {
	return context.WithValue(ctx, baseURLKey{}, base)
}

// baseURLFrom is the request's base URL, or fallback (PUBLIC_BASE_URL's) when
// the request carries none.
func baseURLFrom(ctx context.Context, fallback string) string {
	if b, ok := ctx.Value(baseURLKey{}).(string); ok && b != "" {
		return b
	}
	return fallback
}

// safeHost is the only Host form links are built on: a DNS name or an IPv4
// address, or a bracketed IPv6 address, with an optional port. Anything else
// (quotes, slashes, user info, spaces, markup) falls back to the configured base.
var safeHost = regexp.MustCompile(`^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}))*|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?$`)

// RequestBaseURL is the base URL the request was made to (scheme and Host),
// when its Host has a safe form (ok=false otherwise). The scheme is https
// only for a TLS connection: this is for servers without PUBLIC_BASE_URL,
// which are not behind a TLS-terminating proxy.
func RequestBaseURL(r *http.Request) (string, bool) {
	host := r.Host
	if len(host) == 0 || len(host) > 260 || !safeHost.MatchString(host) {
		return "", false
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + strings.ToLower(host), true
}

// BaseURLFromRequest is middleware for servers without PUBLIC_BASE_URL: each
// request's links are built on the host it was made to (RequestBaseURL).
func BaseURLFromRequest(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if base, ok := RequestBaseURL(r); ok {
			r = r.WithContext(WithBaseURL(r.Context(), base))
		}
		next.ServeHTTP(w, r)
	})
}
