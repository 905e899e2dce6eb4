package httpapi

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"
)

// The client address behind trusted proxies: the rightmost hop that is not a
// trusted proxy, across several X-Forwarded-For headers; a garbled hop stops
// the walk at the last address we could trust; untrusted peers' headers are
// ignored.
func TestRealClientIPWalksForwardedForRightToLeft(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("127.0.0.1/32")}
	for _, tc := range []struct {
		name, peer string
		xff        []string
		want       string
	}{
		{"no header: the peer", "127.0.0.1:5000", nil, "127.0.0.1:0"},
		{"one hop", "127.0.0.1:5000", []string{"203.0.113.7"}, "203.0.113.7:0"},
		{"spoofed left hops are skipped", "127.0.0.1:5000", []string{"1.1.1.1, 203.0.113.7"}, "203.0.113.7:0"},
		{"trusted hops are walked past", "127.0.0.1:5000", []string{"198.51.100.2, 10.1.2.3, 10.4.5.6"}, "198.51.100.2:0"},
		{"several headers read as one list", "127.0.0.1:5000", []string{"198.51.100.2", "10.1.2.3"}, "198.51.100.2:0"},
		{"spaces and IPv4-mapped IPv6", "127.0.0.1:5000", []string{" ::ffff:203.0.113.9 ,10.0.0.1"}, "203.0.113.9:0"},
		{"IPv6 client", "127.0.0.1:5000", []string{"2001:db8::1"}, "[2001:db8::1]:0"},
		{"garbled hop stops at the last trusted", "127.0.0.1:5000", []string{"203.0.113.7, garbage, 10.0.0.9"}, "10.0.0.9:0"},
		{"untrusted peer: header ignored", "192.0.2.1:4000", []string{"203.0.113.7"}, "192.0.2.1:4000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got string
			h := realClientIP(trusted)(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { got = r.RemoteAddr }))
			r := httptest.NewRequest(http.MethodGet, "/v/x", nil)
			r.RemoteAddr = tc.peer
			for _, v := range tc.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			h.ServeHTTP(httptest.NewRecorder(), r)
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.peer, r.RemoteAddr, "the caller's request is not modified")
		})
	}
}
