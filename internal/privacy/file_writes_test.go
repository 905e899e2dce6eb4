package privacy

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/mail"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// Security review M3: a job writing an account's files (a build storing its
// model) when the owner deletes the account. The erasure waits for the
// writer that holds the account's file lock, then deletes what it wrote, so
// no file outlives the erasure.
func TestEraseWaitsForAFileWriterAndDeletesWhatItWrote(t *testing.T) {
	t.Parallel()
	b := setup(t)
	user := b.signUp(t, "late.writer@shop.example")
	late := "models/" + user + "/build-1/model.glb"

	writer, err := b.db.Pool.Begin(b.ctx)
	require.NoError(t, err)
	defer func() { _ = writer.Rollback(context.Background()) }()
	erasing, err := account.LockFileWrites(b.ctx, writer, user)
	require.NoError(t, err)
	require.False(t, erasing, "nobody asked for the erasure yet: the writer goes on")

	require.NoError(t, b.accounts.RequestErasure(b.ctx, user, account.ErasureConfirmation{Password: "erase-me-please"}))
	erased := make(chan error, 1)
	go func() { erased <- b.worker.Erase(b.ctx, user) }()
	select {
	case err := <-erased:
		t.Fatalf("the erasure finished (%v) while a job was still writing the account's files", err)
	case <-time.After(300 * time.Millisecond):
	}
	require.NoError(t, b.bucket.WriteAll(b.ctx, late, []byte("model"), nil))
	require.NoError(t, writer.Commit(b.ctx))
	select {
	case err := <-erased:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("the erasure did not finish after the writer")
	}
	require.False(t, b.exists(t, late), "the file written during the erasure is deleted")

	// A writer coming after the request sees it and writes nothing.
	require.NoError(t, pgdb.WithTx(b.ctx, b.db.Pool, func(tx pgx.Tx) error {
		erasing, err := account.LockFileWrites(b.ctx, tx, user)
		require.True(t, erasing)
		return err
	}))
}

// An export whose account is erased while it waits to write the ZIP writes
// none and ends cancelled; the erasure's own listing is the only delete
// there is, so a ZIP written after it would stay for good.
func TestExportWritesNoZipForAnAccountErasedMeanwhile(t *testing.T) {
	t.Parallel()
	b := setup(t)
	user := b.signUp(t, "leaving.exporter@shop.example")
	const exportID = "export-erased-1"
	_, err := b.db.Pool.Exec(b.ctx, `INSERT INTO data_exports (id, user_id, status, requested_at) VALUES ($1, $2, 'pending', now())`,
		exportID, user)
	require.NoError(t, err)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	exporter := &ExportWorker{DB: b.db.Pool, Store: b.store, Bucket: b.bucket, Logger: log, BaseURL: "http://photo3d.test",
		Mail: mail.Immediate{Sender: mail.Log{Logger: log, Outbox: b.outbox}}}

	// The erasure's files step holds the lock; the export has passed its
	// first check and waits for it.
	eraser, err := b.db.Pool.Begin(b.ctx)
	require.NoError(t, err)
	defer func() { _ = eraser.Rollback(context.Background()) }()
	require.NoError(t, account.LockFilesForErasure(b.ctx, eraser, user))
	done := make(chan error, 1)
	go func() {
		done <- exporter.Work(b.ctx, &river.Job[ExportArgs]{JobRow: &rivertype.JobRow{ID: 1, Attempt: 1}, Args: ExportArgs{ExportID: exportID}})
	}()
	time.Sleep(300 * time.Millisecond)
	require.NoError(t, b.accounts.RequestErasure(b.ctx, user, account.ErasureConfirmation{Password: "erase-me-please"}))
	require.NoError(t, eraser.Commit(b.ctx))
	select {
	case err := <-done:
		var cancel *river.JobCancelError
		require.ErrorAs(t, err, &cancel, "the export ends without retries")
	case <-time.After(30 * time.Second):
		t.Fatal("the export did not end")
	}
	require.False(t, b.exists(t, "exports/"+user+"/"+exportID+".zip"), "no ZIP is written for an account being erased")
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM data_exports WHERE id = $1 AND status = 'pending'`, exportID))
}

// River re-runs the erasure or export of a worker that died only after the
// job's time limit: PRIVACY_JOB_TIMEOUT sets it (a chaos run needs seconds,
// not the 30 minutes a large account may need).
func TestPrivacyJobsTakeTheirTimeLimitFromTheConfiguration(t *testing.T) {
	t.Parallel()
	require.Equal(t, DefaultJobTimeout, (&EraseWorker{}).Timeout(nil))
	require.Equal(t, DefaultJobTimeout, (&ExportWorker{}).Timeout(nil))
	require.Equal(t, 10*time.Second, (&EraseWorker{AttemptTimeout: 10 * time.Second}).Timeout(nil))
	require.Equal(t, 10*time.Second, (&ExportWorker{AttemptTimeout: 10 * time.Second}).Timeout(nil))
}
