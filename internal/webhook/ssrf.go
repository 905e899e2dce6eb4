package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// ErrForbiddenAddress is wrapped by every refusal of the outbound guard, so
// the delivery log can say plainly why nothing was sent.
var ErrForbiddenAddress = errors.New("address not allowed")

// Webhooks may call only global unicast addresses. The rules follow the
// IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 and its
// updates): IPv6 must lie in 2000::/3, the global unicast block, and nothing
// in the lists below — whatever the registry marks as special, whether it is
// "globally reachable" or not (a merchant's server is never an anycast
// relay, a documentation range or a translator). Addresses that embed an
// IPv4 address (IPv4-compatible ::/96, NAT64 64:ff9b::/96 and
// 64:ff9b:1::/48, 6to4 2002::/16, Teredo 2001::/32) are refused outright:
// the embedded address could be anything, 127.0.0.1 included. An
// IPv4-mapped address (::ffff:0:0/96, what resolvers hand back for A
// records) is judged by the IPv4 address it carries.

// forbiddenV4 are the special-purpose IPv4 blocks (besides what the netip
// predicates name), plus the cloud metadata addresses outside them.
var forbiddenV4 = []struct {
	prefix netip.Prefix
	class  string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "this-network"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared (carrier-grade NAT)"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private"},
	{netip.MustParsePrefix("192.0.0.0/24"), "reserved"}, // IETF protocol assignments (DS-Lite, NAT64 discovery…)
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("192.31.196.0/24"), "reserved"}, // AS112-v4
	{netip.MustParsePrefix("192.52.193.0/24"), "reserved"}, // AMT
	{netip.MustParsePrefix("192.88.99.0/24"), "reserved"},  // deprecated 6to4 relay anycast
	{netip.MustParsePrefix("192.168.0.0/16"), "private"},
	{netip.MustParsePrefix("192.175.48.0/24"), "reserved"}, // AS112 direct delegation
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},            // includes 255.255.255.255, broadcast
	{netip.MustParsePrefix("168.63.129.16/32"), "cloud metadata"}, // Azure's wire server
}

// globalV6 is the only IPv6 block webhooks may call, less forbiddenV6.
var globalV6 = netip.MustParsePrefix("2000::/3")

// forbiddenV6 are the special-purpose blocks inside 2000::/3. Everything
// outside it (::/128, ::1, ::/96, ::ffff:0:0/96 unless unmapped, 64:ff9b::/96,
// 64:ff9b:1::/48, 100::/64, fc00::/7, fe80::/10, fec0::/10, ff00::/8…) is
// refused by not being global unicast.
var forbiddenV6 = []struct {
	prefix netip.Prefix
	class  string
}{
	{netip.MustParsePrefix("2001::/32"), "Teredo (embeds an IPv4 address)"},
	{netip.MustParsePrefix("2001::/23"), "reserved"}, // IETF protocol assignments: benchmarking, ORCHID, AMT, AS112…
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("2002::/16"), "6to4 (embeds an IPv4 address)"},
	{netip.MustParsePrefix("2620:4f:8000::/48"), "reserved"}, // AS112 direct delegation
	{netip.MustParsePrefix("3fff::/20"), "documentation"},
}

// addressClass names why ip may not be called, or "" when it is a global
// unicast address. The names end up in the delivery log.
func addressClass(ip netip.Addr) string {
	ip = ip.Unmap()
	if !ip.IsValid() {
		return "invalid"
	}
	if ip.Is4() {
		if ip.IsUnspecified() {
			return "unspecified"
		}
		for _, f := range forbiddenV4 {
			if f.prefix.Contains(ip) {
				return f.class
			}
		}
		return ""
	}
	switch {
	case ip.IsLoopback():
		return "loopback"
	case ip.IsUnspecified():
		return "unspecified"
	case ip.IsMulticast():
		return "multicast"
	case ip.IsLinkLocalUnicast():
		return "link-local"
	case ip.IsPrivate():
		return "private" // unique local fc00::/7
	case netip.MustParsePrefix("fec0::/10").Contains(ip):
		return "site-local"
	case !globalV6.Contains(ip):
		return "reserved (not global unicast)"
	}
	for _, f := range forbiddenV6 {
		if f.prefix.Contains(ip) {
			return f.class
		}
	}
	return ""
}

// numericHost reports whether host is written as a number rather than a
// name: its last label is all digits or 0x-hex (no top-level domain is
// numeric). Such hosts are IP addresses in some resolver's eyes
// (2130706433, 0x7f.1, 127.1 and 0177.0.0.1 are all 127.0.0.1 to
// inet_aton) while a URL parser sees a name, so a check of the "name" would
// miss what it really points to.
func numericHost(host string) bool {
	host = strings.TrimSuffix(host, ".")
	last := host[strings.LastIndexByte(host, '.')+1:]
	if len(last) > 2 && (last[:2] == "0x" || last[:2] == "0X") {
		last = last[2:]
		return last != "" && strings.Trim(last, "0123456789abcdefABCDEF") == ""
	}
	return last != "" && strings.Trim(last, "0123456789") == ""
}

// canonicalIP parses an IP-literal host and says whether it is written the
// one canonical way (dotted decimal without leading zeros; RFC 5952 IPv6,
// no zone, no IPv4-mapped form). ok is false for hosts that are not IP
// literals at all.
func canonicalIP(host string) (ip netip.Addr, canonical, ok bool) {
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, false, false
	}
	return ip, ip.Zone() == "" && !ip.Is4In6() && strings.EqualFold(ip.String(), host), true
}

// Resolver looks a host name up; tests plug in a map so a name can resolve to
// 127.0.0.1 without touching /etc/hosts.
type Resolver func(ctx context.Context, host string) ([]netip.Addr, error)

// Guard is the outbound dialer of webhook deliveries. It resolves the name
// itself, refuses the whole request if ANY answer is not a global unicast
// address (addressClass: loopback, private, link-local, CGNAT, multicast,
// documentation, translators and every other special-purpose block) (so a DNS
// answer that mixes a public and a private address cannot be used to reach
// inside), dials the checked IP — never the name again, which would allow a
// second, different answer (DNS rebinding) — and re-checks the socket's peer
// in Control as a last line.
type Guard struct {
	AllowPrivate bool     // WEBHOOK_ALLOW_PRIVATE: development and tests only
	Resolve      Resolver // nil: the system resolver
}

func (g Guard) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if ip, canonical, ok := canonicalIP(host); ok {
		if !canonical && !g.AllowPrivate {
			return nil, fmt.Errorf("%w: %s is not a canonically written IP address", ErrForbiddenAddress, host)
		}
		return []netip.Addr{ip}, nil
	}
	if numericHost(host) && !g.AllowPrivate {
		// Never handed to a resolver, which might read it as an address.
		return nil, fmt.Errorf("%w: %s is a number, not a host name", ErrForbiddenAddress, host)
	}
	if g.Resolve != nil {
		return g.Resolve(ctx, host)
	}
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// Check returns an error wrapping ErrForbiddenAddress when ip may not be called.
func (g Guard) Check(host string, ip netip.Addr) error {
	if g.AllowPrivate {
		return nil
	}
	if class := addressClass(ip); class != "" {
		if host != "" && host != ip.String() {
			return fmt.Errorf("%w: %s resolves to %s, a %s address; webhooks only call public internet addresses", ErrForbiddenAddress, host, ip, class)
		}
		return fmt.Errorf("%w: %s is a %s address; webhooks only call public internet addresses", ErrForbiddenAddress, ip, class)
	}
	return nil
}

// DialContext implements http.Transport.DialContext.
func (g Guard) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	ips, err := g.resolve(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", host, err)
	}
	if len(ips) == 0 {
		return nil, fmt.Errorf("resolve %s: no addresses", host)
	}
	for _, ip := range ips {
		if err := g.Check(host, ip); err != nil {
			return nil, err
		}
	}
	d := net.Dialer{Timeout: 5 * time.Second, Control: g.control}
	var last error
	for _, ip := range ips {
		c, err := d.DialContext(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
		if err == nil {
			return c, nil
		}
		last = err
	}
	return nil, last
}

// control re-checks the address the socket is about to connect to.
func (g Guard) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrForbiddenAddress, address)
	}
	return g.Check("", ap.Addr())
}

// Client is the HTTP client deliveries use: the guard's dialer, no proxy from
// the environment (a proxy would do the dialing for us, unchecked), no
// redirects (a 3xx is a failed attempt, so a public endpoint cannot bounce us
// to an internal one), and the 10 s limit of one attempt.
func (g Guard) Client() *http.Client {
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           g.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          20,
		IdleConnTimeout:       30 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 10 * time.Second,
	}
	return &http.Client{
		Transport: tr,
		Timeout:   AttemptTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}
