package mail

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
)

// Kind names one kind of account mail; the worker renders it (Compose).
type Kind string

// The account mail Photo3D sends. Data keys each kind reads are listed.
const (
	// KindVerifyEmail: "link" (the /verify-email?token=… URL).
	KindVerifyEmail Kind = "verify_email"
	// KindPasswordReset: "link" (the /reset-password?token=… URL).
	KindPasswordReset Kind = "password_reset"
	// KindSignupAttempt: "login" and "reset" (the two page URLs).
	KindSignupAttempt Kind = "signup_attempt"
	// KindEmailChangeConfirm: "link" (the /confirm-email-change?token=…
	// URL), sent to the new address of a sign-in email change.
	KindEmailChangeConfirm Kind = "email_change_confirm"
	// KindEmailChangeInUse: "login" and "reset"; sent instead of the
	// confirmation when the new address already has an account.
	KindEmailChangeInUse Kind = "email_change_in_use"
	// KindEmailChanged: "masked" (the new address, masked) and "undo" (the
	// link that puts the old address back), sent to the old address.
	KindEmailChanged Kind = "email_changed"
	// KindText: "subject" and "body", already written by the caller (for
	// mail with no template of its own, e.g. an account's final note).
	KindText Kind = "text"
)

// Mail is one message to queue: who it is for and what to say.
type Mail struct {
	// UserID is the account the mail belongs to (kept so that erasing the
	// account also erases its unsent mail: see ErasePending).
	UserID string
	// To is the recipient's address, kept only in mail_outbox until sent.
	To string
	// Kind picks the template.
	Kind Kind
	// Data fills the template; it may hold secrets (single-use links).
	Data map[string]string
}

// SendArgs is the River job that sends one queued mail. It holds no
// personal data and no secret: River keeps job arguments after the job ends
// and shows them to operators, so the address and the link live in the
// mail_outbox row the job names, which the job deletes once the mail is out
// (or has failed for good).
type SendArgs struct {
	OutboxID string `json:"outbox_id"`
	UserID   string `json:"user_id"`
	MailKind Kind   `json:"kind"`
}

// Kind implements river.JobArgs.
func (SendArgs) Kind() string { return "mail" }

// InsertOpts implements river.JobArgsWithInsertOpts: the default queue
// (every worker serves it) and enough attempts to outlast an SMTP relay
// outage of about a day with River's exponential backoff.
func (SendArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: river.QueueDefault, MaxAttempts: MaxAttempts}
}

// MaxAttempts bounds retries of a transient failure (4xx, timeouts,
// connection refused); River's backoff (attempt⁴ seconds) reaches about a
// day in total by attempt 17.
const MaxAttempts = 17

// Enqueuer queues account mail inside the caller's transaction: the mail
// exists exactly when the transaction that decided to send it commits.
type Enqueuer interface {
	Enqueue(ctx context.Context, tx pgx.Tx, m Mail) error
}

// Queue is the production Enqueuer: a mail_outbox row plus a River `mail`
// job, both in tx. The api holds an insert-only River client; cmd/worker
// runs SendWorker.
type Queue struct {
	River *river.Client[pgx.Tx]
}

// Enqueue implements Enqueuer.
func (q Queue) Enqueue(ctx context.Context, tx pgx.Tx, m Mail) error {
	id, err := insertOutbox(ctx, tx, m)
	if err != nil {
		return err
	}
	if _, err := q.River.InsertTx(ctx, tx, SendArgs{OutboxID: id, UserID: m.UserID, MailKind: m.Kind}, nil); err != nil {
		return fmt.Errorf("queue mail job: %w", err)
	}
	return nil
}

// insertOutbox stores the personal and secret part of a queued mail.
func insertOutbox(ctx context.Context, tx pgx.Tx, m Mail) (string, error) {
	if m.To == "" {
		return "", fmt.Errorf("queue mail: no recipient")
	}
	if _, _, err := Compose(m.Kind, m.Data); err != nil {
		return "", err // an unknown kind fails the request, not the job
	}
	data, err := json.Marshal(m.Data)
	if err != nil {
		return "", fmt.Errorf("encode mail data: %w", err)
	}
	id := rand.Text()
	var userID *string
	if m.UserID != "" {
		userID = &m.UserID
	}
	if _, err := tx.Exec(ctx, `INSERT INTO mail_outbox (id, user_id, kind, to_address, data) VALUES ($1, $2, $3, $4, $5)`,
		id, userID, string(m.Kind), m.To, data); err != nil {
		return "", fmt.Errorf("store queued mail: %w", err)
	}
	return id, nil
}

// ErasePending deletes the account's unsent mail (its jobs then find nothing
// to send and end). Erasure calls it; a final mail queued after it is kept.
func ErasePending(ctx context.Context, tx pgx.Tx, userID string) error {
	if _, err := tx.Exec(ctx, `DELETE FROM mail_outbox WHERE user_id = $1`, userID); err != nil {
		return fmt.Errorf("erase queued mail: %w", err)
	}
	return nil
}

// Compose writes the subject and body of a kind of mail.
func Compose(kind Kind, data map[string]string) (subject, body string, err error) {
	switch kind {
	case KindVerifyEmail:
		return "Verify your Photo3D email address",
			"Welcome to Photo3D. Please confirm that this address is yours by opening this link within 48 hours:\n\n" +
				data["link"] + "\n\nThe link works once. If you did not create a Photo3D account, ignore this mail.\n", nil
	case KindPasswordReset:
		return "Reset your Photo3D password",
			"Someone (hopefully you) asked to reset the password of your Photo3D account.\n\n" +
				"Open this link within one hour to choose a new password:\n\n" + data["link"] + "\n\n" +
				"The link works once. If you did not ask for this, ignore this mail; your password stays as it is.\n", nil
	case KindSignupAttempt:
		return "Someone tried to sign up with your email",
			"Someone (perhaps you) tried to create a Photo3D account with this address, but you already have one.\n\n" +
				"Sign in at " + data["login"] + ", or reset your password at " + data["reset"] + ".\n\n" +
				"If it was not you, ignore this mail: nothing about your account changed.\n", nil
	case KindEmailChangeConfirm:
		return "Confirm your new Photo3D sign-in email",
			"Someone (hopefully you) asked to make this address the sign-in email of a Photo3D account.\n\n" +
				"Open this link within 24 hours to confirm it:\n\n" + data["link"] + "\n\n" +
				"The link works once. Until it is opened, the account keeps signing in with its current address. " +
				"If you did not ask for this, ignore this mail.\n", nil
	case KindEmailChangeInUse:
		return "Someone tried to use your email for another Photo3D account",
			"Someone (perhaps you) asked to make this address the sign-in email of a Photo3D account, but it already belongs to one, so nothing changed.\n\n" +
				"Sign in at " + data["login"] + ", or reset your password at " + data["reset"] + ".\n\n" +
				"If it was not you, ignore this mail.\n", nil
	case KindEmailChanged:
		return "Your Photo3D sign-in email was changed",
			"The sign-in email of your Photo3D account was changed to " + data["masked"] + ". From now on the account signs in with that address; " +
				"the password and your signed-in devices stay as they were.\n\n" +
				"If this was not you, someone who knows your password made the change. Open this link within 7 days to put this address back " +
				"and sign every device out, then choose a new password with \"Forgot password\":\n\n" + data["undo"] + "\n", nil
	case KindText:
		if data["subject"] == "" {
			return "", "", fmt.Errorf("text mail without a subject")
		}
		return data["subject"], data["body"], nil
	}
	return "", "", fmt.Errorf("unknown mail kind %q", kind)
}

// Immediate sends at once, in the caller's goroutine and before the
// transaction commits, with no outbox row and no job. The HTTP tests use it
// to read mail back synchronously; servers use Queue, which never loses mail.
type Immediate struct{ Sender Sender }

// Enqueue implements Enqueuer.
func (i Immediate) Enqueue(ctx context.Context, _ pgx.Tx, m Mail) error {
	subject, body, err := Compose(m.Kind, m.Data)
	if err != nil {
		return err
	}
	return i.Sender.Send(ctx, Message{To: m.To, Subject: subject, Body: body})
}
