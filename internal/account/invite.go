package account

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/internal/pgdb"
)

// InviteLifetime is how long an invite code can be used.
const InviteLifetime = 30 * 24 * time.Hour

// CreateInvite makes a single-use invite code for email (SIGNUP_MODE=invite)
// and returns it; only its hash is stored, so the code is shown this once.
func CreateInvite(ctx context.Context, q pgdb.Querier, email string, ttl time.Duration, now time.Time) (string, error) {
	email = NormalizeEmail(email)
	if !strings.Contains(email, "@") {
		return "", fmt.Errorf("create invite: %q is not an e-mail address", email)
	}
	code, err := newToken()
	if err != nil {
		return "", err
	}
	code = code[:22]
	if _, err := q.Exec(ctx, `INSERT INTO invites (code_hash, email, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
		hashToken(code), email, now.UTC(), now.Add(ttl).UTC()); err != nil {
		return "", fmt.Errorf("store invite: %w", err)
	}
	return code, nil
}

// lockInvite checks an invite code for email and returns the function that
// marks it used once the user exists (same transaction).
func (s *Service) lockInvite(ctx context.Context, tx pgx.Tx, email, code string) (func(userID string) error, error) {
	var inviteEmail string
	var expires time.Time
	var used *time.Time
	hash := hashToken(strings.TrimSpace(code))
	err := tx.QueryRow(ctx, `SELECT email, expires_at, used_at FROM invites WHERE code_hash = $1 FOR UPDATE`, hash).
		Scan(&inviteEmail, &expires, &used)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, errInviteInvalid
	}
	if err != nil {
		return nil, fmt.Errorf("read invite: %w", err)
	}
	if used != nil || inviteEmail != email || !s.opt.Now().Before(expires) {
		return nil, errInviteInvalid
	}
	return s.useInvite(ctx, tx, hash), nil
}

// lockInviteForGoogle accepts a code, or, without one, any open invite for
// the address Google verified.
func (s *Service) lockInviteForGoogle(ctx context.Context, tx pgx.Tx, email, code string) (func(userID string) error, error) {
	if strings.TrimSpace(code) != "" {
		return s.lockInvite(ctx, tx, email, code)
	}
	var hash []byte
	err := tx.QueryRow(ctx, `SELECT code_hash FROM invites WHERE email = $1 AND used_at IS NULL AND expires_at > $2
		ORDER BY created_at LIMIT 1 FOR UPDATE`, email, s.opt.Now().UTC()).Scan(&hash)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, errInviteRequired
	}
	if err != nil {
		return nil, fmt.Errorf("read invite: %w", err)
	}
	return s.useInvite(ctx, tx, hash), nil
}

// useInvite returns what marks the locked invite as used by the new
// account, run in the same transaction once the account exists.
func (s *Service) useInvite(ctx context.Context, tx pgx.Tx, hash []byte) func(userID string) error {
	return func(userID string) error {
		_, err := tx.Exec(ctx, `UPDATE invites SET used_at = $2, used_by = $3 WHERE code_hash = $1`, hash, s.opt.Now().UTC(), userID)
		if err != nil {
			return fmt.Errorf("use invite: %w", err)
		}
		return nil
	}
}
