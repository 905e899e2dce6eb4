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
	"crypto/rand"
	"encoding/hex"
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

// Issue returns a signed token for userID (session version 0) and its expiry.
func (t *Tokens) Issue(userID string) (string, time.Time, error) {
	return t.IssueSession(userID, 0)
}

// sessionClaims add the user's session version to the registered claims:
// bumping the version on the server (password change, sign out everywhere)
// voids every token minted before, without a list of them.
type sessionClaims struct {
	jwt.RegisteredClaims
	SessionVersion int64 `json:"sv"`
	// Workspace is the session's current workspace (issue 51); empty: the
	// account's own. Membership is checked on every request, so a token
	// naming a workspace its holder has left gets nothing from it.
	Workspace string `json:"ws,omitempty"`
}

// Session is what a verified token says.
type Session struct {
	UserID    string
	Version   int64     // the user's session version when the token was minted
	ID        string    // the token's own id (jti), for signing out this one token
	ExpiresAt time.Time // after this the token is dead anyway
	Workspace string    // the current workspace ("": the account's own)
}

// IssueSession returns a signed token for userID at session version
// version, with a random token id, and its expiry.
func (t *Tokens) IssueSession(userID string, version int64) (string, time.Time, error) {
	return t.IssueSessionIn(userID, version, "")
}

// IssueSessionIn is IssueSession with workspace as the session's current
// workspace ("" or userID: the account's own).
func (t *Tokens) IssueSessionIn(userID string, version int64, workspace string) (string, time.Time, error) {
	if workspace == userID {
		workspace = ""
	}
	now := t.now().UTC().Truncate(time.Second)
	exp := now.Add(t.ttl)
	jti := make([]byte, 16)
	if _, err := rand.Read(jti); err != nil {
		return "", time.Time{}, fmt.Errorf("token id: %w", err)
	}
	claims := sessionClaims{RegisteredClaims: jwt.RegisteredClaims{
		ID:        hex.EncodeToString(jti),
		Issuer:    t.issuer,
		Subject:   userID,
		Audience:  jwt.ClaimStrings{t.audience},
		IssuedAt:  jwt.NewNumericDate(now),
		NotBefore: jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(exp),
	}, SessionVersion: version, Workspace: workspace}
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
	s, err := t.VerifySession(token)
	return s.UserID, err
}

// VerifySession checks a token's signature and claims and returns the
// session it names; whether that session was revoked is the caller's check.
func (t *Tokens) VerifySession(token string) (Session, error) {
	parsed, err := jwt.ParseWithClaims(token, &sessionClaims{}, func(*jwt.Token) (any, error) {
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
		return Session{}, fmt.Errorf("%w: %v", ErrInvalidToken, err)
	}
	claims := parsed.Claims.(*sessionClaims)
	if claims.Subject == "" {
		return Session{}, fmt.Errorf("%w: no subject", ErrInvalidToken)
	}
	return Session{UserID: claims.Subject, Version: claims.SessionVersion, ID: claims.ID, ExpiresAt: claims.ExpiresAt.Time,
		Workspace: claims.Workspace}, nil
}

type userKey struct{}

type sessionKey struct{}

// WithSession returns ctx carrying the verified session (user id included).
func WithSession(ctx context.Context, s Session) context.Context {
	return context.WithValue(WithUser(ctx, s.UserID), sessionKey{}, s)
}

// SessionFrom returns the session of a token-authenticated request.
func SessionFrom(ctx context.Context) (Session, bool) {
	s, ok := ctx.Value(sessionKey{}).(Session)
	return s, ok
}

// WithUser returns ctx carrying the signed-in user's id.
func WithUser(ctx context.Context, userID string) context.Context {
	return context.WithValue(ctx, userKey{}, userID)
}

// UserID returns the signed-in user's id, if the request was authenticated.
func UserID(ctx context.Context) (string, bool) {
	id, ok := ctx.Value(userKey{}).(string)
	return id, ok && id != ""
}

type workspaceKey struct{}

// Workspace is the workspace a request acts in and the caller's role there.
type Workspace struct {
	ID              string
	Role            string // owner | editor | reviewer | analyst; "key" for an API key
	RequireApproval bool
}

// WithWorkspace returns ctx acting in ws.
func WithWorkspace(ctx context.Context, ws Workspace) context.Context {
	return context.WithValue(ctx, workspaceKey{}, ws)
}

// WorkspaceFrom returns the request's workspace, if one was resolved.
func WorkspaceFrom(ctx context.Context) (Workspace, bool) {
	ws, ok := ctx.Value(workspaceKey{}).(Workspace)
	return ws, ok && ws.ID != ""
}
