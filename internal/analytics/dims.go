package analytics

import (
	"bufio"
	_ "embed"
	"net/url"
	"strings"
	"sync"
)

// Devices.
const (
	DeviceMobile  = "mobile"
	DeviceTablet  = "tablet"
	DeviceDesktop = "desktop"
)

// Device classifies a user agent as mobile, tablet or desktop. Tablets are
// checked first: iPads and Android tablets (Android without "Mobile") also
// match the phone markers otherwise.
func Device(ua string) string {
	l := strings.ToLower(ua)
	switch {
	case strings.Contains(l, "ipad"), strings.Contains(l, "tablet"), strings.Contains(l, "kindle"), strings.Contains(l, "silk/"),
		strings.Contains(l, "android") && !strings.Contains(l, "mobile"):
		return DeviceTablet
	case strings.Contains(l, "mobi"), strings.Contains(l, "iphone"), strings.Contains(l, "ipod"), strings.Contains(l, "android"),
		strings.Contains(l, "windows phone"):
		return DeviceMobile
	}
	return DeviceDesktop
}

// SourceDirect is the source of a visit with no referrer, utm_source or
// embedding site.
const SourceDirect = "direct"

// Source names where a shopper came from: utm_source when the link carried
// one, else the embedding site (embed pages) or the referring site's host.
// Our own host is not a source (a reload or internal link is direct). The
// result is lower-case and at most 64 characters.
func Source(utm, referrer, ownHost string) string {
	if s := cleanLabel(utm); s != "" {
		return s
	}
	if referrer == "" {
		return SourceDirect
	}
	u, err := url.Parse(referrer)
	if err != nil || u.Hostname() == "" {
		return SourceDirect
	}
	h := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	if h == strings.TrimPrefix(strings.ToLower(ownHost), "www.") {
		return SourceDirect
	}
	return cleanLabel(h)
}

// cleanLabel keeps a short, printable label: lower-case letters, digits and
// . _ - only, at most 64 characters.
func cleanLabel(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= 64 {
			break
		}
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// The IANA zone table shipped by tzdata (zone.tab: one country per zone) and
// its backward links (old names such as Asia/Calcutta), embedded so the
// mapping does not depend on the host's /usr/share/zoneinfo.
var (
	//go:embed zone.tab
	zoneTab string
	//go:embed zonelinks.tab
	zoneLinks string

	zoneCountry = sync.OnceValue(func() map[string]string {
		m := map[string]string{}
		sc := bufio.NewScanner(strings.NewReader(zoneTab))
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "#") {
				continue
			}
			f := strings.Split(line, "\t")
			if len(f) >= 3 {
				m[f[2]] = f[0]
			}
		}
		sc = bufio.NewScanner(strings.NewReader(zoneLinks))
		for sc.Scan() {
			f := strings.Split(sc.Text(), "\t")
			if len(f) == 2 {
				if c, ok := m[f[0]]; ok {
					m[f[1]] = c
				}
			}
		}
		return m
	})
)

// RegionUnknown is the region of a shopper we could not place.
const RegionUnknown = "ZZ"

// CountryOfZone maps an IANA time zone name (the browser's
// Intl.DateTimeFormat().resolvedOptions().timeZone) to its ISO 3166 country
// code, or RegionUnknown.
func CountryOfZone(tz string) string {
	if c, ok := zoneCountry()[tz]; ok {
		return c
	}
	return RegionUnknown
}

// Region is the shopper's country: the trusted proxy's country header when
// one is configured and set, else the browser's time zone mapped with the
// IANA table.
func Region(proxyCountry, tz string) string {
	c := strings.ToUpper(strings.TrimSpace(proxyCountry))
	if len(c) == 2 && c[0] >= 'A' && c[0] <= 'Z' && c[1] >= 'A' && c[1] <= 'Z' && c != "XX" && c != "T1" {
		return c
	}
	return CountryOfZone(tz)
}
