package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
)

// Retry defaults: the first retry after 30 s, doubling, at most an hour
// apart, for 24 h after the first attempt (about 30 attempts).
const (
	DefaultRetryWindow = 24 * time.Hour
	DefaultRetryBase   = 30 * time.Second
	DefaultRetryMax    = time.Hour
)

// DeliverWorker posts one delivery per River job. It is idempotent: a
// delivery already delivered or failed is not sent again, so a job River runs
// twice (a rescued job, a restarted worker) cannot double-send a success.
type DeliverWorker struct {
	river.WorkerDefaults[DeliverArgs]
	DB     *pgxpool.Pool
	Client *http.Client // Guard.Client(): refuses non-public addresses
	Logger *slog.Logger
	// Window is how long after the first attempt failures are retried
	// (WEBHOOK_RETRY_WINDOW); Base and Max shape the exponential backoff.
	// Zero values take the defaults; tests shorten them.
	Window, Base, Max time.Duration
	Now               func() time.Time
}

func (w *DeliverWorker) now() time.Time {
	if w.Now != nil {
		return w.Now()
	}
	return time.Now()
}

// Timeout implements river.Worker: the attempt's own limit plus a margin for
// the bookkeeping around it.
func (w *DeliverWorker) Timeout(*river.Job[DeliverArgs]) time.Duration {
	return AttemptTimeout + 20*time.Second
}

// backoff is the wait after the n-th failed attempt: Base·2^(n-1), at most Max.
func (w *DeliverWorker) backoff(n int) time.Duration {
	base, ceil := w.Base, w.Max
	if base <= 0 {
		base = DefaultRetryBase
	}
	if ceil <= 0 {
		ceil = DefaultRetryMax
	}
	d := base
	for i := 1; i < n && d < ceil; i++ {
		d *= 2
	}
	return min(d, ceil)
}

func (w *DeliverWorker) window() time.Duration {
	if w.Window <= 0 {
		return DefaultRetryWindow
	}
	return w.Window
}

// NextRetry implements river.Worker: the time Work wrote into the delivery
// log as next_retry_at, so what the merchant reads is what River does.
//
// A time already past is returned as now: River treats a retry time before
// its own clock reading as invalid and falls back to its default policy
// (attempt⁴ seconds: over ten minutes at the fifth attempt, days later on),
// and the last retry, placed at the window's end, can be only milliseconds
// ahead when Work records it.
func (w *DeliverWorker) NextRetry(job *river.Job[DeliverArgs]) time.Time {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var next *time.Time
	err := w.DB.QueryRow(ctx, `SELECT next_retry_at FROM webhook_deliveries WHERE id = $1`, job.Args.DeliveryID).Scan(&next)
	now := w.now()
	if err != nil || next == nil {
		return now.Add(w.backoff(job.Attempt))
	}
	if next.Before(now) {
		return now
	}
	return *next
}

type target struct {
	url, secret, payload, eventType, state, userID string
	removed                                        bool
	firstAttempt                                   *time.Time
}

// Work sends the delivery once and records the attempt.
func (w *DeliverWorker) Work(ctx context.Context, job *river.Job[DeliverArgs]) error {
	id := job.Args.DeliveryID
	var t target
	err := w.DB.QueryRow(ctx, `SELECT e.url, e.secret, d.payload, d.event_type, d.state, d.user_id, e.removed_at IS NOT NULL, d.first_attempt_at
		FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE d.id = $1`, id).
		Scan(&t.url, &t.secret, &t.payload, &t.eventType, &t.state, &t.userID, &t.removed, &t.firstAttempt)
	if errors.Is(err, pgx.ErrNoRows) {
		return river.JobCancel(fmt.Errorf("delivery %s no longer exists", id))
	}
	if err != nil {
		return fmt.Errorf("load delivery: %w", err)
	}
	if t.state != StatePending {
		return nil
	}
	now := w.now().UTC()
	if t.removed {
		return w.finish(ctx, id, StateFailed, now, nil, "The endpoint was deleted; delivery stopped.", "", false)
	}
	if t.eventType == EventLeadCaptured {
		body, found, err := withLeadEmail(ctx, w.DB, t.userID, t.payload)
		if err != nil {
			return err
		}
		if !found {
			return w.finish(ctx, id, StateFailed, now, nil, "The lead was deleted; delivery stopped.", "", false)
		}
		t.payload = body
	}
	first := now
	if t.firstAttempt != nil {
		first = *t.firstAttempt
	}

	status, snippet, sendErr := w.send(ctx, t, id, now)
	done := w.now().UTC()
	if sendErr == nil && status >= 200 && status < 300 {
		return w.finish(ctx, id, StateDelivered, done, &status, "", snippet, true)
	}
	msg := describe(status, sendErr)
	deadline := first.Add(w.window())
	if !done.Before(deadline) {
		if err := w.finish(ctx, id, StateFailed, done, statusPtr(status), msg+" Gave up: retries stopped "+w.window().String()+" after the first attempt.", snippet, true); err != nil {
			return err
		}
		if w.Logger != nil {
			// Ids only: the URL may carry a token and the secret never leaves the table.
			w.Logger.Warn("webhook delivery failed for good", "delivery", id, "event_type", t.eventType, "attempts", job.Attempt, "status", status)
		}
		return river.JobCancel(errors.New(msg))
	}
	// The last retry is placed at the deadline rather than past it.
	next := done.Add(w.backoff(job.Attempt))
	if next.After(deadline) {
		next = deadline
	}
	_, err = w.DB.Exec(ctx, `UPDATE webhook_deliveries SET attempts = attempts + 1, last_status = $2, last_error = $3,
		last_response = $4, first_attempt_at = coalesce(first_attempt_at, $5), last_attempt_at = $6, next_retry_at = $7
		WHERE id = $1 AND state = 'pending'`, id, statusPtr(status), msg, snippet, first, done, next)
	if err != nil {
		return fmt.Errorf("record attempt: %w", err)
	}
	return errors.New(msg) // River retries at NextRetry
}

// withLeadEmail returns a lead.captured payload with the shopper's email as
// product_leads holds it now; found is false when the merchant deleted the
// lead (then nothing is sent). The stored payload never carries the address.
func withLeadEmail(ctx context.Context, db *pgxpool.Pool, userID, payload string) (string, bool, error) {
	var p Payload
	if err := json.Unmarshal([]byte(payload), &p); err != nil {
		return "", false, fmt.Errorf("decode lead payload: %w", err)
	}
	leadID, _ := p.Data["leadId"].(string)
	var email string
	err := db.QueryRow(ctx, `SELECT email FROM product_leads WHERE id = $1 AND user_id = $2`, leadID, userID).Scan(&email)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read lead: %w", err)
	}
	p.Data["email"] = email
	b, err := json.Marshal(p)
	if err != nil {
		return "", false, fmt.Errorf("encode lead payload: %w", err)
	}
	return string(b), true, nil
}

func statusPtr(s int) *int {
	if s == 0 {
		return nil
	}
	return &s
}

// finish records a delivery's end: delivered or failed after an attempt, or
// failed without one (attempted false: the endpoint was deleted meanwhile).
func (w *DeliverWorker) finish(ctx context.Context, id, state string, at time.Time, status *int, msg, snippet string, attempted bool) error {
	sql := `UPDATE webhook_deliveries SET state = $2, attempts = attempts + 1, last_status = $3, last_error = $4,
		last_response = $5, first_attempt_at = coalesce(first_attempt_at, $6), last_attempt_at = $6,
		next_retry_at = NULL, finished_at = $6 WHERE id = $1 AND state = 'pending'`
	args := []any{id, state, status, msg, snippet, at}
	if !attempted {
		sql = `UPDATE webhook_deliveries SET state = $2, last_error = $3, next_retry_at = NULL, finished_at = $4
			WHERE id = $1 AND state = 'pending'`
		args = []any{id, state, msg, at}
	}
	if _, err := w.DB.Exec(ctx, sql, args...); err != nil {
		return fmt.Errorf("record delivery: %w", err)
	}
	return nil
}

// send posts the payload with the signature headers; it returns the status
// (0 when no answer came) and the start of the answer's body.
func (w *DeliverWorker) send(ctx context.Context, t target, deliveryID string, at time.Time) (int, string, error) {
	ctx, cancel := context.WithTimeout(ctx, AttemptTimeout)
	defer cancel()
	body := []byte(t.payload)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Photo3D-Webhooks/1")
	req.Header.Set(HeaderSignature, Sign(t.secret, at, body))
	req.Header.Set(HeaderEvent, t.eventType)
	req.Header.Set(HeaderDelivery, deliveryID)
	client := w.Client
	if client == nil {
		client = Guard{}.Client()
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // let the connection be reused
	return resp.StatusCode, clip(b), nil
}

// clip keeps valid UTF-8 only (the log column is text; the 1 KB cut may
// split a character).
func clip(b []byte) string {
	return strings.ToValidUTF8(string(b), "")
}

// describe is the delivery log's error text for a failed attempt.
func describe(status int, err error) string {
	switch {
	case err != nil && errors.Is(err, ErrForbiddenAddress):
		// url.Error puts `Post "…": ` in front; the guard's own words suffice.
		msg := err.Error()
		if i := strings.Index(msg, ErrForbiddenAddress.Error()+": "); i >= 0 {
			msg = msg[i+len(ErrForbiddenAddress.Error())+2:]
		}
		return "Refused: " + msg + "."
	case err != nil && errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("No answer within %s.", AttemptTimeout)
	case err != nil:
		return "Could not connect: " + err.Error()
	case status >= 300 && status < 400:
		return fmt.Sprintf("The endpoint answered %d (redirects are not followed).", status)
	default:
		return fmt.Sprintf("The endpoint answered %d.", status)
	}
}
