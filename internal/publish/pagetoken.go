package publish

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Page tokens (security review 2, items 4, 5 and 9). The public pages sign
// two short-lived tokens with a key derived from a server secret, so that
// what only a page we served can know is checked without any state:
//
//   - the view token, rendered into every share, embed and product page
//     (<meta name="p3d-view-token">): the viewer script sends it with every
//     beacon batch, and POST /t refuses a batch without a valid one, so
//     beacons cannot be minted for any slug without fetching its page
//     first, and a harvested token stops working after ViewTokenTTL;
//   - the gate token, answered by the email gate when it accepts a lead:
//     the model routes of a gated page (model, AR files, poster) answer only
//     with it (?gt=), so the gate is no longer a curtain over a public URL.
//
// A token is "<expiry unix seconds>.<base64url of 16 bytes of
// HMAC-SHA256(key, purpose, slug, publication id, expiry)>".

// Lifetimes of the page tokens.
const (
	// ViewTokenTTL: a page is rendered at most CacheTTL (seconds) before it
	// is served, and sends its view at once; heartbeats of a page left open
	// longer than this are refused (reloading it gives a new token).
	ViewTokenTTL = time.Hour
	// GateTokenTTL: how long a shopper who left an email can load the
	// gated model in that tab (the page remembers the token per tab).
	GateTokenTTL = 24 * time.Hour
)

// Token purposes, part of the signed message so one kind is never the other.
const (
	purposeView = "view"
	purposeGate = "gate"
)

// Why a token is refused.
var (
	ErrTokenMissing = errors.New("page token missing")
	ErrTokenInvalid = errors.New("page token invalid")
	ErrTokenExpired = errors.New("page token expired")
)

// PageTokenKey derives the page tokens' key from a server secret (the
// session key, JWT_SECRET): every api instance derives the same key, and it
// is never the session key itself.
func PageTokenKey(secret []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("photo3d public page tokens v1"))
	return m.Sum(nil)
}

// tokenSigner signs and checks page tokens.
type tokenSigner struct{ key []byte }

func newTokenSigner(key []byte) tokenSigner {
	if len(key) == 0 {
		// One process only: tokens from another instance would be refused.
		key = make([]byte, 32)
		_, _ = rand.Read(key)
	}
	return tokenSigner{key: key}
}

func (s tokenSigner) mac(purpose, slug, pubID string, exp int64) []byte {
	m := hmac.New(sha256.New, s.key)
	for _, part := range []string{purpose, slug, pubID, strconv.FormatInt(exp, 10)} {
		m.Write([]byte(part))
		m.Write([]byte{0})
	}
	return m.Sum(nil)[:16]
}

func (s tokenSigner) sign(purpose, slug, pubID string, exp time.Time) string {
	e := exp.Unix()
	return strconv.FormatInt(e, 10) + "." + base64.RawURLEncoding.EncodeToString(s.mac(purpose, slug, pubID, e))
}

func (s tokenSigner) check(purpose, slug, pubID, tok string, now time.Time) error {
	if tok == "" {
		return ErrTokenMissing
	}
	es, sig, ok := strings.Cut(tok, ".")
	if !ok || len(es) > 12 || len(sig) != 22 {
		return ErrTokenInvalid
	}
	e, err := strconv.ParseInt(es, 10, 64)
	if err != nil {
		return ErrTokenInvalid
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, s.mac(purpose, slug, pubID, e)) {
		return ErrTokenInvalid
	}
	if now.Unix() >= e {
		return ErrTokenExpired
	}
	return nil
}

// CheckViewToken reports whether tok is a view token this service rendered
// into slug's page (of publication pubID) that has not expired.
func (p *Pages) CheckViewToken(slug, pubID, tok string) error {
	return p.tokens.check(purposeView, slug, pubID, tok, p.now())
}
