// Package apikey is the integrators' second way to sign in: long-lived,
// scoped, revocable keys ("p3d_…") that merchants create on the "API access"
// panel and send as `Authorization: Bearer p3d_…` to the same routes the web
// app uses, with the same owner scoping.
//
// A key's life (created, revoked) is event-sourced in an apikey-{id} stream;
// the key itself is shown once at creation and afterwards exists only as a
// SHA-256 hash in api_key_secrets, never in an event or a log.
package apikey

import (
	"crypto/rand"
	"crypto/sha256"
	"math/big"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/photo3d/photo3d/internal/fault"
)

// Scope is one permission a key may carry. The server decides which scope a
// request needs from its method and route (internal/httpapi/apikeys.go).
type Scope string

// The scopes: read = GET/HEAD, write = every other method, publish = the
// routes that make something public (a write-only key cannot publish).
const (
	ScopeRead    Scope = "read"
	ScopeWrite   Scope = "write"
	ScopePublish Scope = "publish"
)

// AllScopes lists the scopes in display order.
var AllScopes = []Scope{ScopeRead, ScopeWrite, ScopePublish}

const (
	// Prefix starts every key, so a leaked key is recognisable by secret
	// scanners and the auth middleware can tell it from a session token.
	Prefix = "p3d_"
	// secretBytes of randomness: 256 bits, far beyond guessing.
	secretBytes = 32
	// secretChars is the base62 length of secretBytes (62^43 > 2^256).
	secretChars = 43
	// DisplayPrefixLen is how much of a key lists show: "p3d_" and 8
	// characters (≈48 bits) — enough to tell keys apart, far too little to
	// shorten a search of the other 35 characters.
	DisplayPrefixLen = 12
	// MaxNameLen bounds a key's name (characters).
	MaxNameLen = 80
	// MaxActiveKeys per user: an integrator needs a handful (one per shop or
	// environment); a bound keeps a runaway script from minting thousands.
	MaxActiveKeys = 20
	// LastUsedEvery throttles last_used_at writes: a busy key would otherwise
	// write a row on every request.
	LastUsedEvery = time.Minute
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// newSecret returns a fresh key: Prefix + 43 base62 characters of 32 random bytes.
func newSecret() (string, error) {
	b := make([]byte, secretBytes)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	n := new(big.Int).SetBytes(b)
	out := make([]byte, secretChars)
	sixtyTwo, rem := big.NewInt(62), new(big.Int)
	for i := secretChars - 1; i >= 0; i-- {
		n.DivMod(n, sixtyTwo, rem)
		out[i] = base62[rem.Int64()]
	}
	return Prefix + string(out), nil
}

// Hash is what is stored of a key. SHA-256 and not a slow password hash
// (argon2id) on purpose: a key is 256 random bits, so there is no dictionary
// to try and a brute force of the hash is as hopeless as of the key itself,
// while a slow hash would cost tens of milliseconds on every API request.
// An unsalted hash also lets the lookup be one indexed equality.
func Hash(key string) []byte {
	sum := sha256.Sum256([]byte(key))
	return sum[:]
}

// LooksLikeKey says whether a bearer token is meant to be an API key (and
// so must be checked as one, never as a session token).
func LooksLikeKey(token string) bool { return strings.HasPrefix(token, Prefix) }

// wellFormed rejects, before any database work, tokens that cannot be a key.
func wellFormed(key string) bool {
	if len(key) != len(Prefix)+secretChars || !LooksLikeKey(key) {
		return false
	}
	for _, c := range key[len(Prefix):] {
		if !strings.ContainsRune(base62, c) {
			return false
		}
	}
	return true
}

var (
	errNameRequired = fault.New(fault.Invalid, "name_required", "Give the key a name (for example the shop or script that uses it).")
	errNameTooLong  = fault.Invalidf("name_too_long", "A key name can be at most %d characters.", MaxNameLen)
	errScopes       = fault.New(fault.Invalid, "invalid_scopes", `Choose at least one scope: "read", "write" or "publish".`)
	errTooManyKeys  = fault.New(fault.Conflict, "too_many_api_keys",
		"You have the maximum of 20 active API keys. Revoke one you no longer use first.")
	errKeyNotFound = fault.NotFoundf("API key not found.")
)

// CleanName trims a key's name and checks its length (1–80 characters, no
// control characters).
func CleanName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", errNameRequired
	}
	if utf8.RuneCountInString(name) > MaxNameLen {
		return "", errNameTooLong
	}
	if !utf8.ValidString(name) || strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return "", fault.New(fault.Invalid, "invalid_name", "A key name cannot contain control characters.")
	}
	return name, nil
}

// CleanScopes validates and de-duplicates scopes into display order.
func CleanScopes(in []string) ([]Scope, error) {
	if len(in) == 0 || len(in) > 10 {
		return nil, errScopes
	}
	var out []Scope
	for _, s := range in {
		sc := Scope(s)
		if !slices.Contains(AllScopes, sc) {
			return nil, errScopes
		}
		if !slices.Contains(out, sc) {
			out = append(out, sc)
		}
	}
	slices.SortFunc(out, func(a, b Scope) int { return slices.Index(AllScopes, a) - slices.Index(AllScopes, b) })
	return out, nil
}

// Key is a key as lists show it: never the secret.
type Key struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Prefix     string     `json:"prefix"`
	Scopes     []Scope    `json:"scopes"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
	RevokedAt  *time.Time `json:"revokedAt"`
}

// Created is the answer to a creation: the key with its secret, shown once.
type Created struct {
	Key
	Secret string `json:"key"`
}

// Principal is who a valid key authenticates.
type Principal struct {
	KeyID  string
	UserID string // the key's workspace
	Scopes []Scope
	// RequireApproval: the workspace requires approval before publishing, so
	// the key's product Publish is a request (issue 51).
	RequireApproval bool
}

// Has says whether the key carries scope s.
func (p Principal) Has(s Scope) bool { return slices.Contains(p.Scopes, s) }
