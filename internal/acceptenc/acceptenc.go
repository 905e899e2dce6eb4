// Package acceptenc reads the Accept-Encoding request header, for the
// handlers that send bodies compressed ahead of time (the built web assets,
// the cached share pages) and so must negotiate the encoding themselves.
package acceptenc

import (
	"strconv"
	"strings"
)

// Allows reports whether an Accept-Encoding header value allows coding:
// named (or "*") with a q-value above zero. An explicit "coding;q=0" refuses
// it even when "*" would allow it.
func Allows(header, coding string) bool {
	star := false
	for part := range strings.SplitSeq(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.ToLower(strings.TrimSpace(name))
		if name != coding && name != "*" {
			continue
		}
		ok := true
		for param := range strings.SplitSeq(params, ";") {
			k, v, _ := strings.Cut(strings.TrimSpace(param), "=")
			if strings.EqualFold(strings.TrimSpace(k), "q") {
				q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				ok = err == nil && q > 0
			}
		}
		if name == coding {
			return ok
		}
		star = ok
	}
	return star
}
