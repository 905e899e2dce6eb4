package mail_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"
	"gocloud.dev/blob/memblob"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/dbtest"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/mail"
	"github.com/photo3d/photo3d/internal/mail/smtptest"
	"github.com/photo3d/photo3d/internal/subscription"
)

// syncBuffer collects every log line of a test (account service, mail
// worker, River) so the test can prove no address or link was logged.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type queueBundle struct {
	db       *dbtest.DB
	accounts *account.Service
	smtp     *smtptest.Server
	logs     *syncBuffer
	log      *slog.Logger
	failed   *prometheus.CounterVec
	sent     *prometheus.CounterVec
}

// setupQueue is the api side: an account service whose mail goes through
// mail.Queue with an insert-only River client, as in cmd/api.
func setupQueue(t *testing.T) *queueBundle {
	t.Helper()
	db := dbtest.New(t)
	logs := &syncBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	insert, err := river.NewClient(riverpgxv5.New(db.Pool), &river.Config{Logger: log})
	require.NoError(t, err)
	store := eventstore.New(events.Domain())
	bucket := memblob.OpenBucket(nil)
	t.Cleanup(func() { _ = bucket.Close() })
	accounts, err := account.NewService(db.Pool, store, subscription.NewService(store, subscription.TestMode{}), account.Options{
		PublicBaseURL: "http://shop.test", Bucket: bucket, Logger: log, Mailer: mail.Queue{River: insert},
		HashParams: account.HashParams{MemoryKiB: 1024, Time: 1, Threads: 1, KeyLen: 32, SaltLen: 16},
	})
	require.NoError(t, err)
	return &queueBundle{db: db, accounts: accounts, smtp: newRelay(t), logs: logs, log: log,
		failed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "f"}, []string{"kind"}),
		sent:   prometheus.NewCounterVec(prometheus.CounterOpts{Name: "s"}, []string{"kind"})}
}

// startWorker is cmd/worker's side: a River client running mail.SendWorker
// against the test relay, with a short backoff (River's own retry path).
// stop ends it the way a process stops.
func (b *queueBundle) startWorker(t *testing.T) (stop func()) {
	t.Helper()
	workers := river.NewWorkers()
	river.AddWorker(workers, &mail.SendWorker{DB: b.db.Pool, Logger: b.log, Sent: b.sent, Failed: b.failed,
		Sender:  mail.SMTP{Addr: b.smtp.Addr(), From: "Photo3D <no-reply@photo3d.test>", Timeout: 5 * time.Second},
		Backoff: func(attempt int) time.Duration { return min(time.Duration(attempt)*200*time.Millisecond, time.Second) }})
	rc, err := river.NewClient(riverpgxv5.New(b.db.Pool), &river.Config{Logger: b.log,
		Queues: map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 2}}, Workers: workers,
		FetchCooldown: 20 * time.Millisecond, FetchPollInterval: 50 * time.Millisecond, TestOnly: true})
	require.NoError(t, err)
	require.NoError(t, rc.Start(context.Background()))
	var once sync.Once
	stop = func() {
		once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = rc.StopAndCancel(ctx)
		})
	}
	t.Cleanup(stop)
	return stop
}

// newRelay is the relay the worker sends through, closed with the test.
func newRelay(t *testing.T) *smtptest.Server {
	t.Helper()
	s, err := smtptest.New()
	require.NoError(t, err)
	t.Cleanup(s.Close)
	return s
}

func (b *queueBundle) waitMail(t *testing.T, within time.Duration) string {
	t.Helper()
	select {
	case m := <-b.smtp.Received:
		return "RCPT " + m.To + "\r\n" + m.Data
	case <-time.After(within):
		t.Fatalf("no mail arrived within %s", within)
		return ""
	}
}

func counterValue(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	require.NoError(t, c.Write(&m))
	return m.GetCounter().GetValue()
}

var linkToken = regexp.MustCompile(`token=([A-Za-z0-9_-]+)`)

// requireNothingPersonal: no log line, River job (arguments or recorded
// errors) or leftover outbox row holds the address or the link's token.
func (b *queueBundle) requireNothingPersonal(t *testing.T, secrets ...string) {
	t.Helper()
	logs := b.logs.String()
	var jobs strings.Builder
	rows, err := b.db.Pool.Query(context.Background(), `SELECT args::text, errors::text FROM river_job WHERE kind = 'mail'`)
	require.NoError(t, err)
	for rows.Next() {
		var args string
		var errs *string
		require.NoError(t, rows.Scan(&args, &errs))
		jobs.WriteString(args)
		if errs != nil {
			jobs.WriteString(*errs)
		}
	}
	require.NoError(t, rows.Err())
	require.NotEmpty(t, jobs.String(), "the mail went through a River job")
	for _, s := range secrets {
		require.NotEmpty(t, s)
		require.NotContains(t, logs, s, "a log line holds personal data or a link")
		require.NotContains(t, jobs.String(), s, "a River job holds personal data or a link")
	}
	require.Eventually(t, func() bool {
		var left int
		require.NoError(t, b.db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM mail_outbox`).Scan(&left))
		return left == 0
	}, 5*time.Second, 10*time.Millisecond, "sent or failed mail leaves no row holding its address and link")
}

// Issue 31 part 4: the relay is down while a merchant signs up; the
// verification mail arrives once it is back, and its link works. The relay
// refuses connections for MAIL_TEST_OUTAGE (3 s by default; the 30 s
// with MAIL_TEST_OUTAGE=30s), then answers 451 (temporary) once, then accepts.
func TestSignupMailArrivesAfterSMTPOutage(t *testing.T) {
	t.Parallel()
	outage := 3 * time.Second
	if v := os.Getenv("MAIL_TEST_OUTAGE"); v != "" {
		d, err := time.ParseDuration(v)
		require.NoError(t, err)
		outage = d
	}
	b := setupQueue(t)
	b.smtp.Down()
	b.startWorker(t)

	const email = "ada.outage@example.com"
	_, err := b.accounts.Signup(context.Background(), account.SignupInput{Email: email, Password: "password1", Name: "Ada"})
	require.NoError(t, err)

	time.Sleep(outage)
	var attempts int
	require.NoError(t, b.db.Pool.QueryRow(context.Background(), `SELECT max(attempt) FROM river_job WHERE kind = 'mail'`).Scan(&attempts))
	require.Greater(t, attempts, 1, "the worker kept retrying while the relay was down")
	select {
	case m := <-b.smtp.Received:
		t.Fatalf("mail arrived while the relay was down: %q", m)
	default:
	}

	b.smtp.ReplyToRcpt("451 4.3.0 try again later")
	require.NoError(t, b.smtp.Up())
	require.Eventually(t, func() bool { return b.smtp.Sessions() > 0 }, 10*time.Second, 20*time.Millisecond)
	b.smtp.ReplyToRcpt("")
	got := b.waitMail(t, 15*time.Second)
	require.Contains(t, got, "RCPT "+email)
	require.Contains(t, got, "Subject: Verify your Photo3D email address")
	m := linkToken.FindStringSubmatch(got)
	require.NotNil(t, m, "the mail carries the verification link")

	// The link signs the new account in: the token stored is the one mailed.
	u, err := b.accounts.VerifyEmail(context.Background(), m[1])
	require.NoError(t, err)
	require.True(t, u.EmailVerified)
	// The relay's 250 comes before the worker forgets the row and counts.
	require.Eventually(t, func() bool { return counterValue(t, b.sent.WithLabelValues("verify_email")) == 1 }, 5*time.Second, 10*time.Millisecond)
	require.Zero(t, counterValue(t, b.failed.WithLabelValues("verify_email")))
	b.requireNothingPersonal(t, email, m[1])
}

// Issue 31 part 4: mail queued while no worker runs (or one stops mid-way,
// as in a deploy or a crash) is sent by the next worker: the job and its
// outbox row are in Postgres, not in a process's memory.
func TestResetMailSurvivesARestart(t *testing.T) {
	t.Parallel()
	b := setupQueue(t)
	const email = "grace.restart@example.com"
	u, err := b.accounts.Signup(context.Background(), account.SignupInput{Email: email, Password: "password1", Name: "Grace"})
	require.NoError(t, err)
	b.db.VerifiedUser(t, u.ID)

	// The first worker finds the relay down and is stopped with the mail
	// pending; the account service is the api, which then "restarts".
	b.smtp.Down()
	stop := b.startWorker(t)
	require.NoError(t, b.accounts.RequestPasswordReset(context.Background(), email))
	require.Eventually(t, func() bool {
		var n int
		_ = b.db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM river_job WHERE kind = 'mail' AND attempt >= 1 AND state <> 'completed'`).Scan(&n)
		return n == 2 // verification and reset, both tried and pending
	}, 10*time.Second, 20*time.Millisecond)
	stop()

	require.NoError(t, b.smtp.Up())
	b.startWorker(t)
	subjects := map[string]string{}
	for range 2 {
		got := b.waitMail(t, 15*time.Second)
		for _, line := range strings.Split(got, "\r\n") {
			if s, ok := strings.CutPrefix(line, "Subject: "); ok {
				subjects[s] = got
			}
		}
	}
	reset, ok := subjects["Reset your Photo3D password"]
	require.True(t, ok, "the reset mail arrived after the restart: %v", subjects)
	m := linkToken.FindStringSubmatch(reset)
	require.NotNil(t, m)
	require.NoError(t, b.accounts.ResetPassword(context.Background(), m[1], "new-password-2"))
	require.Eventually(t, func() bool { return counterValue(t, b.sent.WithLabelValues("password_reset")) == 1 }, 5*time.Second, 10*time.Millisecond)
	b.requireNothingPersonal(t, email, m[1])
}

// A permanent refusal (SMTP 5xx) is not retried: the job is cancelled, the
// operator's metric counts it, one log line says so — without the address
// (which the relay's reply echoes) or the link — and the row is gone.
func TestPermanentFailureIsCountedAndLoggedWithoutPersonalData(t *testing.T) {
	t.Parallel()
	b := setupQueue(t)
	const email = "nobody.here@example.com"
	b.smtp.ReplyToRcpt("550 5.1.1 <" + email + ">: Recipient address rejected: User unknown")
	b.startWorker(t)
	_, err := b.accounts.Signup(context.Background(), account.SignupInput{Email: email, Password: "password1", Name: "Nobody"})
	require.NoError(t, err)

	var state string
	var attempt int
	require.Eventually(t, func() bool {
		_ = b.db.Pool.QueryRow(context.Background(), `SELECT state, attempt FROM river_job WHERE kind = 'mail'`).Scan(&state, &attempt)
		return state == "cancelled"
	}, 10*time.Second, 20*time.Millisecond)
	require.Equal(t, 1, attempt, "a 5xx is permanent: no retry")
	require.Equal(t, 1.0, counterValue(t, b.failed.WithLabelValues("verify_email")))
	require.Contains(t, b.logs.String(), "mail failed permanently")
	require.Contains(t, b.logs.String(), "<recipient>", "the reply is logged with the address scrubbed")

	// The link's token existed only in the (now deleted) outbox row.
	b.requireNothingPersonal(t, email, "verify-email?token=")
}

// Queued mail belongs to its transaction: a request that fails after
// queueing leaves neither a job nor an outbox row.
func TestMailQueuedInARolledBackTransactionIsNeverSent(t *testing.T) {
	t.Parallel()
	b := setupQueue(t)
	insert, err := river.NewClient(riverpgxv5.New(b.db.Pool), &river.Config{Logger: b.log})
	require.NoError(t, err)
	ctx := context.Background()
	tx, err := b.db.Pool.Begin(ctx)
	require.NoError(t, err)
	require.NoError(t, mail.Queue{River: insert}.Enqueue(ctx, tx, mail.Mail{To: "x@example.com", Kind: mail.KindText,
		Data: map[string]string{"subject": "hi", "body": "there"}}))
	require.NoError(t, tx.Rollback(ctx))
	var n int
	require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM river_job) + (SELECT count(*) FROM mail_outbox)`).Scan(&n))
	require.Zero(t, n)

	// An unknown kind fails the request, not a job later.
	tx, err = b.db.Pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	require.Error(t, mail.Queue{River: insert}.Enqueue(ctx, tx, mail.Mail{To: "x@example.com", Kind: "nope"}))
}
