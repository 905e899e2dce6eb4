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
			hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
			for i := len(hops) - 1; i >= 0; i-- {
				a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
				if err != nil {
					break // a garbled hop: stop at the last address we could trust
				}
				client = a.Unmap()
				if !isTrusted(client) {
					break
				}
			}
			r2 := r.Clone(r.Context())
			r2.RemoteAddr = net.JoinHostPort(client.String(), "0")
			next.ServeHTTP(w, r2)
		})
	}
}
