package account

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/mail"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// This file holds the account's security state that is not in the event
// log: session versions (revocation), e-mail verification and signed-out
// tokens, plus the bound on concurrent password hashing.

// VerifyLinkLifetime is how long an e-mail verification link works (once).
const VerifyLinkLifetime = 48 * time.Hour

// Messages of the verification and session routes.
const (
	MsgEmailVerified     = "Your email address is verified."
	MsgGoogleUnverified  = "An account with this email was created with a password and its address has not been verified yet, so Google sign-in cannot be linked to it. Open the verification link we emailed when it was created (the sign-in page can send it again), or use \"Forgot password\" to take the account over (that ends its other sessions)."
	MsgCurrentPassword   = "Your current password is not correct."
	MsgVerifyLinkInvalid = "This verification link is invalid, has expired or was already used. Ask for a new one on the sign-in page."
)

var (
	errVerifyInvalid     = fault.New(fault.Invalid, "verify_token_invalid", MsgVerifyLinkInvalid)
	errGoogleUnverified  = fault.New(fault.Conflict, "account_unverified", MsgGoogleUnverified)
	errCurrentPassword   = fault.New(fault.Invalid, "current_password_invalid", MsgCurrentPassword)
	errHashingBusy       = fault.New(fault.Unavailable, "busy", "The server is busy. Please try again in a moment.")
	errSamePasswordInput = fault.New(fault.Invalid, "password_required", MsgEnterPassword)
)

// AccessEnd says why an account's integrator access is being ended.
type AccessEnd int

const (
	// SessionsEnded: sign out everywhere, a password change or a reset
	// ended every session; API keys end with them.
	SessionsEnded AccessEnd = iota + 1
	// AddressProven: a password reset proved the address of an account that
	// was unverified until then, i.e. someone else may have registered it
	// first. Everything they could have set up (API keys, webhooks) goes.
	AddressProven
)

// AccessRevoker ends a user's integrator access inside the transaction that
// ends the sessions (apikey.Service revokes keys, webhook.Service removes
// endpoints on AddressProven), appending its own events there. cmd/api
// wires them into Options.Revokers.
type AccessRevoker interface {
	EndAccess(ctx context.Context, tx pgx.Tx, userID string, why AccessEnd, at time.Time) error
}

// MsgVerifyBefore is the refusal of API keys and webhooks on an unverified
// account (%s: "creating API keys", "adding webhooks"). An account anyone
// could have pre-registered must not hold integrations that would outlive
// the real owner's password reset.
const MsgVerifyBefore = "Verify your email address before %s: open the link we emailed you when you signed up, or send a new one from the notice at the top of the page."

// RequireVerified returns userID's session version when the account's
// address is verified, and a Forbidden fault (email_unverified) otherwise.
// In a transaction it locks the security row for share, so a concurrent
// "sign out everywhere" is either wholly before or wholly after the caller.
func RequireVerified(ctx context.Context, q pgdb.Querier, userID, doing string) (int64, error) {
	var version int64
	var verified bool
	err := q.QueryRow(ctx, `SELECT session_version, email_verified_at IS NOT NULL FROM account_security WHERE user_id = $1 FOR SHARE`,
		userID).Scan(&version, &verified)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("read account security: %w", err)
	}
	if !verified {
		return 0, fault.New(fault.Forbidden, "email_unverified", fmt.Sprintf(MsgVerifyBefore, doing))
	}
	return version, nil
}

// endAccess runs the configured revokers.
func (s *Service) endAccess(ctx context.Context, tx pgx.Tx, userID string, why AccessEnd, at time.Time) error {
	for _, r := range s.opt.Revokers {
		if err := r.EndAccess(ctx, tx, userID, why, at); err != nil {
			return fmt.Errorf("end integrator access: %w", err)
		}
	}
	return nil
}

// hashSlots bounds concurrent argon2id work (19 MiB each): a burst of
// sign-ins queues for a slot instead of allocating without limit.
func hashSlots() chan struct{} { return make(chan struct{}, max(2, runtime.NumCPU())) }

// withSlot runs fn holding one slot of slots (a counting semaphore), or
// gives up when ctx ends first.
func (s *Service) withSlot(ctx context.Context, slots chan struct{}, fn func() error) error {
	select {
	case slots <- struct{}{}:
	case <-ctx.Done():
		return errHashingBusy
	}
	defer func() { <-slots }()
	return fn()
}

func (s *Service) withHashSlot(ctx context.Context, fn func() error) error {
	return s.withSlot(ctx, s.hashing, fn)
}

// PasswordHashes is how many argon2id computations (hash or verify) this
// service has run: tests count it to check that the paths an attacker
// compares (new or taken address, known or unknown login) cost the same.
func (s *Service) PasswordHashes() int64 { return s.hashes.Load() }

func (s *Service) hashPassword(ctx context.Context, password string) (string, error) {
	s.hashes.Add(1)
	var h string
	err := s.withHashSlot(ctx, func() error {
		var err error
		h, err = HashPassword(password, s.opt.HashParams)
		return err
	})
	return h, err
}

func (s *Service) verifyPassword(ctx context.Context, password, encoded string) (bool, error) {
	s.hashes.Add(1)
	var ok bool
	err := s.withHashSlot(ctx, func() error {
		var err error
		ok, err = VerifyPassword(password, encoded)
		return err
	})
	return ok, err
}

// endSessions bumps the user's session version: every token minted before
// stops working at its next request.
func endSessions(ctx context.Context, tx pgx.Tx, userID string) error {
	_, err := tx.Exec(ctx, `INSERT INTO account_security (user_id, session_version) VALUES ($1, 1)
		ON CONFLICT (user_id) DO UPDATE SET session_version = account_security.session_version + 1, updated_at = now()`, userID)
	if err != nil {
		return fmt.Errorf("end sessions: %w", err)
	}
	return nil
}

func markVerified(ctx context.Context, tx pgx.Tx, userID string, at time.Time) error {
	_, err := tx.Exec(ctx, `INSERT INTO account_security (user_id, email_verified_at) VALUES ($1, $2)
		ON CONFLICT (user_id) DO UPDATE SET email_verified_at = COALESCE(account_security.email_verified_at, excluded.email_verified_at), updated_at = now()`, userID, at)
	if err != nil {
		return fmt.Errorf("mark email verified: %w", err)
	}
	return nil
}

// SessionColumns read, for users u and a token id $2, the account's current
// session version and whether the token was signed out: what SessionValid
// checks (team.Service.SessionIn reads them with the membership, in one
// statement).
const SessionColumns = `COALESCE((SELECT session_version FROM account_security WHERE user_id = u.id), 0),
		EXISTS (SELECT 1 FROM revoked_tokens WHERE jti = $2)`

// SessionValid reports whether a token of userID minted at session version
// version with id tokenID may still be used: the version is current, the
// token was not signed out, and the user still exists.
func (s *Service) SessionValid(ctx context.Context, userID string, version int64, tokenID string) (bool, error) {
	var current int64
	var revoked bool
	err := s.db.QueryRow(ctx, `SELECT `+SessionColumns+` FROM users u WHERE u.id = $1 AND u.erasure_requested_at IS NULL`,
		userID, tokenID).Scan(&current, &revoked)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("check session: %w", err)
	}
	return current == version && !revoked, nil
}

// SignOut ends one token (POST /api/auth/logout); it is remembered until it
// would have expired anyway.
func (s *Service) SignOut(ctx context.Context, userID, tokenID string, expires time.Time) error {
	if tokenID == "" {
		return nil
	}
	return pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM revoked_tokens WHERE expires_at < $1`, s.opt.Now().UTC()); err != nil {
			return fmt.Errorf("forget expired tokens: %w", err)
		}
		_, err := tx.Exec(ctx, `INSERT INTO revoked_tokens (jti, user_id, expires_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
			tokenID, userID, expires)
		if err != nil {
			return fmt.Errorf("sign out token: %w", err)
		}
		return nil
	})
}

// changeUser runs change in a transaction and returns the user as it left it.
// change returns the id of the user it changed (it may learn it on the way).
func (s *Service) changeUser(ctx context.Context, change func(tx pgx.Tx) (string, error)) (User, error) {
	var u userRow
	err := pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		id, err := change(tx)
		if err != nil {
			return err
		}
		u, err = loadUser(ctx, tx, id)
		return err
	})
	if err != nil {
		return User{}, err
	}
	return s.toUser(u), nil
}

// SignOutEverywhere ends every session of the user and returns the user at
// the new session version (the caller signs the current device back in).
func (s *Service) SignOutEverywhere(ctx context.Context, userID string) (User, error) {
	return s.changeUser(ctx, func(tx pgx.Tx) (string, error) {
		if err := endSessions(ctx, tx, userID); err != nil {
			return "", err
		}
		return userID, s.endAccess(withActor(ctx, userID), tx, userID, SessionsEnded, s.opt.Now().UTC())
	})
}

// ChangePassword replaces the password after checking the current one and
// ends every other session. It returns the user at the new session version.
func (s *Service) ChangePassword(ctx context.Context, userID, current, next string) (User, error) {
	if current == "" || next == "" {
		return User{}, errSamePasswordInput
	}
	if err := ValidateNewPassword(next); err != nil {
		return User{}, err
	}
	hash, ok, err := passwordHash(ctx, s.db, userID)
	if err != nil {
		return User{}, err
	}
	if !ok {
		hash = s.dummy // a Google-only account has no current password to give
	}
	match, err := s.verifyPassword(ctx, current, hash)
	if err != nil {
		return User{}, err
	}
	if !match || !ok {
		return User{}, errCurrentPassword
	}
	newHash, err := s.hashPassword(ctx, next)
	if err != nil {
		return User{}, err
	}
	return s.changeUser(ctx, func(tx pgx.Tx) (string, error) {
		cur, err := lockUser(ctx, tx, userID)
		if err != nil {
			return "", err
		}
		if err := setPasswordHash(ctx, tx, userID, newHash); err != nil {
			return "", err
		}
		if err := endSessions(ctx, tx, userID); err != nil {
			return "", err
		}
		if err := s.endAccess(withActor(ctx, userID), tx, userID, SessionsEnded, s.opt.Now().UTC()); err != nil {
			return "", err
		}
		return userID, s.apply(withActor(ctx, userID), tx, userID, cur.Version, events.PasswordChanged{UserID: userID, At: s.opt.Now().UTC()})
	})
}

// sendVerification stores a single-use link for the user's current address
// and queues its mail, both in tx. The token is 256 random bits kept only as
// a SHA-256 hash and bound to the address it was sent to, so a changed
// address needs a new one.
func (s *Service) sendVerification(ctx context.Context, tx pgx.Tx, userID, email string) error {
	token, err := newToken()
	if err != nil {
		return err
	}
	now := s.opt.Now().UTC()
	if _, err := tx.Exec(ctx, `INSERT INTO email_verifications (token_hash, user_id, email, expires_at, created_at) VALUES ($1, $2, $3, $4, $5)`,
		hashToken(token), userID, email, now.Add(VerifyLinkLifetime), now); err != nil {
		return fmt.Errorf("store verification token: %w", err)
	}
	return s.opt.Mailer.Enqueue(ctx, tx, mail.Mail{UserID: userID, To: email, Kind: mail.KindVerifyEmail,
		Data: map[string]string{"link": s.opt.PublicBaseURL + "/verify-email?token=" + token}})
}

// ResendVerification mails a new link to a signed-in, unverified user;
// sent is false (and nothing is mailed) when the address is verified already.
func (s *Service) ResendVerification(ctx context.Context, userID string) (sent bool, err error) {
	err = pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		u, err := loadUser(ctx, tx, userID)
		if err != nil || u.EmailVerified {
			return err
		}
		sent = true
		return s.sendVerification(ctx, tx, u.ID, u.Email)
	})
	return sent && err == nil, err
}

// MsgResendAnswer is the one answer to a public "send the verification
// link again": the same whether the address is new, taken, verified or
// unknown.
const MsgResendAnswer = "If this address has an account waiting for verification, we have sent a new link to it. It works once, for 48 hours."

// ResendVerificationTo mails a new link to email when it belongs to an
// account whose address is not verified yet, and does nothing visible
// otherwise: the caller answers MsgResendAnswer either way (like
// RequestPasswordReset, it never tells which addresses have accounts).
func (s *Service) ResendVerificationTo(ctx context.Context, email string) error {
	if err := checkEmail(email); err != nil {
		return err
	}
	return pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		u, err := userByEmail(ctx, tx, NormalizeEmail(email))
		if fault.IsKind(err, fault.NotFound) {
			return nil
		}
		if err != nil || u.EmailVerified {
			return err
		}
		return s.sendVerification(ctx, tx, u.ID, u.Email)
	})
}

// VerifyEmail uses a verification link: once, before it expires, and only
// while the account still has the address it was sent to. It returns the
// user (at its current session version): the link signs its holder in, as
// the mailbox it reached is the account's proof of ownership.
func (s *Service) VerifyEmail(ctx context.Context, token string) (User, error) {
	if strings.TrimSpace(token) == "" {
		return User{}, errVerifyInvalid
	}
	return s.changeUser(ctx, func(tx pgx.Tx) (string, error) {
		var userID, email string
		var expires time.Time
		var used *time.Time
		err := tx.QueryRow(ctx, `SELECT user_id, email, expires_at, used_at FROM email_verifications WHERE token_hash = $1 FOR UPDATE`,
			hashToken(token)).Scan(&userID, &email, &expires, &used)
		if errors.Is(err, pgx.ErrNoRows) {
			return "", errVerifyInvalid
		}
		if err != nil {
			return "", fmt.Errorf("read verification token: %w", err)
		}
		now := s.opt.Now().UTC()
		if used != nil || !now.Before(expires) {
			return "", errVerifyInvalid
		}
		u, err := lockUser(ctx, tx, userID)
		if err != nil {
			return "", err
		}
		if u.Email != email {
			return "", errVerifyInvalid
		}
		if _, err := tx.Exec(ctx, `UPDATE email_verifications SET used_at = $2 WHERE token_hash = $1`, hashToken(token), now); err != nil {
			return "", fmt.Errorf("use verification token: %w", err)
		}
		return userID, markVerified(ctx, tx, userID, now)
	})
}
