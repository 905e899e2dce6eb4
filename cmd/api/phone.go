package main

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
)

// Opening a laptop's Photo3D on a phone (issue 29 item 10). `make run`
// listens on 127.0.0.1 unless the operator opts in to the network with
// HOST=0.0.0.0; it never opens itself to the LAN on its own. What it does is
// say how: the phone hint names the address a phone on the same Wi-Fi can
// open, or the command that makes one work. Share links, embed codes and QR
// codes always name PUBLIC_BASE_URL (publish.LinksFor; issue 50 item 15), so
// links a phone can open need PUBLIC_BASE_URL set to the LAN address, and the
// hint gives the command with it.

// phoneHint is what `bin/api phone-hint` (and so `make run`) prints.
// host and port are HOST and PORT; baseFixed says PUBLIC_BASE_URL is set
// (links name it whatever address is opened); lan are this machine's
// addresses. It returns no lines when there is nothing useful to say.
func phoneHint(host string, port int, baseFixed bool, lan []netip.Addr) []string {
	addr := firstLAN(lan)
	if !addr.IsValid() {
		return nil
	}
	url := "http://" + net.JoinHostPort(addr.String(), strconv.Itoa(port))
	ip, err := netip.ParseAddr(host)
	listensOnLAN := host == "" || (err == nil && (ip.IsUnspecified() || ip == addr))
	command := fmt.Sprintf("`make run HOST=0.0.0.0 PUBLIC_BASE_URL=%s`", url)
	switch {
	case !listensOnLAN:
		return []string{
			fmt.Sprintf("On a phone: the api listens on %s only. To open it from a phone on the same Wi-Fi, run %s", host, command),
			fmt.Sprintf("            and open %s on the phone (share links and QR codes name PUBLIC_BASE_URL).", url),
		}
	case baseFixed:
		return []string{fmt.Sprintf("On a phone on the same Wi-Fi: %s (share links and QR codes name PUBLIC_BASE_URL)", url)}
	default:
		return []string{
			fmt.Sprintf("On a phone on the same Wi-Fi: open %s. Share links and QR codes name PUBLIC_BASE_URL (http://localhost:%d),", url, port),
			fmt.Sprintf("            which a phone cannot open: run %s for links a phone opens too.", command),
		}
	}
}

// firstLAN is the private unicast address of lan a phone on the same
// network most likely reaches: home and office Wi-Fi (192.168/16, then
// 10/8) before 172.16/12, where container bridges live, and IPv4 before a
// unique-local IPv6 address.
func firstLAN(lan []netip.Addr) netip.Addr {
	rank := func(a netip.Addr) int {
		switch {
		case !a.IsPrivate() || a.IsLoopback() || a.IsLinkLocalUnicast():
			return 0
		case netip.MustParsePrefix("192.168.0.0/16").Contains(a):
			return 4
		case netip.MustParsePrefix("10.0.0.0/8").Contains(a):
			return 3
		case a.Is4():
			return 2
		default:
			return 1
		}
	}
	var best netip.Addr
	for _, a := range lan {
		a = a.Unmap()
		if r := rank(a); r > 0 && (!best.IsValid() || r > rank(best)) {
			best = a
		}
	}
	return best
}

// interfaceAddrs lists this machine's interface addresses.
func interfaceAddrs() []netip.Addr {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	out := make([]netip.Addr, 0, len(addrs))
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil {
			out = append(out, p.Addr())
		}
	}
	return out
}
