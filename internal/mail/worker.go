package mail

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"
)

// SendWorker runs `mail` jobs: it reads the queued mail from mail_outbox,
// renders it, sends it, and deletes the row. A transient failure (SMTP 4xx,
// a refused connection, a timeout) returns an error, so River retries with
// backoff; a permanent one (SMTP 5xx) or the last attempt cancels the job,
// deletes the row and counts in Failed, so the operator sees it. Delivery is
// at least once: a crash between the relay's 250 and the delete resends.
type SendWorker struct {
	river.WorkerDefaults[SendArgs]
	DB     *pgxpool.Pool
	Sender Sender
	Logger *slog.Logger
	// Sent and Failed (label "kind") may be nil.
	Sent, Failed *prometheus.CounterVec
	// Backoff, when set, replaces River's retry schedule (attempt⁴ s);
	// tests shorten it, the retry path stays the same.
	Backoff func(attempt int) time.Duration
}

// Timeout implements river.Worker: one SMTP send plus a margin.
func (w *SendWorker) Timeout(*river.Job[SendArgs]) time.Duration {
	return DefaultSMTPTimeout + 15*time.Second
}

// NextRetry implements river.Worker.
func (w *SendWorker) NextRetry(job *river.Job[SendArgs]) time.Time {
	if w.Backoff == nil {
		return time.Time{} // River's default
	}
	return time.Now().Add(w.Backoff(job.Attempt))
}

// Work implements river.Worker.
func (w *SendWorker) Work(ctx context.Context, job *river.Job[SendArgs]) error {
	var (
		kind, to string
		raw      []byte
	)
	err := w.DB.QueryRow(ctx, `SELECT kind, to_address, data FROM mail_outbox WHERE id = $1`, job.Args.OutboxID).Scan(&kind, &to, &raw)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil // sent already, or erased with its account
	}
	if err != nil {
		return fmt.Errorf("load queued mail: %w", err)
	}
	var data map[string]string
	if err := json.Unmarshal(raw, &data); err != nil {
		return w.giveUp(ctx, job, "unreadable", fmt.Errorf("decode queued mail: %w", err))
	}
	subject, body, err := Compose(Kind(kind), data)
	if err != nil {
		return w.giveUp(ctx, job, "unrenderable", err)
	}
	sendErr := w.Sender.Send(ctx, Message{ID: job.Args.OutboxID, To: to, Subject: subject, Body: body, SentAt: time.Now().UTC()})
	if sendErr == nil {
		if _, err := w.DB.Exec(ctx, `DELETE FROM mail_outbox WHERE id = $1`, job.Args.OutboxID); err != nil {
			return fmt.Errorf("forget sent mail: %w", err)
		}
		if w.Sent != nil {
			w.Sent.WithLabelValues(kind).Inc()
		}
		return nil
	}
	// SMTP replies often echo the address; River keeps the error text.
	clean := Scrub(sendErr.Error(), to, data)
	if Permanent(sendErr) {
		return w.giveUp(ctx, job, "rejected", errors.New(clean))
	}
	if job.Attempt >= job.MaxAttempts {
		return w.giveUp(ctx, job, "retries_exhausted", errors.New(clean))
	}
	w.Logger.Warn("mail not sent yet; will retry", "mail_id", job.Args.OutboxID, "user_id", job.Args.UserID,
		"kind", kind, "attempt", job.Attempt, "err", clean)
	return errors.New(clean)
}

// giveUp ends a mail for good: the row goes (its link is useless to an
// operator and personal), the metric counts it, and one log line says why
// without the address or the link.
func (w *SendWorker) giveUp(ctx context.Context, job *river.Job[SendArgs], reason string, err error) error {
	if _, derr := w.DB.Exec(ctx, `DELETE FROM mail_outbox WHERE id = $1`, job.Args.OutboxID); derr != nil {
		return fmt.Errorf("forget failed mail: %w", derr)
	}
	if w.Failed != nil {
		w.Failed.WithLabelValues(string(job.Args.MailKind)).Inc()
	}
	w.Logger.Error("mail failed permanently", "mail_id", job.Args.OutboxID, "user_id", job.Args.UserID,
		"kind", string(job.Args.MailKind), "reason", reason, "attempt", job.Attempt, "err", err.Error())
	return river.JobCancel(err)
}

var emailLike = regexp.MustCompile(`[^\s<>"':;,]+@[^\s<>"':;,]+`)

// Scrub removes the recipient, any address-like text and every template
// value (links) from an error message before it is logged or stored.
func Scrub(msg, to string, data map[string]string) string {
	if to != "" {
		msg = strings.ReplaceAll(msg, to, "<recipient>")
	}
	for _, v := range data {
		if len(v) >= 8 {
			msg = strings.ReplaceAll(msg, v, "<data>")
		}
	}
	return emailLike.ReplaceAllString(msg, "<address>")
}
