package webhook

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/fault"
)

// specialPurpose is one address per block of the IANA IPv4 and IPv6
// special-purpose registries (and the cloud metadata addresses), each of
// which a webhook must never call, with the class the delivery log names.
var specialPurpose = []struct{ ip, class string }{
	{"0.0.0.0", "unspecified"},
	{"0.1.2.3", "this-network"},
	{"10.1.2.3", "private"},
	{"100.64.0.1", "shared (carrier-grade NAT)"},
	{"100.100.100.200", "shared (carrier-grade NAT)"}, // Alibaba Cloud metadata
	{"127.0.0.1", "loopback"},
	{"127.255.255.254", "loopback"},
	{"169.254.169.254", "link-local"}, // AWS, GCP, Azure IMDS
	{"172.16.0.1", "private"},
	{"172.31.255.255", "private"},
	{"192.0.0.9", "reserved"},
	{"192.0.0.170", "reserved"}, // NAT64 discovery
	{"192.0.2.1", "documentation"},
	{"192.31.196.1", "reserved"},
	{"192.52.193.1", "reserved"},
	{"192.88.99.1", "reserved"},
	{"192.168.1.1", "private"},
	{"192.175.48.1", "reserved"},
	{"198.18.0.1", "benchmarking"},
	{"198.19.255.255", "benchmarking"},
	{"198.51.100.1", "documentation"},
	{"203.0.113.7", "documentation"},
	{"224.0.0.1", "multicast"},
	{"239.255.255.250", "multicast"},
	{"240.0.0.1", "reserved"},
	{"255.255.255.255", "reserved"},
	{"168.63.129.16", "cloud metadata"}, // Azure wire server
	{"::", "unspecified"},
	{"::1", "loopback"},
	{"::7f00:1", "reserved (not global unicast)"},        // IPv4-compatible ::/96 (127.0.0.1)
	{"::ffff:127.0.0.1", "loopback"},                     // IPv4-mapped: judged by its IPv4
	{"::ffff:0:7f00:1", "reserved (not global unicast)"}, // IPv4-translated ::ffff:0:0:0/96
	{"64:ff9b::7f00:1", "reserved (not global unicast)"}, // NAT64 to 127.0.0.1
	{"64:ff9b:1::a00:1", "reserved (not global unicast)"},
	{"100::1", "reserved (not global unicast)"}, // discard-only
	{"2001::1", "Teredo (embeds an IPv4 address)"},
	{"2001:0:4136:e378:8000:63bf:80ff:fffe", "Teredo (embeds an IPv4 address)"},
	{"2001:2::1", "reserved"},  // benchmarking
	{"2001:10::1", "reserved"}, // ORCHID
	{"2001:20::1", "reserved"}, // ORCHIDv2
	{"2001:db8::1", "documentation"},
	{"2002:7f00:1::1", "6to4 (embeds an IPv4 address)"},
	{"2620:4f:8000::1", "reserved"},
	{"3fff::1", "documentation"},
	{"5f00::1", "reserved (not global unicast)"}, // SRv6 SIDs
	{"fc00::1", "private"},
	{"fd00:ec2::254", "private"}, // AWS IMDS over IPv6
	{"fe80::1", "link-local"},
	{"fec0::1", "site-local"},
	{"ff02::1", "multicast"},
}

// globalUnicast are ordinary public addresses: allowed.
var globalUnicast = []string{"8.8.8.8", "1.1.1.1", "93.184.215.14", "100.63.255.255", "100.128.0.0", "172.32.0.1",
	"192.0.1.1", "198.20.0.1", "223.255.255.254", "2606:4700:4700::1111", "2a00:1450:4001:81c::200e", "2001:200::1", "2003::1"}

// Issue 28 item 10: only global unicast addresses, per the IANA
// special-purpose registries, at registration and at delivery (after DNS,
// on the address actually dialled).
func TestSecurityWebhookAddressesAreGlobalUnicastOnly(t *testing.T) {
	t.Parallel()
	resolve := map[string]netip.Addr{}
	for _, c := range specialPurpose {
		ip := netip.MustParseAddr(c.ip)
		require.Equal(t, c.class, addressClass(ip), c.ip)
		// Registration: the literal is refused (canonical text, so the
		// refusal is about the address, not its spelling).
		host := ip.String()
		if ip.Is6() && !ip.Is4In6() {
			host = "[" + host + "]"
		}
		_, err := checkURL("https://"+host+"/hook", false)
		fe, ok := fault.As(err)
		require.True(t, ok, "%s: %v", c.ip, err)
		require.Equal(t, "invalid_webhook_url", fe.Code, c.ip)
		// Delivery: a name resolving to it is refused before connecting.
		name := "h" + strings.NewReplacer(".", "-", ":", "-").Replace(c.ip) + ".shop.example"
		resolve[name] = ip
	}
	for _, s := range globalUnicast {
		ip := netip.MustParseAddr(s)
		require.Empty(t, addressClass(ip), s)
		host := s
		if ip.Is6() {
			host = "[" + s + "]"
		}
		u, err := checkURL("https://"+host+"/hook", false)
		require.NoError(t, err, s)
		require.Equal(t, "https://"+host+"/hook", u)
		require.NoError(t, Guard{}.Check("", ip), s)
	}

	g := Guard{Resolve: func(_ context.Context, host string) ([]netip.Addr, error) {
		if ip, ok := resolve[host]; ok {
			return []netip.Addr{ip}, nil
		}
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}}
	for name, ip := range resolve {
		_, err := g.DialContext(context.Background(), "tcp", net.JoinHostPort(name, "443"))
		require.ErrorIs(t, err, ErrForbiddenAddress, "%s → %s", name, ip)
		require.ErrorContains(t, err, name+" resolves to "+ip.String(), name)
	}
	// The socket's own peer is checked too (the last line, in Control).
	require.ErrorIs(t, g.control("tcp6", "[2002:7f00:1::1]:443", nil), ErrForbiddenAddress)
	require.ErrorIs(t, g.control("tcp4", "168.63.129.16:80", nil), ErrForbiddenAddress)
	require.NoError(t, g.control("tcp4", "8.8.8.8:443", nil))
}

// Issue 28 item 10: hosts that are numbers in disguise (what inet_aton
// reads as 127.0.0.1) and non-canonical literals are refused at
// registration, and never handed to a resolver at delivery.
func TestSecurityWebhookNumericHostsAreRefused(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	var resolved atomic.Int32
	g := Guard{Resolve: func(context.Context, string) ([]netip.Addr, error) {
		resolved.Add(1)
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil // what a libc resolver answers
	}}
	for _, host := range []string{
		"2130706433",                    // 127.0.0.1 as one decimal number
		"0x7f000001",                    // … as hex
		"0x7f.1",                        // hex and a short form
		"127.1",                         // short form
		"127.0.1",                       // short form
		"0177.0.0.1",                    // octal
		"0177.0.0.01",                   // octal
		"127.000.000.001",               // leading zeros
		"0x7F.0x0.0x0.0x1",              // hex per byte
		"017700000001",                  // one octal number
		"1.2.3.4.",                      // trailing dot
		"4294967295",                    // 255.255.255.255
		"shop.example.2130706433",       // a numeric last label
		"[::ffff:127.0.0.1]",            // IPv4-mapped, spelled as IPv6
		"[::ffff:8.8.8.8]",              // … even of a public address
		"[0:0:0:0:0:0:0:1]",             // uncompressed ::1
		"[2606:4700:4700:0:0:0:0:1111]", // uncompressed
		"[fe80::1%25eth0]",              // a zone
	} {
		_, err := checkURL("https://"+host+"/hook", false)
		fe, ok := fault.As(err)
		require.True(t, ok, "%s: %v", host, err)
		require.Equal(t, "invalid_webhook_url", fe.Code, host)

		resp, err := g.Client().Post("http://"+host+":"+port+"/", "application/json", strings.NewReader("{}"))
		if resp != nil {
			resp.Body.Close()
		}
		require.ErrorIs(t, err, ErrForbiddenAddress, host)
	}
	require.Zero(t, resolved.Load(), "numeric hosts never reach a resolver")
	require.Zero(t, hits.Load(), "nothing reached the loopback listener")

	// Ordinary names (digits inside labels are fine) pass registration.
	for _, host := range []string{"shop.example", "123.shop.example", "hooks-1.example.co.uk", "xn--bcher-kva.example", "0x7f.example"} {
		_, err := checkURL("https://"+host+"/hook", false)
		require.NoError(t, err, host)
	}
}
