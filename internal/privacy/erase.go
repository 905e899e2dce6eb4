// Package privacy erases personal data: a merchant's whole account (the
// "Delete account" button, a River job) and a shopper's leads across
// merchants (`worker erase-shopper`), and moves personal fields of events
// stored before issue 31 out of the log (`worker migrate-pii`).
//
// Where personal data lives (see events/user.go for why a mutable table and
// not crypto-shredding): a merchant's address and names in user_pii, the
// shoppers' addresses in product_leads, invite and verification addresses in
// invites and email_verifications, files in the blob store under the
// user's id. Events carry ids, not addresses; what the merchant typed
// (names, descriptions, file names…) is in events too, and the erasure
// blanks it there and in the read models (erase_text.go), so every replay
// gives the same read models after it as before.
package privacy

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/analytics"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/mail"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/publish"
)

// EraseArgs is the River job that erases one account. It carries the user
// id only: job arguments outlive the job in River's table.
type EraseArgs struct {
	UserID string `json:"userId"`
}

// Kind implements river.JobArgs.
func (EraseArgs) Kind() string { return "account_erase" }

// DefaultJobTimeout is how long one erasure or export run may take when
// PRIVACY_JOB_TIMEOUT does not say: a large account has many files.
const DefaultJobTimeout = 30 * time.Minute

// InsertOpts implements river.JobArgsWithInsertOpts: one erasure per account
// however often it is asked for, and retries for as long as it takes (every
// step is idempotent, so an attempt cut off half-way is simply run again).
func (EraseArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: river.QueueDefault, MaxAttempts: 100,
		UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// channelRows are the sales-channel rows of an account: the Google feed's
// token (a public capability listing its products), the Shopify shop with
// its sealed Admin token, and the Shopify media records. The request's
// transaction deletes them, so the feed and the token end with the 202
// (security review 3, M1, M2), and the rows step deletes them again for a
// request made before this was done.
var channelRows = []string{
	`DELETE FROM channel_feeds WHERE user_id = $1`,
	`DELETE FROM channel_shopify WHERE user_id = $1`,
	`DELETE FROM channel_shopify_media WHERE user_id = $1`,
}

// Scheduler returns the account.ErasureScheduler cmd/api wires: in the
// request's transaction it queues the erasure job, deletes the sales
// channels' rows (channelRows) and tells every api instance to drop the
// account's cached public pages (they answer 410 Gone from then on,
// publish.Pages checks the account's erasure state).
func Scheduler(rc *river.Client[pgx.Tx]) account.ErasureScheduler {
	return func(ctx context.Context, tx pgx.Tx, userID string) error {
		moved, err := account.OwnWorkspaceTransferred(ctx, tx, userID)
		if err != nil {
			return err
		}
		if moved { // the workspace, its channels and pages stay with their new owner
			if _, err := rc.InsertTx(ctx, tx, EraseArgs{UserID: userID}, nil); err != nil {
				return fmt.Errorf("queue account erasure: %w", err)
			}
			return nil
		}
		for _, q := range channelRows {
			if _, err := tx.Exec(ctx, q, userID); err != nil {
				return fmt.Errorf("end sales channels: %w", err)
			}
		}
		if _, err := rc.InsertTx(ctx, tx, EraseArgs{UserID: userID}, nil); err != nil {
			return fmt.Errorf("queue account erasure: %w", err)
		}
		if _, err := tx.Exec(ctx, `SELECT pg_notify($1, slug) FROM publications WHERE user_id = $2`,
			publish.NotifyChannel, userID); err != nil {
			return fmt.Errorf("take pages down: %w", err)
		}
		return nil
	}
}

// Billing ends what a payment provider holds for the account: the running
// subscription (cancelled now, not at period end) and the customer record
// with its address. stripebilling.Provider implements it; it must be
// idempotent.
type Billing interface {
	EraseCustomer(ctx context.Context, customerID, subscriptionID string) error
}

// EraseWorker runs an account's erasure in steps, each idempotent, so a
// worker killed at any point leaves a job River runs again and that run
// finishes the work: billing, files, database rows, the merchant's text in
// the log and the read models, then personal data and the final mail.
type EraseWorker struct {
	river.WorkerDefaults[EraseArgs]
	DB      *pgxpool.Pool
	Store   *eventstore.Store
	Bucket  *blob.Bucket
	Billing Billing // nil when no payment provider is configured
	Mailer  mail.Sender
	Logger  *slog.Logger
	// BaseURL starts the sign-up link of the final mail.
	BaseURL string
	Now     func() time.Time
	// AttemptTimeout limits one run (PRIVACY_JOB_TIMEOUT); zero:
	// DefaultJobTimeout. River's rescuer re-runs the job of a worker that
	// died only after this, so it bounds how long an erasure waits after a
	// crash too.
	AttemptTimeout time.Duration
	// afterStep, in tests, runs after each step (to cut a run short).
	afterStep func(ctx context.Context, step string) error
}

// Timeout implements river.Worker: a large account has many files.
func (w *EraseWorker) Timeout(*river.Job[EraseArgs]) time.Duration {
	return cmp.Or(w.AttemptTimeout, DefaultJobTimeout)
}

// Work implements river.Worker.
func (w *EraseWorker) Work(ctx context.Context, j *river.Job[EraseArgs]) error {
	return w.Erase(ctx, j.Args.UserID)
}

// Steps of an erasure, in order.
const (
	StepBilling = "billing"
	StepFiles   = "files"
	StepRows    = "rows"
	StepText    = "text"
	StepFinal   = "final"
)

type eraseStep struct {
	name string
	run  func(context.Context, string) error
}

// Erase runs every step for userID; an account that was never asked to be
// erased is left alone (the job cannot be used to delete someone else).
func (w *EraseWorker) Erase(ctx context.Context, userID string) error {
	var requested, erased *time.Time
	err := w.DB.QueryRow(ctx, `SELECT erasure_requested_at, erased_at FROM users WHERE id = $1`, userID).Scan(&requested, &erased)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && requested == nil) {
		w.Logger.Warn("erasure job for an account that did not ask for it; nothing done", "user_id", userID)
		return nil
	}
	if err != nil {
		return fmt.Errorf("read account: %w", err)
	}
	if erased != nil {
		return nil
	}
	steps := []eraseStep{{StepBilling, w.billing}, {StepFiles, w.files}, {StepRows, w.rows}, {StepText, w.text}, {StepFinal, w.final}}
	// A founder who transferred their workspace (issue 51) takes only their
	// personal data: the workspace's rows, files, texts and billing stay
	// with its new owner.
	moved, err := account.OwnWorkspaceTransferred(ctx, w.DB, userID)
	if err != nil {
		return err
	}
	if moved {
		steps = []eraseStep{{StepRows, w.personalRows}, {StepFinal, w.final}}
	}
	for _, s := range steps {
		if err := s.run(ctx, userID); err != nil {
			return fmt.Errorf("erase account, step %s: %w", s.name, err)
		}
		if w.afterStep != nil {
			if err := w.afterStep(ctx, s.name); err != nil {
				return err
			}
		}
	}
	w.Logger.Info("account erased", "user_id", userID)
	return nil
}

func (w *EraseWorker) billing(ctx context.Context, userID string) error {
	var customer, sub *string
	err := w.DB.QueryRow(ctx, `SELECT billing_customer_id, billing_subscription_id FROM subscriptions WHERE user_id = $1`, userID).
		Scan(&customer, &sub)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && customer == nil && sub == nil) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read billing ids: %w", err)
	}
	if w.Billing == nil {
		return errors.New("the account has a payment provider customer but no provider is configured on this worker")
	}
	return w.Billing.EraseCustomer(ctx, deref(customer), deref(sub))
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// ownedPrefixes are the blob key prefixes under which everything belongs to
// one user (see upload, job, catalog, account): photos, cut-outs, models,
// thumbnails, masks, avatars, logos, data exports and the files of an
// uploaded model not prepared yet (their keys end in the merchant's file
// names, which the text step then blanks in product_models).
var ownedPrefixes = []string{"uploads/", "cutouts/", "models/", "avatars/", "logos/", "thumbnails/", "exports/", "model-sources/"}

// files deletes every blob of the account while it holds the account's
// file lock (account.LockFilesForErasure): a build or an export still
// writing the account's files finishes first and its files are deleted
// here, and one starting later sees the erasure and writes nothing.
func (w *EraseWorker) files(ctx context.Context, userID string) error {
	return pgdb.WithTx(ctx, w.DB, func(tx pgx.Tx) error {
		if err := account.LockFilesForErasure(ctx, tx, userID); err != nil {
			return err
		}
		return w.deleteFiles(ctx, userID)
	})
}

// deleteFiles deletes every blob of the account: its own prefixes, every
// key its rows name, and the variant GLBs built from its models
// (glbvariants keys them by a hash, so they are found through the model key
// recorded in their metadata; listing every variant is fine for a rare,
// background job).
func (w *EraseWorker) deleteFiles(ctx context.Context, userID string) error {
	for _, p := range ownedPrefixes {
		if err := w.deleteAll(ctx, p+userID+"/", nil); err != nil {
			return err
		}
	}
	// Keys the account's rows name, wherever they are (older layouts).
	rows, err := w.DB.Query(ctx, `SELECT k FROM (
			SELECT blob_key AS k FROM uploads WHERE user_id = $1
			UNION SELECT blob_key FROM upload_cutouts WHERE user_id = $1
			UNION SELECT unnest(ARRAY[image_key, model_key, thumbnail_key, mask_key, parts_map_key]) FROM jobs WHERE user_id = $1
			UNION SELECT key FROM assets WHERE user_id = $1
			UNION SELECT unnest(source_keys || ARRAY[model_key, thumbnail_key]) FROM product_models WHERE user_id = $1) keys
		WHERE k <> ''`, userID)
	if err != nil {
		return fmt.Errorf("list the account's files: %w", err)
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("list the account's files: %w", err)
	}
	models := map[string]bool{}
	for _, k := range keys {
		if strings.HasSuffix(k, ".glb") {
			models[k] = true
		}
		if err := w.Bucket.Delete(ctx, k); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
			return fmt.Errorf("delete %s: %w", k, err)
		}
	}
	return w.deleteVariants(ctx, "models/"+userID+"/", models)
}

// deleteVariants deletes the variant files built from the account's models.
// Every file built for one variant lives in that variant's folder
// (variants/<hash>/): the GLBs name their model in their metadata, but the
// channel files built from the AR GLB (the Quick Look USDZ, the commerce
// GLB) written before they carried it do not (security review 3, M2). So a
// folder with a file naming one of the account's models goes as a whole,
// the files naming the model last: a run cut off half-way still finds the
// folder the next time.
func (w *EraseWorker) deleteVariants(ctx context.Context, modelPrefix string, models map[string]bool) error {
	it := w.Bucket.List(&blob.ListOptions{Prefix: "variants/"})
	byDir := map[string][]string{}
	mine := map[string]bool{}
	var named []string
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("list variants/: %w", err)
		}
		if obj.IsDir {
			continue
		}
		a, err := w.Bucket.Attributes(ctx, obj.Key)
		if gcerrors.Code(err) == gcerrors.NotFound {
			continue
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", obj.Key, err)
		}
		dir := path.Dir(obj.Key)
		if m := a.Metadata["model"]; m != "" && (strings.HasPrefix(m, modelPrefix) || models[m]) {
			mine[dir] = true
			named = append(named, obj.Key)
			continue
		}
		byDir[dir] = append(byDir[dir], obj.Key)
	}
	var keys []string
	for dir := range mine {
		keys = append(keys, byDir[dir]...)
	}
	for _, k := range append(keys, named...) {
		if err := w.Bucket.Delete(ctx, k); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
			return fmt.Errorf("delete %s: %w", k, err)
		}
	}
	return nil
}

func (w *EraseWorker) deleteAll(ctx context.Context, prefix string, keep func(string) (bool, error)) error {
	it := w.Bucket.List(&blob.ListOptions{Prefix: prefix})
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("list %s: %w", prefix, err)
		}
		if obj.IsDir {
			continue
		}
		if keep != nil {
			del, err := keep(obj.Key)
			if err != nil {
				return fmt.Errorf("read %s: %w", obj.Key, err)
			}
			if !del {
				continue
			}
		}
		if err := w.Bucket.Delete(ctx, obj.Key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
			return fmt.Errorf("delete %s: %w", obj.Key, err)
		}
	}
}

// rows deletes, in one transaction, every row that is not a read model of
// the log and holds the account's data or its shoppers': leads, raw
// analytics and their roll-ups, webhook deliveries (payloads), idempotency
// records (stored response bodies), API key secrets, invites it used,
// sign-out records. Read models rebuilt from the log keep their rows, ids
// and times as tombstones; the text step blanks what the merchant typed in
// them and in the log alike, so replays stay identical.
func (w *EraseWorker) rows(ctx context.Context, userID string) error {
	var days []time.Time
	err := pgdb.WithTx(ctx, w.DB, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `WITH d AS (DELETE FROM shopper_events WHERE user_id = $1 RETURNING at)
			SELECT DISTINCT date_trunc('day', at AT TIME ZONE 'UTC') FROM d`, userID)
		if err != nil {
			return fmt.Errorf("delete analytics: %w", err)
		}
		if days, err = pgx.CollectRows(rows, pgx.RowTo[time.Time]); err != nil {
			return fmt.Errorf("delete analytics: %w", err)
		}
		for _, q := range []string{
			`DELETE FROM product_leads WHERE user_id = $1`,
			`DELETE FROM experiments WHERE user_id = $1`, // arm names are the merchant's text
			`DELETE FROM shopper_days WHERE user_id = $1`,
			`DELETE FROM shopper_day_cells WHERE user_id = $1`,
			`DELETE FROM webhook_deliveries WHERE user_id = $1`,
			// The request only marked them removed; their URL and signing
			// secret go now (after the deliveries that reference them).
			`DELETE FROM webhook_endpoints WHERE user_id = $1`,
			`DELETE FROM idempotency_keys WHERE user_id = $1`,
			`DELETE FROM api_key_secrets WHERE key_id IN (SELECT id FROM api_keys WHERE user_id = $1)`,
			`DELETE FROM invites WHERE used_by = $1`,
			`DELETE FROM revoked_tokens WHERE user_id = $1`,
			`DELETE FROM data_exports WHERE user_id = $1`,
			// An open Checkout Session's URL shows the customer's address.
			`DELETE FROM billing_checkout_sessions WHERE user_id = $1`,
			// The team (issue 51): invitation addresses, and the approval
			// comments the text step blanks in the log too.
			`DELETE FROM team_invites WHERE workspace_id = $1`,
			`UPDATE approvals SET comment = '' WHERE workspace_id = $1 AND comment <> ''`,
		} {
			if _, err := tx.Exec(ctx, q, userID); err != nil {
				return fmt.Errorf("delete account rows (%s): %w", q, err)
			}
		}
		for _, q := range channelRows {
			if _, err := tx.Exec(ctx, q, userID); err != nil {
				return fmt.Errorf("delete account rows (%s): %w", q, err)
			}
		}
		// Unsent account mail (a verification or reset link) holds the
		// address: it goes too, and its mail jobs end without sending.
		return mail.ErasePending(ctx, tx, userID)
	})
	if err != nil {
		return err
	}
	// The global per-day bookkeeping follows the raw rows that are left.
	for _, d := range days {
		if _, err := analytics.Rollup(ctx, w.DB, time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, time.UTC)); err != nil {
			return err
		}
	}
	return nil
}

// personalRows is the rows step of a founder whose workspace was
// transferred: only what is the person's (their sign-in records, exports,
// invite codes and unsent mail to their address), not the workspace's.
func (w *EraseWorker) personalRows(ctx context.Context, userID string) error {
	return pgdb.WithTx(ctx, w.DB, func(tx pgx.Tx) error {
		for _, q := range []string{
			`DELETE FROM invites WHERE used_by = $1`,
			`DELETE FROM revoked_tokens WHERE user_id = $1`,
			`DELETE FROM data_exports WHERE user_id = $1`,
			`DELETE FROM mail_outbox WHERE user_id = $1 AND to_address = (SELECT email FROM user_pii WHERE user_id = $1)`,
		} {
			if _, err := tx.Exec(ctx, q, userID); err != nil {
				return fmt.Errorf("delete personal rows (%s): %w", q, err)
			}
		}
		return nil
	})
}

// final sends the goodbye mail, then deletes the personal data and records
// user.erased.v1 in one transaction: the address may sign up again from
// that commit. A crash between the mail and the commit sends it twice,
// never zero times.
func (w *EraseWorker) final(ctx context.Context, userID string) error {
	var email string
	err := w.DB.QueryRow(ctx, `SELECT email FROM user_pii WHERE user_id = $1`, userID).Scan(&email)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("read address: %w", err)
	}
	if email != "" {
		if err := w.sendErasedMail(ctx, userID, email); err != nil {
			return err
		}
	}
	ctx = eventstore.WithMetadata(ctx, eventstore.Metadata{Actor: "system-erasure"})
	return pgdb.WithTx(ctx, w.DB, func(tx pgx.Tx) error {
		for _, q := range []string{
			`DELETE FROM user_pii WHERE user_id = $1`,
			`DELETE FROM account_security WHERE user_id = $1`,
			`DELETE FROM notification_reads WHERE user_id = $1`,
		} {
			if _, err := tx.Exec(ctx, q, userID); err != nil {
				return fmt.Errorf("delete personal data: %w", err)
			}
		}
		envs, err := w.Store.Append(ctx, tx, account.UserStream(userID), eventstore.AnyVersion,
			events.UserErased{UserID: userID, At: w.now().UTC()})
		if err != nil {
			return err
		}
		for _, e := range envs {
			if err := account.Project(ctx, tx, e); err != nil {
				return err
			}
		}
		return nil
	})
}

// sendErasedMail is the only place the erasure mails. It sends from this
// River job rather than through the mail outbox: the job is already durable
// and retried with backoff (a failed send fails the step, and the attempt is
// run again), and an outbox row would put the address back into a table the
// moment the account's personal data is deleted. Its Message-ID is the same
// on every attempt, so a resend shows as one mail.
func (w *EraseWorker) sendErasedMail(ctx context.Context, userID, to string) error {
	err := w.Mailer.Send(ctx, mail.Message{ID: "account-erased-" + userID, To: to, Subject: "Your Photo3D account has been deleted",
		Body: "Your Photo3D account and its data have been deleted as you asked: your products, 3D models, photos, " +
			"published pages, leads and analytics are gone, and your subscription was cancelled.\n\n" +
			"You can create a new account with this address at any time: " + strings.TrimRight(w.BaseURL, "/") + "/signup\n",
		SentAt: w.now().UTC()})
	if err != nil {
		return fmt.Errorf("send the erasure mail: %w", err)
	}
	return nil
}

func (w *EraseWorker) now() time.Time {
	if w.Now != nil {
		return w.Now()
	}
	return time.Now()
}
