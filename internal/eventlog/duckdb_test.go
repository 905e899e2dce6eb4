package eventlog_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/eventlog"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// The two analyst questions of docs/operations.md, asked by another tool (DuckDB, from
// tools/duckdb) of both export formats, must get the answers Postgres gives
// from the log itself. This proves the files are readable outside our own Go
// code and that the documented queries work as written.
func TestDuckDBAnswersTheAnalystQuestionsLikePostgres(t *testing.T) {
	script, dir := duckdbTool(t)
	b := setup(t)

	// Four merchants over four days: uploads, consumed credits of varying
	// amounts, first and later publications; one merchant never publishes.
	start := time.Date(2026, 11, 1, 22, 30, 0, 0, time.UTC) // days straddle midnight UTC
	var log []appended
	for m := range 4 {
		u := fmt.Sprintf("merchant-%d", m)
		for k := range 6 {
			at := start.Add(time.Duration(m*7+k*13) * time.Hour).Add(time.Duration(k*37+m)*time.Second + time.Duration(m*123457)*time.Microsecond)
			up := fmt.Sprintf("up-%d-%d", m, k)
			log = append(log,
				appended{events.StreamUpload, up, events.UploadCreated{UploadID: up, UserID: u, Filename: "vase “é”.jpg",
					ContentType: "image/jpeg", Size: 1000 + int64(k), BlobKey: "uploads/" + up, At: at}},
				appended{events.StreamSubscription, u, events.CreditsConsumed{UserID: u, JobID: "job-" + up, Amount: int64(1 + (m+k)%3)}})
			if m != 3 && k >= 2 {
				p := fmt.Sprintf("pub-%d-%d", m, k)
				log = append(log, appended{events.StreamPublication, p, events.PublicationCreated{PublicationID: p, UserID: u,
					BlueprintID: "job-" + up, Slug: "s-" + p, At: at.Add(time.Duration(m+1)*41*time.Minute + time.Duration(m*7919+1)*time.Microsecond)}})
			}
		}
	}
	require.NoError(t, pgdb.WithTx(b.ctx, b.db.Pool, func(tx pgx.Tx) error {
		for _, e := range log {
			if _, err := b.store.Append(b.ctx, tx, events.Stream{Type: e.streamType, ID: e.id}, eventstore.AnyVersion, e.ev); err != nil {
				return err
			}
		}
		// The log records when it was appended; these facts "happened" on
		// their own days, which a test cannot wait for.
		_, err := tx.Exec(b.ctx, `UPDATE events SET occurred_at = (data->>'at')::timestamptz WHERE data ? 'at'`)
		return err
	}))
	for i, e := range log {
		if c, ok := e.ev.(events.CreditsConsumed); ok {
			// Credits consumed carry no time of their own: pin each to its upload's.
			_, err := b.db.Pool.Exec(b.ctx, `UPDATE events SET occurred_at = $2 WHERE type = 'subscription.credits_consumed.v1' AND data->>'jobId' = $1`,
				c.JobID, log[i-1].ev.(events.UploadCreated).At)
			require.NoError(t, err)
		}
	}

	want := map[string]string{
		"credits_per_day": pgRows(t, b, `SELECT json_agg(json_build_object('day', day::text, 'credits', credits::text) ORDER BY day) FROM (
			SELECT (occurred_at AT TIME ZONE 'UTC')::date AS day, sum((data->>'amount')::bigint) AS credits
			FROM events WHERE type = 'subscription.credits_consumed.v1' GROUP BY 1) x`),
		"upload_to_first_publish": pgRows(t, b, `SELECT json_agg(json_build_object('merchant', merchant,
				'seconds', to_char(extract(epoch FROM pub.t - up.t), 'FM999999999990.000000')) ORDER BY merchant)
			FROM (SELECT data->>'userId' AS merchant, min(occurred_at) AS t FROM events WHERE type = 'upload.created.v1' GROUP BY 1) up
			JOIN (SELECT data->>'userId' AS merchant, min(occurred_at) AS t FROM events WHERE type = 'publication.created.v1' GROUP BY 1) pub
			USING (merchant)`),
	}
	require.Contains(t, want["credits_per_day"], `"day" : "2026-11-05"`, "the log spans several days")
	require.Equal(t, 3, strings.Count(want["upload_to_first_publish"], "merchant-"), "three merchants published")

	// docs/operations.md shows these very queries; it must not drift from what is tested.
	readme, err := os.ReadFile(filepath.Join(dir, "..", "..", "docs", "operations.md"))
	require.NoError(t, err)
	for _, q := range []string{"credits_per_day", "upload_to_first_publish"} {
		sql, err := os.ReadFile(filepath.Join(dir, q+".sql"))
		require.NoError(t, err)
		for line := range strings.Lines(string(sql)) {
			require.Contains(t, string(readme), "  "+line, "docs/operations.md's DuckDB section lacks a line of %s.sql", q)
		}
	}

	for _, format := range []eventlog.Format{eventlog.NDJSON, eventlog.Parquet} {
		file := filepath.Join(t.TempDir(), "events."+string(format))
		// Every event, once no older transaction anywhere in the cluster is
		// still open (xmin is cluster-wide: see exportN).
		data, _ := b.exportAll(t, format, len(log))
		require.NoError(t, os.WriteFile(file, data, 0o600))

		for _, q := range []string{"credits_per_day", "upload_to_first_publish"} {
			got := duckdb(t, script, file, filepath.Join(dir, q+".sql"))
			require.Equal(t, normalise(t, want[q]), normalise(t, got), "%s over the %s export", q, format)
			t.Logf("%s over %s: %s", q, format, got)
		}
	}
}

type appended struct {
	streamType, id string
	ev             events.Event
}

// pgRows runs a query that returns one JSON document.
func pgRows(t *testing.T, b bundle, sql string) string {
	t.Helper()
	var out string
	require.NoError(t, b.db.Pool.QueryRow(b.ctx, sql).Scan(&out))
	return out
}

// normalise turns a JSON array of rows into comparable text: every value as
// a string, numbers to 6 decimals (DuckDB's doubles and Postgres's numerics
// print differently), keys sorted by encoding/json.
func normalise(t *testing.T, doc string) string {
	t.Helper()
	var rows []map[string]any
	dec := json.NewDecoder(strings.NewReader(doc))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&rows), doc)
	for _, r := range rows {
		for k, v := range r {
			s := fmt.Sprint(v)
			if f, err := strconv.ParseFloat(s, 64); err == nil {
				s = strconv.FormatFloat(f, 'f', 6, 64)
			}
			r[k] = s
		}
	}
	out, err := json.Marshal(rows)
	require.NoError(t, err)
	return string(out)
}

// duckdbTool finds tools/duckdb and fails (never skips) when node or its npm
// packages are missing: `make test` installs them (npm ci in tools/duckdb), and
// a skipped check would let an unreadable export through silently.
func duckdbTool(t *testing.T) (script, dir string) {
	t.Helper()
	_, here, _, ok := runtime.Caller(0)
	require.True(t, ok)
	dir = filepath.Join(filepath.Dir(here), "..", "..", "tools", "duckdb")
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("DuckDB check: node is not on PATH; run make test, which installs tools/duckdb: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@duckdb", "node-api", "package.json")); err != nil {
		t.Fatalf("DuckDB check: %s/node_modules is missing; run make test (npm ci in tools/duckdb): %v", dir, err)
	}
	return filepath.Join(dir, "query.mjs"), dir
}

// duckdb runs one SQL file over an export file and returns its JSON rows.
func duckdb(t *testing.T, script, file, sqlFile string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("node", script, file, sqlFile)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "duckdb on %s: %s", file, stderr.String())
	return strings.TrimSpace(stdout.String())
}
