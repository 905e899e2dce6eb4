package main

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func addrs(s ...string) []netip.Addr {
	out := make([]netip.Addr, len(s))
	for i, a := range s {
		out[i] = netip.MustParseAddr(a)
	}
	return out
}

// Issue 29 item 10: `make run` says which address to open on a phone, and
// how to let a phone in when the api listens on loopback only. Links name
// PUBLIC_BASE_URL whatever address is opened (issue 50 item 15), so the
// command it gives sets PUBLIC_BASE_URL to the LAN address too.
func TestPhoneHint(t *testing.T) {
	t.Parallel()
	lan := addrs("127.0.0.1", "::1", "fe80::1", "172.17.0.1", "192.168.1.20")

	// The default HOST (loopback): the api stays there; the hint says how to opt in.
	got := strings.Join(phoneHint("127.0.0.1", 8080, false, lan), "\n")
	require.Contains(t, got, "make run HOST=0.0.0.0 PUBLIC_BASE_URL=http://192.168.1.20:8080") // the Wi-Fi address, not the container bridge
	require.Contains(t, got, "open http://192.168.1.20:8080 on the phone")

	// Opted in without PUBLIC_BASE_URL: the address to open, and that its links need PUBLIC_BASE_URL.
	got = strings.Join(phoneHint("0.0.0.0", 8080, false, addrs("10.0.0.7")), "\n")
	require.Contains(t, got, "open http://10.0.0.7:8080")
	require.Contains(t, got, "name PUBLIC_BASE_URL (http://localhost:8080)")
	require.Contains(t, got, "PUBLIC_BASE_URL=http://10.0.0.7:8080")
	got = strings.Join(phoneHint("10.0.0.7", 9000, true, addrs("10.0.0.7")), "\n")
	require.Contains(t, got, "http://10.0.0.7:9000")
	require.Contains(t, got, "PUBLIC_BASE_URL")
	require.NotContains(t, got, "make run")

	// IPv6-only LAN: bracketed.
	require.Contains(t, strings.Join(phoneHint("::", 8080, false, addrs("fd00::5")), ""), "http://[fd00::5]:8080")
	// No LAN address at all: nothing to say.
	require.Empty(t, phoneHint("0.0.0.0", 8080, false, addrs("127.0.0.1", "8.8.8.8")))
}
