package account

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// AccountErased: the owner asked for the account to be deleted. Every key
// and webhook ends with the sessions (AccessRevoker implementations treat it
// like AddressProven).
const AccountErased AccessEnd = AddressProven + 1

// ErasureScheduler queues the erasure of userID inside the transaction
// that records the request (internal/privacy inserts its River job there and
// tells the public pages), so a request is never recorded without its job.
type ErasureScheduler func(ctx context.Context, tx pgx.Tx, userID string) error

// WorkspaceErasing is the SQL condition, on users u, that the workspace
// whose id is u's (every account's own workspace, issue 51) is being erased:
// its founder asked for their account to be erased and still owns it. A
// founder who transferred the workspace takes only their personal data.
const WorkspaceErasing = `(u.erasure_requested_at IS NOT NULL
	AND NOT EXISTS (SELECT 1 FROM workspaces tw WHERE tw.id = u.id AND tw.owner_id <> u.id))`

// OwnWorkspaceTransferred says whether userID's own workspace now belongs
// to someone else: erasing the account then leaves the workspace's data.
func OwnWorkspaceTransferred(ctx context.Context, q pgdb.Querier, userID string) (bool, error) {
	var moved bool
	err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM workspaces WHERE id = $1 AND owner_id <> $1)`, userID).Scan(&moved)
	if err != nil {
		return false, fmt.Errorf("read workspace owner: %w", err)
	}
	return moved, nil
}

// Messages of DELETE /api/users/me.
const (
	MsgErasePassword = "Your password is not correct. Enter the password you sign in with to delete your account."
	MsgEraseGoogle   = "Sign in with Google again to confirm that you want to delete your account."
)

var (
	errErasePassword = fault.New(fault.Invalid, "current_password_invalid", MsgErasePassword)
	errEraseGoogle   = fault.New(fault.Invalid, "google_confirmation_required", MsgEraseGoogle)
	errErasing       = fault.New(fault.Conflict, "account_erasing", MsgErasing)
)

// MsgErasing answers a Google sign-in to an account being deleted.
const MsgErasing = "This account is being deleted. Once that is done (we'll email you) you can sign up again with this address."

// ErasureConfirmation is how the owner proves it is them: the account's
// password, or for an account without one a fresh Google sign-in (an ID
// token carrying a nonce this server issued minutes ago, used up here).
type ErasureConfirmation struct {
	Password         string
	GoogleCredential string
	// DeleteWorkspace confirms deleting the account's own workspace although
	// it has other members (they are told and lose access); without it
	// BeforeErasure refuses such a request.
	DeleteWorkspace bool
}

// RequestErasure records that the owner wants the account deleted, after
// checking the confirmation. In the same transaction every session, API
// key and webhook ends, the credentials and Google links are removed (so
// nobody signs in from the moment the request returns) and the erasure job
// is queued; the job deletes the rest (internal/privacy).
func (s *Service) RequestErasure(ctx context.Context, userID string, c ErasureConfirmation) error {
	if s.opt.Erasure == nil {
		return errors.New("request erasure: no erasure scheduler configured")
	}
	if err := s.confirmErasure(ctx, userID, c); err != nil {
		return err
	}
	ctx = withActor(ctx, userID)
	return pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		cur, err := lockUser(ctx, tx, userID)
		if err != nil {
			return err
		}
		now := s.opt.Now().UTC()
		if s.opt.BeforeErasure != nil {
			if err := s.opt.BeforeErasure(ctx, tx, userID, c.DeleteWorkspace); err != nil {
				return err
			}
		}
		if err := endSessions(ctx, tx, userID); err != nil {
			return err
		}
		// The workspace's API keys and webhooks end with it; a founder who
		// transferred it leaves them to the new owner.
		moved, err := OwnWorkspaceTransferred(ctx, tx, userID)
		if err != nil {
			return err
		}
		if !moved {
			if err := s.endAccess(ctx, tx, userID, AccountErased, now); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `DELETE FROM password_credentials WHERE user_id = $1;`, userID); err != nil {
			return fmt.Errorf("remove credentials: %w", err)
		}
		for _, q := range []string{
			`DELETE FROM google_identities WHERE user_id = $1`,
			`DELETE FROM password_resets WHERE user_id = $1`,
			`DELETE FROM email_verifications WHERE user_id = $1`,
			`DELETE FROM email_changes WHERE user_id = $1`,
		} {
			if _, err := tx.Exec(ctx, q, userID); err != nil {
				return fmt.Errorf("remove sign-in methods: %w", err)
			}
		}
		if err := s.apply(ctx, tx, userID, cur.Version, events.UserErasureRequested{UserID: userID, At: now}); err != nil {
			return err
		}
		return s.opt.Erasure(ctx, tx, userID)
	})
}

func (s *Service) confirmErasure(ctx context.Context, userID string, c ErasureConfirmation) error {
	hash, hasPassword, err := passwordHash(ctx, s.db, userID)
	if err != nil {
		return err
	}
	if hasPassword {
		if c.Password == "" {
			return errSamePasswordInput
		}
		match, err := s.verifyPassword(ctx, c.Password, hash)
		if err != nil {
			return err
		}
		if !match {
			return errErasePassword
		}
		return nil
	}
	if c.GoogleCredential == "" {
		return errEraseGoogle
	}
	id, err := s.opt.Google.Verify(ctx, c.GoogleCredential)
	if err != nil {
		return err
	}
	if err := s.useGoogleNonce(ctx, id.Nonce); err != nil {
		return err
	}
	var owner string
	err = s.db.QueryRow(ctx, `SELECT user_id FROM google_identities WHERE subject = $1`, id.Subject).Scan(&owner)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && owner != userID) {
		return errEraseGoogle
	}
	if err != nil {
		return fmt.Errorf("read google identity: %w", err)
	}
	return nil
}
