package account

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// An account's erasure deletes its files once, by listing them; a job that
// writes under the account's id after that listing (a build finishing, an
// export being zipped) would leave files nobody deletes. So writers and the
// erasure share a per-account lock: a job writes its files while it holds
// the shared side and only after seeing that no erasure was requested,
// and the erasure deletes while it holds the exclusive side. Either the
// erasure waits for the writer and then deletes what it wrote, or the
// writer sees the request (committed before the erasure job exists) and
// writes nothing. Being a transaction lock, it goes with the connection of
// a worker that is killed mid-write; the erasure then lists what it left.
const fileWritesLock = `hashtextextended('account-files/' || $1, 0)`

// LockFileWrites takes the shared side of the account's file lock for the
// rest of tx and reports whether the account is being erased: the caller
// writes files under userID within tx only when it is not. An account with
// no row (never projected) is not being erased.
func LockFileWrites(ctx context.Context, tx pgx.Tx, userID string) (erasing bool, err error) {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock_shared(`+fileWritesLock+`)`, userID); err != nil {
		return false, fmt.Errorf("lock the account's files: %w", err)
	}
	err = tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM users u WHERE u.id = $1 AND `+WorkspaceErasing+`)`, userID).Scan(&erasing)
	if err != nil {
		return false, fmt.Errorf("read the account's erasure state: %w", err)
	}
	return erasing, nil
}

// LockFilesForErasure takes the exclusive side of the account's file lock
// for the rest of tx, waiting for the writers that hold the shared side:
// the erasure deletes the account's files within tx.
func LockFilesForErasure(ctx context.Context, tx pgx.Tx, userID string) error {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(`+fileWritesLock+`)`, userID); err != nil {
		return fmt.Errorf("lock the account's files: %w", err)
	}
	return nil
}
