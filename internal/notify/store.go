package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/projection"
	"github.com/photo3d/photo3d/internal/workspace"
)

// This file holds every SQL statement of the notifications context: the
// projection's writes first, then the service's reads and read marks.

func truncateDerived(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, `TRUNCATE notifications, notify_jobs, notify_usage`); err != nil {
		return fmt.Errorf("truncate notification tables: %w", err)
	}
	return nil
}

// insertNote writes n as produced by the event at position; writing the
// same event twice is a no-op.
func insertNote(ctx context.Context, tx pgx.Tx, n note, position int64, at time.Time) error {
	_, err := tx.Exec(ctx, `INSERT INTO notifications (id, user_id, kind, title, message, link, subject_id, source_position, created_at)
		VALUES ($1, $2, $3, $4, $5, nullif($6, ''), nullif($7, ''), $8, $9)
		ON CONFLICT (source_position, kind) DO NOTHING`,
		ID(position, n.kind), n.userID, n.kind, n.title, n.message, n.link, n.subject, position, at)
	if err != nil {
		return fmt.Errorf("write %s notification: %w", n.kind, err)
	}
	return nil
}

// Job owners and subscription folds are remembered for the rest of a runner
// batch (projection.Batch): a job's completion usually shares its queueing's
// batch, and a busy merchant's subscription events crowd one.
const (
	jobKey   = "notify/job/"
	viewsKey = "notify/views/"
)

type jobRow struct{ owner, name string }

type viewsRow struct {
	usage   workspace.Usage
	alerted bool
}

func rememberJob(ctx context.Context, tx pgx.Tx, jobID, userID, name string) error {
	// A job is queued once (the first event of its stream), so the row this
	// insert keeps on a conflict holds these same values.
	projection.CurrentBatch(ctx).Put(jobKey+jobID, jobRow{userID, name})
	_, err := tx.Exec(ctx, `INSERT INTO notify_jobs (job_id, user_id, name) VALUES ($1, $2, $3)
		ON CONFLICT (job_id) DO NOTHING`, jobID, userID, name)
	if err != nil {
		return fmt.Errorf("remember job owner: %w", err)
	}
	return nil
}

func renameJob(ctx context.Context, tx pgx.Tx, jobID, name string) error {
	b := projection.CurrentBatch(ctx)
	if v, ok := b.Get(jobKey + jobID); ok {
		b.Put(jobKey+jobID, jobRow{v.(jobRow).owner, name})
	}
	if _, err := tx.Exec(ctx, `UPDATE notify_jobs SET name = $2 WHERE job_id = $1`, jobID, name); err != nil {
		return fmt.Errorf("rename job: %w", err)
	}
	return nil
}

func unlinkSubject(ctx context.Context, tx pgx.Tx, subject string) error {
	if _, err := tx.Exec(ctx, `UPDATE notifications SET link = NULL WHERE subject_id = $1`, subject); err != nil {
		return fmt.Errorf("unlink %s: %w", subject, err)
	}
	return nil
}

// jobOwner returns who queued a job and its current name; ok is false for a
// job whose queueing was never seen.
func jobOwner(ctx context.Context, tx pgx.Tx, jobID string) (owner, name string, ok bool, err error) {
	if v, hit := projection.CurrentBatch(ctx).Get(jobKey + jobID); hit {
		owner, name = v.(jobRow).owner, v.(jobRow).name
	} else {
		err = tx.QueryRow(ctx, `SELECT user_id, name FROM notify_jobs WHERE job_id = $1`, jobID).Scan(&owner, &name)
		if errors.Is(err, pgx.ErrNoRows) {
			return "", "", false, nil
		}
		if err != nil {
			return "", "", false, fmt.Errorf("find job owner: %w", err)
		}
		projection.CurrentBatch(ctx).Put(jobKey+jobID, jobRow{owner, name})
	}
	return owner, jobName(name), true, nil
}

// jobName names a job in a note; one queued without a name (or whose name
// was erased) is an "Untitled model", as in the workspace.
func jobName(name string) string {
	if name = strings.TrimSpace(name); name == "" {
		return "Untitled model"
	}
	return name
}

// namedKinds are the notification kinds whose message names a job or a
// product (namedMessage); jobKinds name a job, productKinds a product.
var (
	namedKinds = []string{KindJobCompleted, KindJobFailed, KindProductReady, KindProductFailed, KindPagePublished, KindLeadCaptured,
		KindApprovalRequested, KindApprovalApproved, KindApprovalRejected}
	jobKinds     = []string{KindJobCompleted, KindJobFailed}
	productKinds = []string{KindProductReady, KindProductFailed, KindPagePublished, KindLeadCaptured,
		KindApprovalRequested, KindApprovalApproved, KindApprovalRejected}
)

// EraseText rewrites what this projection derived from an erased account's
// merchant text (security review 3, L7) as a replay of the redacted log
// writes it: the jobs' names blank, and every note that names a job or a
// product written again with the blanked name (the failure reason is ours
// and stays). internal/privacy calls it after blanking the text in the log,
// in the same transaction, holding this projection's checkpoint row so that
// no batch runs meanwhile; a batch after it reads the redacted log.
func EraseText(ctx context.Context, tx pgx.Tx, userID string) error {
	if _, err := tx.Exec(ctx, `UPDATE notify_jobs SET name = '' WHERE user_id = $1 AND name <> ''`, userID); err != nil {
		return fmt.Errorf("erase job names: %w", err)
	}
	return rewriteNamed(ctx, tx, `n.user_id = $1 AND n.kind = ANY($2)`, []any{userID, namedKinds}, func(kind string) string {
		if slices.Contains(jobKinds, kind) {
			return jobName("")
		}
		return ""
	})
}

// renameSubject writes the notes about subject (a job's or a product's) that
// name it again with its new name (issue 50 item 14): a note still shown
// names the thing by what it is called now, not what it was called then. A
// replay does the same at the same event, so both agree.
func renameSubject(ctx context.Context, tx pgx.Tx, subject string, kinds []string, name string) error {
	return rewriteNamed(ctx, tx, `n.subject_id = $1 AND n.kind = ANY($2)`, []any{subject, kinds}, func(string) string { return name })
}

// rewriteNamed writes namedMessage again, with nameFor(kind), for the notes
// where (over notifications n) selects; the failure reason comes from the
// note's source event.
func rewriteNamed(ctx context.Context, tx pgx.Tx, where string, args []any, nameFor func(kind string) string) error {
	rows, err := tx.Query(ctx, `SELECT n.id, n.kind, n.message, coalesce(e.data->>'reason', '')
		FROM notifications n LEFT JOIN events e ON e.position = n.source_position
		WHERE `+where, args...)
	if err != nil {
		return fmt.Errorf("read named notes: %w", err)
	}
	type named struct{ id, kind, message, reason string }
	notes, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (named, error) {
		var n named
		return n, r.Scan(&n.id, &n.kind, &n.message, &n.reason)
	})
	if err != nil {
		return fmt.Errorf("read named notes: %w", err)
	}
	for _, n := range notes {
		msg := namedMessage(n.kind, nameFor(n.kind), n.reason)
		if msg == n.message {
			continue
		}
		if _, err := tx.Exec(ctx, `UPDATE notifications SET message = $2 WHERE id = $1`, n.id, msg); err != nil {
			return fmt.Errorf("rewrite note %s: %w", n.id, err)
		}
	}
	return nil
}

// livePagesAt counts the user's public pages live just before position, as
// the log knew them (replay counts the same): published and not
// unpublished, and whose product, gallery or blueprint was not deleted.
func livePagesAt(ctx context.Context, tx pgx.Tx, userID string, position int64) (int, error) {
	var n int
	err := tx.QueryRow(ctx, `
SELECT count(*) FROM events c
WHERE c.data->>'userId' = $1 AND c.version = 1 AND c.type = 'publication.created.v1' AND c.position < $2
  AND NOT EXISTS (SELECT 1 FROM events u WHERE u.stream_id = c.stream_id AND u.type = 'publication.unpublished.v1' AND u.position < $2)
  AND NOT EXISTS (SELECT 1 FROM events d
      WHERE d.stream_id IN ('product-' || coalesce(c.data->>'productId', ''), 'gallery-' || coalesce(c.data->>'galleryId', ''),
                            'job-' || coalesce(c.data->>'blueprintId', ''))
        AND d.type IN ('product.deleted.v1', 'gallery.deleted.v1', 'blueprint.deleted.v1') AND d.position < $2)`,
		userID, position).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count live pages of %s: %w", userID, err)
	}
	return n, nil
}

// loadViews locks and returns the user's subscription fold and whether the
// views warning has been given since usage last crossed the threshold.
func loadViews(ctx context.Context, tx pgx.Tx, userID string) (workspace.Usage, bool, error) {
	if v, ok := projection.CurrentBatch(ctx).Get(viewsKey + userID); ok {
		return v.(viewsRow).usage, v.(viewsRow).alerted, nil
	}
	var raw []byte
	var alerted bool
	var u workspace.Usage
	err := tx.QueryRow(ctx, `SELECT usage, views_alerted FROM notify_usage WHERE user_id = $1 FOR UPDATE`, userID).Scan(&raw, &alerted)
	if errors.Is(err, pgx.ErrNoRows) {
		return u, false, nil
	}
	if err != nil {
		return u, false, fmt.Errorf("load usage: %w", err)
	}
	if err := json.Unmarshal(raw, &u); err != nil {
		return u, false, fmt.Errorf("decode usage of %s: %w", userID, err)
	}
	projection.CurrentBatch(ctx).Put(viewsKey+userID, viewsRow{u, alerted})
	return u, alerted, nil
}

func saveViews(ctx context.Context, tx pgx.Tx, userID string, u workspace.Usage, alerted bool) error {
	projection.CurrentBatch(ctx).Put(viewsKey+userID, viewsRow{u, alerted})
	b, err := json.Marshal(u)
	if err != nil {
		return fmt.Errorf("encode usage: %w", err)
	}
	_, err = tx.Exec(ctx, `INSERT INTO notify_usage (user_id, usage, views_alerted) VALUES ($1, $2, $3)
		ON CONFLICT (user_id) DO UPDATE SET usage = EXCLUDED.usage, views_alerted = EXCLUDED.views_alerted`,
		userID, string(b), alerted)
	if err != nil {
		return fmt.Errorf("save usage: %w", err)
	}
	return nil
}

// selectNotification reads notifications with the read mark of the person
// $1 (read marks are each member's own; the notifications are the
// workspace's).
const selectNotification = `SELECT n.id, n.title, n.message, n.link, n.created_at, r.read_at
	FROM notifications n LEFT JOIN notification_reads r ON r.notification_id = n.id AND r.user_id = $1`

func listNotes(ctx context.Context, q pgdb.Querier, r Reader, limit int) ([]Notification, error) {
	rows, err := q.Query(ctx, selectNotification+`
		WHERE n.user_id = $2 ORDER BY n.created_at DESC, n.source_position DESC, n.kind LIMIT $3`, r.PersonID, r.WorkspaceID, limit)
	if err != nil {
		return nil, fmt.Errorf("list notifications: %w", err)
	}
	items, err := pgx.CollectRows(rows, scanNotification)
	if err != nil {
		return nil, fmt.Errorf("list notifications: %w", err)
	}
	if items == nil {
		items = []Notification{}
	}
	return items, nil
}

func countUnread(ctx context.Context, q pgdb.Querier, r Reader) (int, error) {
	var n int
	err := q.QueryRow(ctx, `SELECT count(*) FROM notifications n
		WHERE n.user_id = $1 AND NOT EXISTS (SELECT 1 FROM notification_reads r WHERE r.notification_id = n.id AND r.user_id = $2)`,
		r.WorkspaceID, r.PersonID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count unread notifications: %w", err)
	}
	return n, nil
}

// loadNote returns one of userID's notifications; ok is false when there is
// none with that id for this user.
func loadNote(ctx context.Context, q pgdb.Querier, r Reader, id string) (n Notification, ok bool, err error) {
	rows, err := q.Query(ctx, selectNotification+` WHERE n.id = $2 AND n.user_id = $3`, r.PersonID, id, r.WorkspaceID)
	if err != nil {
		return Notification{}, false, fmt.Errorf("load notification: %w", err)
	}
	n, err = pgx.CollectExactlyOneRow(rows, scanNotification)
	if errors.Is(err, pgx.ErrNoRows) {
		return Notification{}, false, nil
	}
	if err != nil {
		return Notification{}, false, fmt.Errorf("load notification: %w", err)
	}
	return n, true, nil
}

// markRead records a read mark for userID's notification id, keeping the
// first one; an id that is not the user's marks nothing.
func markRead(ctx context.Context, q pgdb.Querier, r Reader, id string) error {
	_, err := q.Exec(ctx, `INSERT INTO notification_reads (notification_id, user_id, read_at)
		SELECT id, $3, now() FROM notifications WHERE id = $1 AND user_id = $2
		ON CONFLICT (notification_id, user_id) DO NOTHING`, id, r.WorkspaceID, r.PersonID)
	if err != nil {
		return fmt.Errorf("mark notification read: %w", err)
	}
	return nil
}

func markAllRead(ctx context.Context, q pgdb.Querier, r Reader) error {
	_, err := q.Exec(ctx, `INSERT INTO notification_reads (notification_id, user_id, read_at)
		SELECT id, $2, now() FROM notifications WHERE user_id = $1
		ON CONFLICT (notification_id, user_id) DO NOTHING`, r.WorkspaceID, r.PersonID)
	if err != nil {
		return fmt.Errorf("mark all notifications read: %w", err)
	}
	return nil
}

func scanNotification(row pgx.CollectableRow) (Notification, error) {
	var n Notification
	if err := row.Scan(&n.ID, &n.Title, &n.Message, &n.Link, &n.CreatedAt, &n.ReadAt); err != nil {
		return Notification{}, err
	}
	n.CreatedAt = n.CreatedAt.UTC()
	if n.ReadAt != nil {
		t := n.ReadAt.UTC()
		n.ReadAt = &t
	}
	return n, nil
}
