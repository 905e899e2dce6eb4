package eventlog_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/eventlog"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// Security review 2, item 6: the analysts' role read every merchant's email
// and name through SELECT on events (user.registered.v1 carries them). As
// the analyst, no table or view it can read holds the address or the name,
// the raw log is refused, and the export still works under that role (it
// reads analyst_events) with the personal fields gone.
func TestSecurityAnalystsReadNoPersonalData(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const email, name = "alice.personal@shop.example", "Alice Quimbyfield"
	require.NoError(t, pgdb.WithTx(b.ctx, b.db.Pool, func(tx pgx.Tx) error {
		// Issue 31: the events carry the id; the person is in user_pii.
		_, err := b.store.Append(b.ctx, tx, events.Stream{Type: events.StreamUser, ID: "u-pii"}, 0,
			events.UserRegistered{UserID: "u-pii", Method: "password", At: time.Unix(0, 0).UTC()},
			events.ProfileUpdated{UserID: "u-pii"})
		if err != nil {
			return err
		}
		if _, err := tx.Exec(b.ctx, `INSERT INTO user_pii (user_id, email, name, first_name, last_name)
			VALUES ('u-pii', $1, $2, 'Alice', 'Quimbyfield Jr')`, email, name+" Jr"); err != nil {
			return err
		}
		// A log not yet through `worker migrate-pii` still shows analysts
		// no person (the view strips the old fields).
		_, err = tx.Exec(b.ctx, `INSERT INTO events (stream_id, stream_type, version, type, data)
			VALUES ('user-u-old', 'user', 1, 'user.registered.v1',
			jsonb_build_object('userId', 'u-old', 'email', $1::text, 'name', $2::text, 'method', 'password'))`, "old."+email, name)
		return err
	}))
	b.queue(t, 1)

	cfg, err := pgxpool.ParseConfig(b.db.URL)
	require.NoError(t, err)
	cfg.ConnConfig.RuntimeParams["role"] = "photo3d_analyst"
	analyst, err := pgxpool.NewWithConfig(b.ctx, cfg)
	require.NoError(t, err)
	defer analyst.Close()

	// Every relation the analyst may read, read whole: no email, no name.
	rows, err := analyst.Query(b.ctx, `SELECT format('%I.%I', n.nspname, c.relname) FROM pg_class c
		JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relkind IN ('r', 'v', 'm', 'p') AND n.nspname = current_schema()
		  AND has_table_privilege(c.oid, 'SELECT')`)
	require.NoError(t, err)
	readable, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Contains(t, readable, "public.analyst_events")
	require.NotContains(t, readable, "public.events")
	for _, rel := range readable {
		var leaks int
		require.NoError(t, analyst.QueryRow(b.ctx, `SELECT count(*) FROM `+rel+` x
			WHERE row_to_json(x)::text ILIKE '%alice.personal%' OR row_to_json(x)::text LIKE '%Quimbyfield%'`).Scan(&leaks), rel)
		require.Zero(t, leaks, "%s shows the analyst a merchant's email or name", rel)
	}
	_, err = analyst.Exec(b.ctx, `SELECT data FROM events WHERE type = 'user.registered.v1'`)
	require.ErrorContains(t, err, "permission denied")

	// The export runs as the analyst and keeps the fact, without the person.
	deadline := time.Now().Add(30 * time.Second)
	var out bytes.Buffer
	for {
		out.Reset()
		res, err := eventlog.Export(b.ctx, analyst, &out, eventlog.Options{})
		require.NoError(t, err)
		if res.Events >= 5 || time.Now().After(deadline) {
			require.EqualValues(t, 5, res.Events)
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	require.Contains(t, out.String(), `"type":"user.registered.v1"`)
	require.Contains(t, out.String(), `"userId":"u-pii"`)
	require.Contains(t, out.String(), `"method":"password"`)
	require.NotContains(t, strings.ToLower(out.String()), "alice")
	require.NotContains(t, out.String(), "Quimbyfield")
}
