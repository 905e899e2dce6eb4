package eventlog_test

import (
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"
)

// The analysts' role reads the event log and credential-free read models,
// and nothing that holds password hashes, reset tokens, invites or emails;
// it writes nothing.
func TestAnalystRoleIsReadOnlyAndKeptFromSecrets(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.queue(t, 0)
	as := func(sql string) error {
		tx, err := b.db.Pool.Begin(b.ctx)
		require.NoError(t, err)
		defer func() { _ = tx.Rollback(b.ctx) }()
		_, err = tx.Exec(b.ctx, `SET LOCAL ROLE photo3d_analyst`)
		require.NoError(t, err)
		rows, err := tx.Query(b.ctx, sql)
		if err != nil {
			return err
		}
		rows.Close()
		return rows.Err()
	}
	denied := func(sql string) {
		t.Helper()
		err := as(sql)
		var pgErr *pgconn.PgError
		require.True(t, errors.As(err, &pgErr), "%s: want permission denied, got %v", sql, err)
		require.Equal(t, "42501", pgErr.Code, sql)
	}
	for _, sql := range []string{
		`SELECT count(*) FROM analyst_events`,
		`SELECT type, data FROM analyst_events WHERE type = 'job.queued.v1'`,
		`SELECT count(*) FROM jobs`,
		`SELECT count(*) FROM subscriptions`,
		`SELECT count(*) FROM publications`,
	} {
		require.NoError(t, as(sql), sql)
	}
	for _, sql := range []string{
		`SELECT * FROM password_credentials`,
		`SELECT * FROM password_resets`,
		`SELECT * FROM invites`,
		`SELECT * FROM google_identities`,
		`SELECT email FROM user_pii`, // issue 31: personal data lives here only
		`SELECT * FROM users`,
		`SELECT count(*) FROM events`, // the raw log holds emails (migration 0021)
		`INSERT INTO events (stream_id, stream_type, version, type, data) VALUES ('x-1', 'x', 1, 'x.v1', '{}')`,
		`DELETE FROM events`,
		`UPDATE jobs SET name = 'x'`,
	} {
		denied(sql)
	}
	var n int
	require.NoError(t, b.db.Pool.QueryRow(b.ctx, `SELECT count(*) FROM pg_roles WHERE rolname = 'photo3d_analyst' AND NOT rolcanlogin`).Scan(&n))
	require.Equal(t, 1, n, "NOLOGIN: people log in with their own role granted this one")
}
