package team_test

import (
	"context"
	"fmt"
	"io/fs"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/dbtest"
	"github.com/photo3d/photo3d/migrations"
)

// Migration 0044 over data of the schema before it: every live account
// becomes the owner of its own workspace, every merchant row of a live
// account lands in a workspace, erased accounts get none, read marks keep
// their owner, and running it again changes nothing.
func TestTeamsMigrationOnExistingData(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	ctx := context.Background()
	exec := func(q string, args ...any) {
		t.Helper()
		_, err := db.Pool.Exec(ctx, q, args...)
		require.NoError(t, err, q)
	}
	// The schema as it was before 0044's data and keys.
	exec(`DELETE FROM workspace_members`)
	exec(`DELETE FROM workspaces`)
	exec(`ALTER TABLE notification_reads DROP CONSTRAINT notification_reads_pkey`)
	exec(`ALTER TABLE notification_reads ADD PRIMARY KEY (notification_id)`)
	live := []string{"00000000-0000-4000-8000-0000000000a1", "00000000-0000-4000-8000-0000000000a2", "00000000-0000-4000-8000-0000000000a3"}
	for _, id := range live {
		db.VerifiedUser(t, id)
		exec(`INSERT INTO branding (user_id, brand_name, brand_color) VALUES ($1, 'Brand', '#112233')`, id)
		exec(`INSERT INTO notification_reads (notification_id, user_id, read_at) VALUES ($1, $2, now())`, "n-"+id, id)
	}
	erased := "00000000-0000-4000-8000-0000000000e1"
	db.VerifiedUser(t, erased)
	exec(`UPDATE users SET erasure_requested_at = now(), erased_at = now() WHERE id = $1`, erased)

	sql, err := fs.ReadFile(migrations.FS, "0044_teams.sql")
	require.NoError(t, err)
	counts := func() (ws, owners int) {
		require.NoError(t, db.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM workspaces),
			(SELECT count(*) FROM workspace_members m JOIN workspaces w ON w.id = m.workspace_id AND w.owner_id = m.user_id WHERE m.role = 'owner')`).
			Scan(&ws, &owners))
		return
	}
	for run := range 2 {
		exec(string(sql))
		ws, owners := counts()
		require.Equal(t, len(live), ws, "run %d: one workspace per live account", run+1)
		require.Equal(t, len(live), owners, "run %d: each owned by its account", run+1)
	}
	for _, id := range live {
		var owner string
		require.NoError(t, db.Pool.QueryRow(ctx, `SELECT owner_id FROM workspaces WHERE id = $1`, id).Scan(&owner))
		require.Equal(t, id, owner)
	}
	var erasedWS bool
	require.NoError(t, db.Pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM workspaces WHERE id = $1)`, erased).Scan(&erasedWS))
	require.False(t, erasedWS, "an erased account has no workspace")

	// Every merchant row of a live account, in every table with a user_id,
	// belongs to a workspace.
	rows, err := db.Pool.Query(ctx, `SELECT table_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND column_name = 'user_id' ORDER BY 1`)
	require.NoError(t, err)
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.NotEmpty(t, tables)
	for _, tbl := range tables {
		var orphans int
		require.NoError(t, db.Pool.QueryRow(ctx, fmt.Sprintf(`SELECT count(*) FROM %q t
			WHERE t.user_id IN (SELECT id FROM users WHERE erased_at IS NULL)
			  AND NOT EXISTS (SELECT 1 FROM workspaces w WHERE w.id = t.user_id)`, tbl)).Scan(&orphans))
		require.Zero(t, orphans, "rows of %s outside a workspace", tbl)
	}
	// Read marks became each person's own (the key includes the reader).
	var keyCols int
	require.NoError(t, db.Pool.QueryRow(ctx, `SELECT i.indnatts FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
		WHERE c.relname = 'notification_reads' AND i.indisprimary`).Scan(&keyCols))
	require.Equal(t, 2, keyCols)
	var marks int
	require.NoError(t, db.Pool.QueryRow(ctx, `SELECT count(*) FROM notification_reads`).Scan(&marks))
	require.Equal(t, len(live), marks)
}
