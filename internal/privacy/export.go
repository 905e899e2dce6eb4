package privacy

import (
	"archive/zip"
	"bytes"
	"cmp"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/mail"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// ExportLifetime is how long a data export can be downloaded; then its
// ZIP is deleted (PeriodicExportCleanup) and the status says "expired".
const ExportLifetime = 7 * 24 * time.Hour

// ExportLinkLifetime is how long one download URL works. GET
// /api/users/me/export mints a fresh one each time while the export lives,
// so a link copied out of the browser stops working soon, and the mail and
// the notification point at the signed-in profile page, never at the file.
const ExportLinkLifetime = time.Hour

// ExportArgs is the River job that builds one export (ids only).
type ExportArgs struct {
	ExportID string `json:"exportId"`
}

// Kind implements river.JobArgs.
func (ExportArgs) Kind() string { return "account_export" }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (ExportArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: river.QueueDefault, MaxAttempts: 10, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// Export is what GET /api/users/me/export answers.
type Export struct {
	Status string `json:"status"` // none, pending, ready, failed, expired
	URL    string `json:"url,omitempty"`
	// FileName is what the download is saved as while ready:
	// photo3d-export-YYYY-MM-DD.zip, the day it was asked for (UTC).
	// The link's own path ends in the storage key, so the web app names
	// the file with it (issue 50, P20).
	FileName    string     `json:"fileName,omitempty"`
	RequestedAt *time.Time `json:"requestedAt,omitempty"`
	ExpiresAt   *time.Time `json:"expiresAt,omitempty"`
}

// Signer mints download URLs (blobstore.Store).
type Signer interface {
	SignedGetURL(ctx context.Context, key string, expiry time.Duration) (string, error)
}

// Exports starts and reads a merchant's data exports (issue 31 part 3).
type Exports struct {
	DB     *pgxpool.Pool
	River  *river.Client[pgx.Tx]
	Signer Signer
	Now    func() time.Time
}

func (x *Exports) now() time.Time {
	if x.Now != nil {
		return x.Now()
	}
	return time.Now()
}

// MaxExportsPerDay is how many exports an account may start in 24 hours
// (security review 3, M4). Each is a full copy of the account's files, so a
// loop of "request, wait, request" filled the disk; with one live ZIP per
// account (ExportWorker deletes the previous one) and this rate, an account
// costs at most one copy on disk and a few builds a day, while a merchant
// who changed something still gets a fresh copy the same day.
const MaxExportsPerDay = 3

// MsgExportRateLimited answers a request over MaxExportsPerDay; %s is when
// the next one is allowed.
const MsgExportRateLimited = "You can request at most 3 data exports a day. Your latest export stays available; try again after %s."

// Request starts an export, or returns the one already being built. A
// request while one is pending answers with it; one while an export is
// ready starts a new export, which replaces the ready one when it is
// built (its ZIP is deleted then, so the old copy stays downloadable
// meanwhile). At most MaxExportsPerDay start in 24 hours: the next is
// refused (429) with the time it is allowed again.
func (x *Exports) Request(ctx context.Context, userID string) (Export, error) {
	err := pgdb.WithTx(ctx, x.DB, func(tx pgx.Tx) error {
		// One at a time per account: lock the account's row of the read model.
		if _, err := tx.Exec(ctx, `SELECT 1 FROM users WHERE id = $1 FOR UPDATE`, userID); err != nil {
			return fmt.Errorf("lock account: %w", err)
		}
		var pending bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM data_exports WHERE user_id = $1 AND status = 'pending')`,
			userID).Scan(&pending); err != nil {
			return fmt.Errorf("read exports: %w", err)
		}
		if pending {
			return nil
		}
		now := x.now().UTC()
		var recent int
		var oldest *time.Time
		if err := tx.QueryRow(ctx, `SELECT count(*), min(requested_at) FROM data_exports WHERE user_id = $1 AND requested_at > $2`,
			userID, now.Add(-24*time.Hour)).Scan(&recent, &oldest); err != nil {
			return fmt.Errorf("read exports: %w", err)
		}
		if recent >= MaxExportsPerDay && oldest != nil {
			return fault.New(fault.RateLimited, "export_rate_limited",
				fmt.Sprintf(MsgExportRateLimited, oldest.Add(24*time.Hour).Format("2006-01-02 15:04 UTC")))
		}
		id := uuid.NewString()
		if _, err := tx.Exec(ctx, `INSERT INTO data_exports (id, user_id, status, requested_at) VALUES ($1, $2, 'pending', $3)`,
			id, userID, now); err != nil {
			return fmt.Errorf("record export: %w", err)
		}
		if _, err := x.River.InsertTx(ctx, tx, ExportArgs{ExportID: id}, nil); err != nil {
			return fmt.Errorf("queue export: %w", err)
		}
		return nil
	})
	if err != nil {
		return Export{}, err
	}
	return x.Latest(ctx, userID)
}

// Latest is the newest export of the account, with a fresh download URL
// while it is ready and not expired.
func (x *Exports) Latest(ctx context.Context, userID string) (Export, error) {
	var e Export
	var key string
	var requested time.Time
	var expires *time.Time
	err := x.DB.QueryRow(ctx, `SELECT status, blob_key, requested_at, expires_at FROM data_exports
		WHERE user_id = $1 ORDER BY requested_at DESC, id DESC LIMIT 1`, userID).Scan(&e.Status, &key, &requested, &expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return Export{Status: "none"}, nil
	}
	if err != nil {
		return Export{}, fmt.Errorf("read export: %w", err)
	}
	e.RequestedAt, e.ExpiresAt = &requested, expires
	if e.Status == "ready" && expires != nil && !x.now().Before(*expires) {
		e.Status = "expired"
	}
	if e.Status == "ready" {
		if e.URL, err = x.Signer.SignedGetURL(ctx, key, ExportLinkLifetime); err != nil {
			return Export{}, fmt.Errorf("sign export link: %w", err)
		}
		e.FileName = ExportFileName(requested)
	}
	return e, nil
}

// ExportFileName names the ZIP of an export asked for at t.
func ExportFileName(t time.Time) string {
	return "photo3d-export-" + t.UTC().Format("2006-01-02") + ".zip"
}

var errExportGone = fault.New(fault.NotFound, "not_found", "Export not found.")

// ExportWorker builds the ZIP of an account's data into the blob store.
type ExportWorker struct {
	river.WorkerDefaults[ExportArgs]
	DB     *pgxpool.Pool
	Store  *eventstore.Store
	Bucket *blob.Bucket
	// Mail queues the "ready" mail; nil: the mail outbox through the River
	// client running this job.
	Mail    mail.Enqueuer
	Logger  *slog.Logger
	BaseURL string
	Now     func() time.Time
	// AttemptTimeout limits one run (PRIVACY_JOB_TIMEOUT); zero:
	// DefaultJobTimeout. It is also how long River waits before it re-runs
	// the export of a worker that died.
	AttemptTimeout time.Duration
}

// Timeout implements river.Worker: an account's models and photos may be large.
func (w *ExportWorker) Timeout(*river.Job[ExportArgs]) time.Duration {
	return cmp.Or(w.AttemptTimeout, DefaultJobTimeout)
}

// Work implements river.Worker. It is idempotent: a retry rewrites the
// same ZIP key and marks the export ready once.
func (w *ExportWorker) Work(ctx context.Context, j *river.Job[ExportArgs]) error {
	var userID, status string
	// An account being erased gets no export (the erasure deletes exports/).
	err := w.DB.QueryRow(ctx, `SELECT d.user_id, d.status FROM data_exports d JOIN users u ON u.id = d.user_id
		WHERE d.id = $1 AND u.erasure_requested_at IS NULL`, j.Args.ExportID).Scan(&userID, &status)
	if errors.Is(err, pgx.ErrNoRows) {
		return river.JobCancel(errExportGone)
	}
	if err != nil {
		return fmt.Errorf("read export: %w", err)
	}
	key := "exports/" + userID + "/" + j.Args.ExportID + ".zip"
	if status == "ready" {
		// A retry after the export was marked ready: finish the clean-up.
		return w.deleteOtherZips(ctx, userID, key)
	}
	if status != "pending" {
		return nil
	}
	// The ZIP is written under the account's file lock: an erasure asked for
	// since the check above either waits and deletes it, or is seen here.
	err = pgdb.WithTx(ctx, w.DB, func(tx pgx.Tx) error {
		erasing, err := account.LockFileWrites(ctx, tx, userID)
		if err != nil {
			return err
		}
		if erasing {
			return errExportGone
		}
		return w.build(ctx, userID, key)
	})
	if errors.Is(err, errExportGone) {
		return river.JobCancel(err)
	}
	if err != nil {
		return err
	}
	now := w.now().UTC()
	var email string
	err = pgdb.WithTx(ctx, w.DB, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE data_exports SET status = 'ready', blob_key = $2, ready_at = $3, expires_at = $4
			WHERE id = $1 AND status = 'pending'`, j.Args.ExportID, key, now, now.Add(ExportLifetime))
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		// One live export per account: the new one replaces the ones before.
		if _, err := tx.Exec(ctx, `UPDATE data_exports SET status = 'expired', blob_key = ''
			WHERE user_id = $1 AND id <> $2 AND status = 'ready'`, userID, j.Args.ExportID); err != nil {
			return err
		}
		// The notification comes from the log (notify projection), so a replay keeps it.
		envs, err := w.Store.Append(ctx, tx, account.UserStream(userID), eventstore.AnyVersion,
			events.UserDataExportReady{UserID: userID, ExportID: j.Args.ExportID, At: now})
		if err != nil {
			return err
		}
		for _, e := range envs {
			if err := account.Project(ctx, tx, e); err != nil {
				return err
			}
		}
		err = tx.QueryRow(ctx, `SELECT email FROM user_pii WHERE user_id = $1`, userID).Scan(&email)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		return w.queueExportMail(ctx, tx, userID, email)
	})
	if err != nil {
		return fmt.Errorf("mark export ready: %w", err)
	}
	return w.deleteOtherZips(ctx, userID, key)
}

// deleteOtherZips deletes the account's export ZIPs other than keep: the
// exports it replaced (security review 3, M4). Listing the account's
// prefix rather than the rows' keys also finds a ZIP whose row was
// expired by a run cut off before this.
func (w *ExportWorker) deleteOtherZips(ctx context.Context, userID, keep string) error {
	it := w.Bucket.List(&blob.ListOptions{Prefix: "exports/" + userID + "/"})
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("list exports: %w", err)
		}
		if obj.IsDir || obj.Key == keep {
			continue
		}
		if err := w.Bucket.Delete(ctx, obj.Key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
			return fmt.Errorf("delete %s: %w", obj.Key, err)
		}
	}
}

// queueExportMail queues "your data is ready" in the transaction that marks
// the export ready (the mail outbox of issue 31 part 4: sent by the mail job
// with retries, never lost, and the address stays out of the job's
// arguments). It links to the profile page, never to the file.
func (w *ExportWorker) queueExportMail(ctx context.Context, tx pgx.Tx, userID, to string) error {
	q := w.Mail
	if q == nil {
		q = mail.Queue{River: river.ClientFromContext[pgx.Tx](ctx)}
	}
	return q.Enqueue(ctx, tx, mail.Mail{UserID: userID, To: to, Kind: mail.KindText, Data: map[string]string{
		"subject": "Your Photo3D data is ready to download",
		"body": "The copy of your Photo3D data you asked for is ready. Download it from your profile within 7 days:\n\n" +
			strings.TrimRight(w.BaseURL, "/") + "/workspace/profile\n",
	}})
}

func (w *ExportWorker) now() time.Time {
	if w.Now != nil {
		return w.Now()
	}
	return time.Now()
}

// build writes the ZIP: JSON (and CSV for leads) of the account, branding,
// subscription and its history, products with their configuration,
// catalogs, galleries, publications and leads, the integrations (webhooks,
// API keys, Shopify, the feed) without their secrets, store settings,
// notifications and the account's own history, plus the files (photos,
// models, thumbnails, avatar, logo) under files/. ExportCoverage lists
// what is left out and why.
func (w *ExportWorker) build(ctx context.Context, userID, key string) error {
	bw, err := w.Bucket.NewWriter(ctx, key, &blob.WriterOptions{ContentType: "application/zip"})
	if err != nil {
		return fmt.Errorf("open export: %w", err)
	}
	zw := zip.NewWriter(bw)
	fail := func(err error) error {
		_ = zw.Close()
		_ = bw.Close()
		return err
	}
	docs := []struct{ name, sql string }{
		{"account.json", `SELECT json_build_object('id', u.id, 'email', p.email, 'name', p.name, 'firstName', p.first_name,
			'lastName', p.last_name, 'createdAt', u.created_at, 'avatarKey', u.avatar_key) FROM users u JOIN user_pii p ON p.user_id = u.id WHERE u.id = $1`},
		{"branding.json", `SELECT row_to_json(b) FROM branding b WHERE user_id = $1`},
		{"subscription.json", `SELECT row_to_json(s) FROM subscriptions s WHERE user_id = $1`},
		{"subscription-history.json", `SELECT json_build_object('type', type, 'at', occurred_at, 'data', data) FROM events
			WHERE stream_id = 'subscription-' || $1 ORDER BY position`},
		{"products.json", `SELECT row_to_json(p) FROM products p WHERE user_id = $1 ORDER BY created_at`},
		{"catalogs.json", `SELECT row_to_json(c) FROM catalogs c WHERE user_id = $1`},
		{"galleries.json", `SELECT row_to_json(g) FROM galleries g WHERE user_id = $1`},
		{"blueprints.json", `SELECT row_to_json(j) FROM jobs j WHERE user_id = $1 ORDER BY created_at`},
		{"publications.json", `SELECT json_build_object('publication', row_to_json(p), 'versions',
			(SELECT coalesce(json_agg(row_to_json(v) ORDER BY v.version), '[]') FROM publication_versions v WHERE v.publication_id = p.id))
			FROM publications p WHERE user_id = $1 ORDER BY created_at`},
		{"leads.json", `SELECT json_build_object('id', id, 'productId', product_id, 'publicationId', publication_id, 'email', email,
			'variantId', variant_id, 'consent', consent, 'createdAt', created_at) FROM product_leads WHERE user_id = $1 ORDER BY created_at`},
		// Integrations and settings (security review 3, L6), each without
		// its secret: no webhook signing secret, no key hash, no Shopify
		// token, no feed token (the URL is the capability).
		{"experiments.json", `SELECT json_build_object('id', id, 'productId', product_id, 'publicationId', publication_id, 'goal', goal,
			'trafficShare', traffic_share, 'arms', arms, 'state', state, 'stopReason', stop_reason, 'appliedArmId', applied_arm_id,
			'startedAt', started_at, 'stoppedAt', stopped_at) FROM experiments WHERE user_id = $1 ORDER BY started_at`},
		{"webhooks.json", `SELECT json_build_object('id', id, 'url', url, 'events', events, 'createdAt', created_at, 'removedAt', removed_at)
			FROM webhook_endpoints WHERE user_id = $1 ORDER BY created_at`},
		{"api-keys.json", `SELECT json_build_object('id', k.id, 'name', k.name, 'prefix', k.prefix, 'scopes', k.scopes, 'createdAt', k.created_at,
			'revokedAt', k.revoked_at, 'lastUsedAt', s.last_used_at)
			FROM api_keys k LEFT JOIN api_key_secrets s ON s.key_id = k.id WHERE k.user_id = $1 ORDER BY k.created_at`},
		{"shopify.json", `SELECT json_build_object('shop', c.shop, 'connectedAt', c.connected_at, 'products',
			(SELECT coalesce(json_agg(json_build_object('productId', m.product_id, 'shopifyProductId', m.shopify_product_id,
				'mediaIds', m.media_ids, 'sentAt', m.sent_at) ORDER BY m.sent_at), '[]') FROM channel_shopify_media m WHERE m.user_id = c.user_id))
			FROM channel_shopify c WHERE c.user_id = $1`},
		{"google-feed.json", `SELECT json_build_object('createdAt', created_at, 'rotatedAt', rotated_at) FROM channel_feeds WHERE user_id = $1`},
		{"store-settings.json", `SELECT json_build_object('defaultCurrency', default_currency, 'updatedAt', updated_at)
			FROM store_settings WHERE user_id = $1`},
		{"notifications.json", `SELECT json_build_object('kind', n.kind, 'title', n.title, 'message', n.message, 'link', n.link,
			'createdAt', n.created_at) FROM notifications n WHERE n.user_id = $1 ORDER BY n.created_at`},
		// The team (issue 51): who is in the workspace, with which role,
		// the memberships the account has elsewhere, and the publish
		// requests with their decisions.
		{"team.json", `SELECT json_build_object('workspaceId', workspace_id, 'userId', user_id, 'role', role, 'joinedAt', joined_at)
			FROM workspace_members WHERE workspace_id = $1 OR user_id = $1 ORDER BY workspace_id, joined_at`},
		{"approvals.json", `SELECT json_build_object('id', id, 'productId', product_id, 'pageVersion', page_version, 'state', state,
			'requestedBy', requested_by, 'requestedAt', requested_at, 'decidedBy', decided_by, 'decidedAt', decided_at, 'comment', comment)
			FROM approvals WHERE workspace_id = $1 ORDER BY requested_at`},
		// The account's own history: sign-up, profile and password changes,
		// exports, erasure requests (events carry ids, never secrets).
		{"account-history.json", `SELECT json_build_object('type', type, 'at', occurred_at, 'data', data) FROM events
			WHERE stream_id = 'user-' || $1 ORDER BY position`},
	}
	for _, d := range docs {
		if err := w.jsonArray(ctx, zw, d.name, d.sql, userID); err != nil {
			return fail(err)
		}
	}
	if err := w.leadsCSV(ctx, zw, userID); err != nil {
		return fail(err)
	}
	if err := w.files(ctx, zw, userID); err != nil {
		return fail(err)
	}
	if err := zw.Close(); err != nil {
		_ = bw.Close()
		return fmt.Errorf("finish export: %w", err)
	}
	if err := bw.Close(); err != nil {
		return fmt.Errorf("store export: %w", err)
	}
	return nil
}

// ExportCoverage says, for every table with a user_id column, where the
// export puts its rows or why it leaves them out (security review 3, L6);
// a test fails for a table missing here, so a new table is a decision.
var ExportCoverage = map[string]string{
	"user_pii":                  "account.json",
	"branding":                  "branding.json",
	"subscriptions":             "subscription.json, subscription-history.json",
	"products":                  "products.json",
	"catalogs":                  "catalogs.json",
	"galleries":                 "galleries.json",
	"jobs":                      "blueprints.json and files/",
	"publications":              "publications.json",
	"product_leads":             "leads.json, leads.csv",
	"uploads":                   "files/",
	"upload_cutouts":            "files/ (cutouts/)",
	"product_models":            "files/ (models/, thumbnails/)",
	"assets":                    "files/ (their keys are under the account's prefixes)",
	"webhook_endpoints":         "webhooks.json, without the signing secret",
	"experiments":               "experiments.json",
	"api_keys":                  "api-keys.json, without the key hash",
	"channel_shopify":           "shopify.json, without the Admin token",
	"channel_shopify_media":     "shopify.json",
	"channel_feeds":             "google-feed.json, without the token (the URL is the capability)",
	"store_settings":            "store-settings.json",
	"notifications":             "notifications.json",
	"notification_reads":        "not exported: read markers of notifications.json",
	"workspace_members":         "team.json",
	"account_security":          "not exported: a session counter and the verification date (account-history.json has the events)",
	"password_credentials":      "not exported: the password hash (a secret)",
	"google_identities":         "not exported: the Google sign-in link (account-history.json records it)",
	"email_verifications":       "not exported: one-time links (secrets)",
	"password_resets":           "not exported: one-time links (secrets)",
	"email_changes":             "not exported: one-time links (secrets); account.json has the current address",
	"revoked_tokens":            "not exported: sign-out records of session tokens",
	"idempotency_keys":          "not exported: replay copies of API answers, kept 24 hours",
	"billing_checkout_sessions": "not exported: open payment links (subscription-history.json has the outcome)",
	"billing_provider_events":   "not exported: the payment provider's notifications (subscription-history.json has the outcome)",
	"credit_reservations":       "not exported: credit bookkeeping of running builds",
	"data_exports":              "not exported: the exports themselves",
	"mail_outbox":               "not exported: mail waiting to be sent",
	"notify_jobs":               "not exported: notification bookkeeping",
	"notify_usage":              "not exported: notification bookkeeping",
	"webhook_deliveries":        "not exported: copies of events already exported (leads, publications), with delivery status",
	"webhook_usage":             "not exported: delivery counters",
	"shopper_events":            "not exported: shoppers' visits (their data, not the merchant's)",
	"shopper_days":              "not exported: counters",
	"shopper_day_cells":         "not exported: counters",
	"public_view_exhaustions":   "not exported: counters",
	"view_leases":               "not exported: counters",
	"workspace_accounts":        "not exported: read model of the documents above",
	"workspace_items":           "not exported: read model of the documents above",
}

func (w *ExportWorker) jsonArray(ctx context.Context, zw *zip.Writer, name, sql, userID string) error {
	rows, err := w.DB.Query(ctx, sql, userID)
	if err != nil {
		return fmt.Errorf("export %s: %w", name, err)
	}
	docs, err := pgx.CollectRows(rows, pgx.RowTo[json.RawMessage])
	if err != nil {
		return fmt.Errorf("export %s: %w", name, err)
	}
	f, err := zw.Create(name)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	buf.WriteString("[\n")
	for i, d := range docs {
		if i > 0 {
			buf.WriteString(",\n")
		}
		if err := json.Indent(&buf, d, "  ", "  "); err != nil {
			return fmt.Errorf("export %s: %w", name, err)
		}
	}
	buf.WriteString("\n]\n")
	_, err = f.Write(buf.Bytes())
	return err
}

func (w *ExportWorker) leadsCSV(ctx context.Context, zw *zip.Writer, userID string) error {
	rows, err := w.DB.Query(ctx, `SELECT product_id, email, created_at, variant_id FROM product_leads WHERE user_id = $1 ORDER BY created_at`, userID)
	if err != nil {
		return fmt.Errorf("export leads: %w", err)
	}
	defer rows.Close()
	f, err := zw.Create("leads.csv")
	if err != nil {
		return err
	}
	cw := csv.NewWriter(f)
	_ = cw.Write([]string{"productId", "email", "createdAt", "variantId"})
	for rows.Next() {
		var product, email, variant string
		var at time.Time
		if err := rows.Scan(&product, &email, &at, &variant); err != nil {
			return fmt.Errorf("export leads: %w", err)
		}
		_ = cw.Write([]string{product, csvSafe(email), at.UTC().Format(time.RFC3339), csvSafe(variant)})
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return rows.Err()
}

// csvSafe keeps a spreadsheet from reading a cell as a formula.
func csvSafe(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// files copies the account's blobs into the ZIP. A product's files go in a
// folder named after the product (products/Red Mug/model.glb, photo.jpg,
// thumbnail.png…), so the merchant can tell which model is which (issue 50,
// P20); anything no live product claims (other builds, avatar, logo,
// cutouts) stays under files/ by its storage key, as products.json and
// blueprints.json name it.
func (w *ExportWorker) files(ctx context.Context, zw *zip.Writer, userID string) error {
	seen := map[string]bool{}
	for _, p := range []string{"uploads/", "cutouts/", "models/", "avatars/", "logos/", "thumbnails/"} {
		it := w.Bucket.List(&blob.ListOptions{Prefix: p + userID + "/"})
		for {
			obj, err := it.Next(ctx)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return fmt.Errorf("list %s: %w", p, err)
			}
			if !obj.IsDir {
				seen[obj.Key] = true
			}
		}
	}
	rows, err := w.DB.Query(ctx, `SELECT k FROM (SELECT blob_key AS k FROM uploads WHERE user_id = $1
			UNION SELECT unnest(ARRAY[model_key, thumbnail_key]) FROM jobs WHERE user_id = $1
			UNION SELECT unnest(ARRAY[model_key, thumbnail_key]) FROM product_models WHERE user_id = $1) keys WHERE k <> ''`, userID)
	if err != nil {
		return fmt.Errorf("list files: %w", err)
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("list files: %w", err)
	}
	for _, k := range keys {
		seen[k] = true
	}
	names, err := w.productFileNames(ctx, userID)
	if err != nil {
		return err
	}
	sorted := make([]string, 0, len(seen))
	for k := range seen {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		r, err := w.Bucket.NewReader(ctx, k, nil)
		if gcerrors.Code(err) == gcerrors.NotFound {
			continue // purged already (a deleted blueprint)
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", k, err)
		}
		name, ok := names[k]
		if !ok {
			name = path.Join("files", k)
		}
		f, err := zw.Create(name)
		if err == nil {
			_, err = io.Copy(f, r)
		}
		_ = r.Close()
		if err != nil {
			return fmt.Errorf("export %s: %w", k, err)
		}
	}
	return nil
}

// productFileNames maps the storage keys of each live product's files (its
// current model and thumbnail, and the photo, model and thumbnail of the
// build it came from) to products/{product name}/{kind}{ext}. Two products
// with one name get "Name (2)"; a product with two files of a kind gets
// "model (2).glb". A key shared by two products goes to the first.
func (w *ExportWorker) productFileNames(ctx context.Context, userID string) (map[string]string, error) {
	rows, err := w.DB.Query(ctx, `SELECT p.id, p.name, f.kind, f.key FROM products p
		LEFT JOIN jobs j ON j.id = p.job_id AND j.user_id = p.user_id
		LEFT JOIN uploads u ON u.id = j.upload_id AND u.user_id = p.user_id
		CROSS JOIN LATERAL (VALUES (1, 'model', p.model_key), (2, 'thumbnail', p.thumbnail_key), (3, 'photo', u.blob_key),
			(4, 'model', j.model_key), (5, 'thumbnail', j.thumbnail_key)) AS f(ord, kind, key)
		WHERE p.user_id = $1 AND p.deleted_at IS NULL AND coalesce(f.key, '') <> ''
		ORDER BY p.created_at, p.id, f.ord`, userID)
	if err != nil {
		return nil, fmt.Errorf("list product files: %w", err)
	}
	type file struct{ id, product, kind, key string }
	files, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (file, error) {
		var f file
		return f, r.Scan(&f.id, &f.product, &f.kind, &f.key)
	})
	if err != nil {
		return nil, fmt.Errorf("list product files: %w", err)
	}
	out := map[string]string{}
	used := map[string]bool{} // names of files and folders given so far
	var product, folder string
	for _, f := range files { // ordered by product
		if f.id != product {
			product, folder = f.id, unique(used, "products/"+zipSafe(f.product), "")
		}
		if _, done := out[f.key]; !done {
			out[f.key] = unique(used, folder+"/"+f.kind, path.Ext(f.key))
		}
	}
	return out, nil
}

// unique returns base+ext, or "base (n)"+ext for the first n ≥ 2 not in
// taken, and records it.
func unique(taken map[string]bool, base, ext string) string {
	name := base + ext
	for n := 2; taken[name]; n++ {
		name = fmt.Sprintf("%s (%d)%s", base, n, ext)
	}
	taken[name] = true
	return name
}

// zipSafe makes a product name one folder name: no slashes, backslashes or
// control characters, no "." or ".." and not empty.
func zipSafe(name string) string {
	name = strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r < 0x20 || r == 0x7f {
			return '-'
		}
		return r
	}, strings.TrimSpace(name))
	if name == "" || name == "." || name == ".." {
		return "Untitled product"
	}
	return name
}

// ExportCleanupArgs is the daily job that deletes expired exports' ZIPs.
type ExportCleanupArgs struct{}

// Kind implements river.JobArgs.
func (ExportCleanupArgs) Kind() string { return "account_export_cleanup" }

// PeriodicExportCleanup schedules ExportCleanupWorker hourly.
func PeriodicExportCleanup() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(time.Hour),
		func() (river.JobArgs, *river.InsertOpts) { return ExportCleanupArgs{}, nil }, &river.PeriodicJobOpts{RunOnStart: true})
}

// ExportCleanupWorker deletes the ZIPs of exports past their lifetime.
type ExportCleanupWorker struct {
	river.WorkerDefaults[ExportCleanupArgs]
	DB     *pgxpool.Pool
	Bucket *blob.Bucket
	Now    func() time.Time
}

// Work implements river.Worker.
func (w *ExportCleanupWorker) Work(ctx context.Context, _ *river.Job[ExportCleanupArgs]) error {
	now := time.Now()
	if w.Now != nil {
		now = w.Now()
	}
	rows, err := w.DB.Query(ctx, `SELECT id, blob_key FROM data_exports WHERE status = 'ready' AND expires_at <= $1`, now)
	if err != nil {
		return fmt.Errorf("find expired exports: %w", err)
	}
	type exp struct{ id, key string }
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (exp, error) {
		var e exp
		return e, r.Scan(&e.id, &e.key)
	})
	if err != nil {
		return fmt.Errorf("find expired exports: %w", err)
	}
	for _, e := range list {
		if err := w.Bucket.Delete(ctx, e.key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
			return fmt.Errorf("delete %s: %w", e.key, err)
		}
		if _, err := w.DB.Exec(ctx, `UPDATE data_exports SET status = 'expired', blob_key = '' WHERE id = $1`, e.id); err != nil {
			return fmt.Errorf("expire export: %w", err)
		}
	}
	return nil
}
