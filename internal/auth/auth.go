// Package auth issues and verifies Photo3D session tokens and carries the
// signed-in user through a request's context.
//
// Tokens are JWTs signed with HS256. Verification pins the algorithm (a token
// claiming "none" or RS256 is refused), requires an expiry, and checks issuer
// and audience, so a token minted for another service or by an attacker who
// swapped the algorithm is never accepted.
package auth

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// TokenLifetime is the spec's session length: 24 hours (86,400,000 ms).
const TokenLifetime = 24 * time.Hour

// Tokens mints and checks session tokens.
type Tokens struct {
	secret   []byte
	issuer   string
	audience string
	ttl      time.Duration
	now      func() time.Time
}

// NewTokens builds a token service; issuer is the public base URL.
func NewTokens(secret []byte, issuer string) *Tokens {
	return &Tokens{secret: secret, issuer: issuer, audience: "photo3d-web", ttl: TokenLifetime, now: time.Now}
}

// WithClock returns a copy using now as its clock (tests of expiry).
func (t *Tokens) WithClock(now func() time.Time) *Tokens {
	c := *t
	c.now = now
	return &c
}

// Issue returns a signed token for userID and its expiry.
func (t *Tokens) Issue(userID string) (string, time.Time, error) {
	now := t.now().UTC().Truncate(time.Second)
	exp := now.Add(t.ttl)
	claims := jwt.RegisteredClaims{
		Issuer:    t.issuer,
		Subject:   userID,
		Audience:  jwt.ClaimStrings{t.audience},
		IssuedAt:  jwt.NewNumericDate(now),
		NotBefore: jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(exp),
	}
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(t.secret)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("sign token: %w", err)
	}
	return s, exp, nil
}

// ErrInvalidToken covers every reason a token is refused (bad signature,
// wrong algorithm, expired, wrong issuer or audience, malformed).
var ErrInvalidToken = errors.New("invalid or expired session token")

// Verify checks a token and returns its user id.
func (t *Tokens) Verify(token string) (string, error) {
	parsed, err := jwt.ParseWithClaims(token, &jwt.RegisteredClaims{}, func(*jwt.Token) (any, error) {
		return t.secret, nil
	},
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithIssuer(t.issuer),
		jwt.WithAudience(t.audience),
		jwt.WithTimeFunc(t.now),
	)
	if err != nil || !parsed.Valid {
		return "", fmt.Errorf("%w: %v", ErrInvalidToken, err)
	}
	claims := parsed.Claims.(*jwt.RegisteredClaims)
	if claims.Subject == "" {
		return "", fmt.Errorf("%w: no subject", ErrInvalidToken)
	}
	return claims.Subject, nil
}

type userKey struct{}

// WithUser returns ctx carrying the signed-in user's id.
func WithUser(ctx context.Context, userID string) context.Context {
	return context.WithValue(ctx, userKey{}, userID)
}

// UserID returns the signed-in user's id, if the request was authenticated.
func UserID(ctx context.Context) (string, bool) {
	id, ok := ctx.Value(userKey{}).(string)
	return id, ok && id != ""
}
