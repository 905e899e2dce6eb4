package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// ErrForbiddenAddress is wrapped by every refusal of the outbound guard, so
// the delivery log can say plainly why nothing was sent.
var ErrForbiddenAddress = errors.New("address not allowed")

// extra ranges that netip's predicates do not cover but that are never a
// merchant's public server: carrier-grade NAT (often the cloud's own
// metadata/peering side), "this network", benchmarking, reserved, and NAT64
// (whose embedded IPv4 could point anywhere).
var forbiddenPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
}

// addressClass names why ip may not be called, or "" when it is public. The
// names end up in the delivery log.
func addressClass(ip netip.Addr) string {
	ip = ip.Unmap()
	switch {
	case !ip.IsValid():
		return "invalid"
	case ip.IsLoopback():
		return "loopback"
	case ip.IsUnspecified():
		return "unspecified"
	case ip.IsPrivate():
		return "private"
	case ip.IsLinkLocalUnicast():
		return "link-local"
	case ip.IsMulticast(), ip.IsLinkLocalMulticast(), ip.IsInterfaceLocalMulticast():
		return "multicast"
	case ip == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "broadcast"
	}
	for _, p := range forbiddenPrefixes {
		if p.Contains(ip) {
			return "reserved"
		}
	}
	return ""
}

// Resolver looks a host name up; tests plug in a map so a name can resolve to
// 127.0.0.1 without touching /etc/hosts.
type Resolver func(ctx context.Context, host string) ([]netip.Addr, error)

// Guard is the outbound dialer of webhook deliveries. It resolves the name
// itself, refuses the whole request if ANY answer is a loopback, private,
// link-local, CGNAT, multicast or otherwise non-public address (so a DNS
// answer that mixes a public and a private address cannot be used to reach
// inside), dials the checked IP — never the name again, which would allow a
// second, different answer (DNS rebinding) — and re-checks the socket's peer
// in Control as a last line.
type Guard struct {
	AllowPrivate bool     // WEBHOOK_ALLOW_PRIVATE: development and tests only
	Resolve      Resolver // nil: the system resolver
}

func (g Guard) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{ip}, nil
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
