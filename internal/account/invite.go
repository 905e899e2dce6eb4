package account

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/internal/fault"
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

// Team invitations (issue 51).

// InvitedAccount returns the account of an address a team invitation was
// mailed to, in the caller's transaction. An address without an account gets
// one, with name and password (the sign-up rules apply), already verified:
// opening the mailed link proves the address, as the verification link
// would. created says which happened. An existing account is marked verified
// for the same reason and keeps its password.
func (s *Service) InvitedAccount(ctx context.Context, tx pgx.Tx, email, name, password string) (User, bool, error) {
	email = NormalizeEmail(email)
	now := s.opt.Now().UTC()
	if u, err := userByEmail(ctx, tx, email); err == nil {
		if err := markVerified(ctx, tx, u.ID, now); err != nil {
			return User{}, false, err
		}
		u.EmailVerified = true
		return s.toUser(u), false, nil
	} else if !fault.IsKind(err, fault.NotFound) {
		return User{}, false, err
	}
	if err := ValidateSignup(SignupInput{Email: email, Password: password, Name: strings.TrimSpace(name)}); err != nil {
		return User{}, false, err
	}
	hash, err := s.hashPassword(ctx, password)
	if err != nil {
		return User{}, false, err
	}
	u, err := s.register(ctx, tx, email, SignupNames(name, email), "password")
	if err != nil {
		return User{}, false, err
	}
	if err := setPasswordHash(ctx, tx, u.ID, hash); err != nil {
		return User{}, false, err
	}
	if err := markVerified(ctx, tx, u.ID, now); err != nil {
		return User{}, false, err
	}
	u.EmailVerified = true
	return s.toUser(u), true, nil
}

// HasAccount says whether an address has a live account (the accept page
// asks for a name and password only when it has none).
func (s *Service) HasAccount(ctx context.Context, q pgdb.Querier, email string) (bool, error) {
	_, err := userByEmail(ctx, q, NormalizeEmail(email))
	if fault.IsKind(err, fault.NotFound) {
		return false, nil
	}
	return err == nil, err
}
