package account

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/mail"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// Changing the sign-in email (issue 50 item 13). The owner gives the new
// address and their current password; a single-use link goes to the NEW
// address, and only opening it changes user_pii.email. The old address is
// then told (the new one masked) and gets an undo link, because whoever
// made the change knew the password: undoing puts the old address back and
// ends every session and API key, so the owner can take the account back
// with "Forgot password".
//
// Sessions: a confirmed change keeps the account's sessions. Tokens name the
// user id, not the address, the password is unchanged, and the change was
// made from a signed-in session that proved the password; signing the owner
// out of every device for changing an address would only punish them. The
// undo link is the path for the case where it was not them, and it does
// end every session.
//
// An address that already has an account is answered exactly like a free
// one ("we sent a link to …"): its owner gets a note instead of a link, so
// the answer never tells a signed-in user which addresses have accounts
// (like sign-up). The addresses live in email_changes and user_pii, never
// in the events (events/user.go).

// EmailChangeLifetime is how long the confirmation link works (once).
const EmailChangeLifetime = 24 * time.Hour

// EmailUndoLifetime is how long the old address's undo link works (once).
const EmailUndoLifetime = 7 * 24 * time.Hour

// Messages of the email change.
const (
	MsgEmailChangeSame     = "This is already your sign-in email."
	MsgEmailChangeInvalid  = "This email change link is invalid, has expired or was already used. Ask for the change again on your Profile page."
	MsgEmailChangeTakenNow = "This address cannot be used for your account any more. Ask for the change again on your Profile page with another address."
	// MsgEmailChanged answers the confirmation link (%s: the new address).
	MsgEmailChanged = "Your sign-in email is now %s. Sign in with it from now on; your password stays the same."
	// MsgEmailUndone answers the undo link (%s: the restored address).
	MsgEmailUndone = "Your sign-in email is %s again, and every device was signed out. Choose a new password with \"Forgot password\" before you sign in."
)

var (
	errEmailChangeSame    = fault.New(fault.Invalid, "email_unchanged", MsgEmailChangeSame)
	errEmailChangeInvalid = fault.New(fault.Invalid, "email_change_token_invalid", MsgEmailChangeInvalid)
	errEmailChangeTaken   = fault.New(fault.Conflict, "email_unavailable", MsgEmailChangeTakenNow)
)

// EmailChangeRequest is the answer to a request: where the link went and
// until when it works. It is the same whether the address is free or not.
type EmailChangeRequest struct {
	Email     string    `json:"email"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// MsgEmailChangeSent is the answer to a request (%s: the new address).
const MsgEmailChangeSent = "We sent a confirmation link to %s. Open it within 24 hours to make it your sign-in email; until then you sign in with your current address."

// RequestEmailChange checks the current password and mails a confirmation
// link to newEmail (or, when newEmail already has an account, a note to its
// owner; the answer is the same). A Google-only account has no password to
// give and is refused like a wrong one. A new request replaces a pending one.
func (s *Service) RequestEmailChange(ctx context.Context, userID, newEmail, password string) (EmailChangeRequest, error) {
	if err := checkEmail(newEmail); err != nil {
		return EmailChangeRequest{}, err
	}
	if password == "" {
		return EmailChangeRequest{}, errSamePasswordInput
	}
	email := NormalizeEmail(newEmail)
	hash, ok, err := passwordHash(ctx, s.db, userID)
	if err != nil {
		return EmailChangeRequest{}, err
	}
	if !ok {
		hash = s.dummy
	}
	match, err := s.verifyPassword(ctx, password, hash)
	if err != nil {
		return EmailChangeRequest{}, err
	}
	if !match || !ok {
		return EmailChangeRequest{}, errCurrentPassword
	}
	token, err := newToken()
	if err != nil {
		return EmailChangeRequest{}, err
	}
	now := s.opt.Now().UTC()
	out := EmailChangeRequest{Email: email, ExpiresAt: now.Add(EmailChangeLifetime)}
	ctx = withActor(ctx, userID)
	err = pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		u, err := lockUser(ctx, tx, userID)
		if err != nil {
			return err
		}
		if u.Email == email {
			return errEmailChangeSame
		}
		// A newer request replaces any pending one (its link stops working).
		if _, err := tx.Exec(ctx, `DELETE FROM email_changes WHERE user_id = $1 AND NOT undo AND used_at IS NULL`, userID); err != nil {
			return fmt.Errorf("replace pending email change: %w", err)
		}
		if owner, err := userByEmail(ctx, tx, email); err == nil {
			return s.opt.Mailer.Enqueue(ctx, tx, mail.Mail{UserID: owner.ID, To: email, Kind: mail.KindEmailChangeInUse,
				Data: map[string]string{"login": s.opt.PublicBaseURL + "/login", "reset": s.opt.PublicBaseURL + "/forgot-password"}})
		} else if !fault.IsKind(err, fault.NotFound) {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO email_changes (token_hash, user_id, email, expires_at, created_at) VALUES ($1, $2, $3, $4, $5)`,
			hashToken(token), userID, email, out.ExpiresAt, now); err != nil {
			return fmt.Errorf("store email change: %w", err)
		}
		if err := s.opt.Mailer.Enqueue(ctx, tx, mail.Mail{UserID: userID, To: email, Kind: mail.KindEmailChangeConfirm,
			Data: map[string]string{"link": s.opt.PublicBaseURL + "/confirm-email-change?token=" + token}}); err != nil {
			return err
		}
		return s.apply(ctx, tx, userID, u.Version, events.EmailChangeRequested{UserID: userID, At: now})
	})
	if err != nil {
		return EmailChangeRequest{}, err
	}
	return out, nil
}

// EmailChangeResult is what opening a link did.
type EmailChangeResult struct {
	User User
	// Undone: the link was the old address's undo link; every session ended.
	Undone bool
}

// ConfirmEmailChange uses a link from RequestEmailChange (the change takes
// effect, the old address is told) or the undo link of that notice (the old
// address comes back and every session ends). Each link works once, before
// it expires; an address that got an account in the meantime is refused.
func (s *Service) ConfirmEmailChange(ctx context.Context, token string) (EmailChangeResult, error) {
	if strings.TrimSpace(token) == "" {
		return EmailChangeResult{}, errEmailChangeInvalid
	}
	var undone bool
	u, err := s.changeUser(ctx, func(tx pgx.Tx) (string, error) {
		var userID, email string
		var expires time.Time
		var used *time.Time
		err := tx.QueryRow(ctx, `SELECT user_id, email, undo, expires_at, used_at FROM email_changes WHERE token_hash = $1 FOR UPDATE`,
			hashToken(token)).Scan(&userID, &email, &undone, &expires, &used)
		if errors.Is(err, pgx.ErrNoRows) {
			return "", errEmailChangeInvalid
		}
		if err != nil {
			return "", fmt.Errorf("read email change: %w", err)
		}
		now := s.opt.Now().UTC()
		if used != nil || !now.Before(expires) {
			return "", errEmailChangeInvalid
		}
		ctx := withActor(ctx, userID)
		u, err := lockUser(ctx, tx, userID)
		if err != nil {
			return "", err
		}
		if _, err := tx.Exec(ctx, `UPDATE email_changes SET used_at = $2 WHERE token_hash = $1`, hashToken(token), now); err != nil {
			return "", fmt.Errorf("use email change: %w", err)
		}
		// (An undo may find its address back already, after a second change.)
		if u.Email != email {
			_, err := tx.Exec(ctx, `UPDATE user_pii SET email = $2, updated_at = $3 WHERE user_id = $1`, userID, email, now)
			if pgdb.IsUniqueViolation(err, "user_pii_email_key") {
				return "", errEmailChangeTaken
			}
			if err != nil {
				return "", fmt.Errorf("change email: %w", err)
			}
		}
		// Links mailed to the previous address stop working: a reset or a
		// verification link must not reach an address the account left.
		for _, q := range []string{
			`UPDATE password_resets SET used_at = $2 WHERE user_id = $1 AND used_at IS NULL`,
			`UPDATE email_verifications SET used_at = $2 WHERE user_id = $1 AND used_at IS NULL`,
			`UPDATE email_changes SET used_at = $2 WHERE user_id = $1 AND used_at IS NULL AND NOT undo`,
		} {
			if _, err := tx.Exec(ctx, q, userID, now); err != nil {
				return "", fmt.Errorf("void old links: %w", err)
			}
		}
		if err := markVerified(ctx, tx, userID, now); err != nil {
			return "", err
		}
		if undone {
			// Whoever changed the address knew the password and may hold
			// sessions and keys: they all end.
			if _, err := tx.Exec(ctx, `UPDATE email_changes SET used_at = $2 WHERE user_id = $1 AND used_at IS NULL`, userID, now); err != nil {
				return "", fmt.Errorf("void undo links: %w", err)
			}
			if err := endSessions(ctx, tx, userID); err != nil {
				return "", err
			}
			if err := s.endAccess(ctx, tx, userID, SessionsEnded, now); err != nil {
				return "", err
			}
		} else {
			undo, err := newToken()
			if err != nil {
				return "", err
			}
			if _, err := tx.Exec(ctx, `INSERT INTO email_changes (token_hash, user_id, email, undo, expires_at, created_at) VALUES ($1, $2, $3, true, $4, $5)`,
				hashToken(undo), userID, u.Email, now.Add(EmailUndoLifetime), now); err != nil {
				return "", fmt.Errorf("store undo link: %w", err)
			}
			if err := s.opt.Mailer.Enqueue(ctx, tx, mail.Mail{UserID: userID, To: u.Email, Kind: mail.KindEmailChanged,
				Data: map[string]string{"masked": MaskEmail(email), "undo": s.opt.PublicBaseURL + "/confirm-email-change?token=" + undo}}); err != nil {
				return "", err
			}
		}
		return userID, s.apply(ctx, tx, userID, u.Version, events.EmailChanged{UserID: userID, Undone: undone, At: now})
	})
	if err != nil {
		return EmailChangeResult{}, err
	}
	return EmailChangeResult{User: u, Undone: undone}, nil
}

// MaskEmail shows an address the way the old mailbox's notice names the new
// one: its first character and its domain ("n***@example.com"), enough for
// the owner to recognise it, not enough to hand it to whoever reads the old
// mailbox.
func MaskEmail(email string) string {
	local, domain, ok := strings.Cut(email, "@")
	if !ok || local == "" {
		return "***"
	}
	r := []rune(local)
	return string(r[0]) + "***@" + domain
}
