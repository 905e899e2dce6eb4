package publish

import (
	"context"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/fault"
)

// MaxEmbedOrigins bounds the list a publication may name (it becomes one
// response header on every embed view).
const MaxEmbedOrigins = 20

// hostPattern is a DNS name (or IPv4 address) of letters, digits, hyphens
// and dots, optionally behind "*." for any subdomain: nothing that could
// end the CSP source expression or the header (";", ",", spaces, quotes).
var hostPattern = regexp.MustCompile(`^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$`)

func errEmbedOrigin(origin, why string) error {
	return fault.Invalidf("invalid_embed_origin", "%q is not a site origin: %s Use https://shop.example.com (an optional :port, or *.example.com for every subdomain).", origin, why)
}

// NormalizeEmbedOrigins checks the sites a merchant allows to embed a
// publication and returns them as CSP frame-ancestors sources: each is
// http(s)://host[:port] with no path, query, fragment or credentials; a
// wildcard only as a leading "*." of a host with at least two more labels;
// at most MaxEmbedOrigins, lower-cased, duplicates dropped. An empty list
// means any site (the default).
func NormalizeEmbedOrigins(origins []string) ([]string, error) {
	if len(origins) > MaxEmbedOrigins {
		return nil, fault.Invalidf("too_many_embed_origins", "A publication can name at most %d sites; %d were sent.", MaxEmbedOrigins, len(origins))
	}
	out := make([]string, 0, len(origins))
	for _, raw := range origins {
		o := strings.ToLower(strings.TrimSpace(raw))
		if o == "" || len(o) > 300 {
			return nil, errEmbedOrigin(raw, "it is empty or too long.")
		}
		scheme, rest, ok := strings.Cut(o, "://")
		if !ok || (scheme != "https" && scheme != "http") {
			return nil, errEmbedOrigin(raw, "it must start with https:// or http://.")
		}
		rest = strings.TrimSuffix(rest, "/")
		if strings.ContainsAny(rest, "/?#@\\") {
			return nil, errEmbedOrigin(raw, "it must not have a path, query, fragment or user name.")
		}
		host, port := rest, ""
		if i := strings.LastIndexByte(rest, ':'); i >= 0 {
			host, port = rest[:i], rest[i+1:]
			n, err := strconv.Atoi(port)
			if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != port {
				return nil, errEmbedOrigin(raw, "its port must be a number from 1 to 65535.")
			}
		}
		if len(host) > 253 || !hostPattern.MatchString(host) || strings.Count(host, "*") > 1 ||
			(strings.HasPrefix(host, "*.") && strings.Count(host, ".") < 2) {
			return nil, errEmbedOrigin(raw, "its host name is not valid (a wildcard is allowed only as a leading *. of a domain like *.example.com).")
		}
		// Check the assembled origin parses as a URL with exactly that host.
		norm := scheme + "://" + host
		if port != "" {
			norm += ":" + port
		}
		if u, err := url.Parse(strings.Replace(norm, "*.", "x.", 1)); err != nil || u.Path != "" {
			return nil, errEmbedOrigin(raw, "it is not a valid URL origin.")
		}
		if !slices.Contains(out, norm) {
			out = append(out, norm)
		}
	}
	return out, nil
}

// SetEmbedOrigins names the sites allowed to frame the publication's embed
// page (frame-ancestors); an empty list allows any site again. A page view
// elsewhere is then refused by the visitor's browser before it loads.
func (s *Service) SetEmbedOrigins(ctx context.Context, userID, id string, origins []string) (Publication, error) {
	norm, err := NormalizeEmbedOrigins(origins)
	if err != nil {
		return Publication{}, err
	}
	p, err := s.withTxThenGet(ctx, userID, &id, func(tx pgx.Tx) error {
		r, err := s.live(ctx, tx, userID, id)
		if err != nil {
			return err
		}
		if slices.Equal(r.EmbedOrigins, norm) {
			return nil
		}
		return s.append(ctx, tx, r, events.PublicationEmbedOriginsSet{PublicationID: id, Origins: norm})
	})
	if err != nil {
		return Publication{}, err
	}
	return p, nil
}

// EmbedOriginAllows reports whether origin (a request's Origin header,
// scheme://host[:port]) is one of the normalised embed origins, a "*."
// entry matching any subdomain (not the bare domain), as frame-ancestors
// does. An empty list allows nothing here: "any site may frame it" never
// means "any site may send its beacons".
func EmbedOriginAllows(origins []string, origin string) bool {
	origin = strings.ToLower(origin)
	for _, o := range origins {
		if o == origin {
			return true
		}
		scheme, rest, _ := strings.Cut(o, "://")
		suffix, ok := strings.CutPrefix(rest, "*")
		if !ok {
			continue
		}
		os, orest, _ := strings.Cut(origin, "://")
		if os == scheme && strings.HasSuffix(orest, suffix) && len(orest) > len(suffix) &&
			!strings.ContainsAny(orest[:len(orest)-len(suffix)], "/:@") {
			return true
		}
	}
	return false
}
