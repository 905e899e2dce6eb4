package httpapi

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// realClientIP replaces r.RemoteAddr with the client's address when the
// connection comes from a trusted proxy (TRUSTED_PROXIES), so every
// per-address limit and dedupe downstream keys on the shopper or the
// signer-in, not on the ingress that all of them share.
//
// X-Forwarded-For is read right to left: each trusted proxy appends the
// address it saw, so the rightmost hop that is not one of ours is the first
// address nobody we trust could have forged. Everything left of it is
// client-supplied and ignored. From an untrusted peer the header is ignored
// altogether (a client cannot choose its own bucket).
func realClientIP(trusted []netip.Prefix) func(http.Handler) http.Handler {
	isTrusted := func(a netip.Addr) bool {
		a = a.Unmap()
		for _, p := range trusted {
			if p.Contains(a) {
				return true
			}
		}
		return false
	}
	return func(next http.Handler) http.Handler {
		if len(trusted) == 0 {
			return next
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			peer, err := netip.ParseAddrPort(r.RemoteAddr)
			if err != nil || !isTrusted(peer.Addr()) {
				next.ServeHTTP(w, r)
				return
			}
			client := peer.Addr()
			// Walk the hops right to left without joining and splitting the
			// header values: this runs on every share page view behind an
			// ingress.
			values := r.Header.Values("X-Forwarded-For")
		walk:
			for v := len(values) - 1; v >= 0; v-- {
				rest := values[v]
				for rest != "" {
					hop := rest
					if i := strings.LastIndexByte(rest, ','); i >= 0 {
						hop, rest = rest[i+1:], rest[:i]
					} else {
						rest = ""
					}
					a, err := netip.ParseAddr(strings.TrimSpace(hop))
					if err != nil {
						break walk // a garbled hop: stop at the last address we could trust
					}
					client = a.Unmap()
					if !isTrusted(client) {
						break walk
					}
				}
			}
			// A shallow copy, as Request.WithContext makes: only RemoteAddr
			// changes, so the headers need no deep copy.
			r2 := new(http.Request)
			*r2 = *r
			r2.RemoteAddr = net.JoinHostPort(client.String(), "0")
			next.ServeHTTP(w, r2)
		})
	}
}
