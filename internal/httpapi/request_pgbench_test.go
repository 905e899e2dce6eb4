package httpapi

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The pgbench half of BenchmarkRequestPaths: what a request sends to
// Postgres, recorded through a pgx tracer, turned into a pgbench script.

// capturedStmt is one statement a request sent, with its arguments;
// statements of one pipelined pgx batch share a batch number (> 0).
type capturedStmt struct {
	sql   string
	args  []any
	batch int
}

// sqlCapture collects the statements of one request (its context carries
// the capture under captureKey).
type sqlCapture struct {
	mu      sync.Mutex
	stmts   []capturedStmt
	batches int
}

type captureKey struct{}

// sqlTracer records the statements of requests whose context holds a
// *sqlCapture; others pass untouched.
type sqlTracer struct{}

func (sqlTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	if c, ok := ctx.Value(captureKey{}).(*sqlCapture); ok {
		c.mu.Lock()
		c.stmts = append(c.stmts, capturedStmt{sql: d.SQL, args: d.Args})
		c.mu.Unlock()
	}
	return ctx
}

func (sqlTracer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (sqlTracer) TraceBatchStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	if c, ok := ctx.Value(captureKey{}).(*sqlCapture); ok {
		c.mu.Lock()
		batch := 0
		if len(d.Batch.QueuedQueries) > 1 {
			c.batches++
			batch = c.batches
		}
		for _, q := range d.Batch.QueuedQueries {
			c.stmts = append(c.stmts, capturedStmt{sql: q.SQL, args: q.Arguments, batch: batch})
		}
		c.mu.Unlock()
	}
	return ctx
}

func (sqlTracer) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (sqlTracer) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// tokenKind says where a value that must differ between pgbench's
// transactions comes from.
type tokenKind int

const (
	// tokMerchant: the client's merchant (reqbench_merchants, read once
	// per client with \gset).
	tokMerchant tokenKind = iota
	// tokSeeded: the transaction's seeded product (pgbenchProductID).
	tokSeeded
	// tokFresh: an id the request makes (a uuid), new per transaction.
	tokFresh
	// tokSlug: a publication's new slug (16 characters).
	tokSlug
)

// token is a value in the captured statements and what stands for it in
// the script.
type token struct {
	value, name string
	kind        tokenKind
}

// expr is the SQL expression pgbench evaluates for the token (text). Fresh
// ids derive from the run, the client and the transaction number, so no
// two transactions collide; '/' separates them (a ':' followed by a letter
// would be a pgbench variable).
func (t token) expr() string {
	seed := func(name string) string {
		return "md5(:run::text || '/" + name + "/' || :client_id::text || '/' || :n::text)"
	}
	switch t.kind {
	case tokMerchant:
		return ":" + t.name + "::text"
	case tokSlug:
		return "left(" + seed(t.name) + ", 16)"
	default:
		return seed(t.name) + "::uuid::text"
	}
}

var uuidRe = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// pgbenchScript turns one request's statements into a pgbench script
// (-M prepared): each statement as it was sent, its arguments inlined as
// typed literals (encoded as pgx encodes them for the statement's
// parameter types), the known values and every other uuid (an id the
// request made) replaced by per-transaction expressions. Pipelined batches
// stay pipelines. An event append's expected version of an existing stream
// (the merchant's subscription) becomes "any": pgbench's transaction
// appends there too, without the read that told the request its version.
func pgbenchScript(ctx context.Context, pool *pgxpool.Pool, stmts []capturedStmt, known []token) (string, error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Release()
	tokens := slices.Clone(known)
	var w strings.Builder
	w.WriteString(`-- The SQL of one request, captured through a pgx tracer and written by
-- BenchmarkRequestPaths (internal/httpapi), which seeds the merchants
-- (reqbench_merchants) and, for publish, the products it reads, then runs:
--   pgbench -n -M prepared -c CLIENTS -t N -D run=ID -D n=0 -D m_ready=0 -D set=SET -f THIS
-- Arguments are inlined as typed literals; ids the request made are
-- md5(run, client, transaction) expressions, the merchant's are read once per client.
\set n :n + 1
\if :m_ready = 0
SELECT user_id AS m_user, upload_id AS m_upload, catalog_id AS m_catalog, blueprint_id AS m_blueprint
  FROM reqbench_merchants WHERE set_name = :set AND client = :client_id \gset
\set m_ready 1
\endif
`)
	inBatch := 0
	for _, st := range stmts {
		sql, args := st.sql, st.args
		if strings.Contains(sql, "topic_to_notify") {
			// River's insert notification goes out at most once per queue
			// per FetchCooldown (100 ms) per client; under load almost no
			// request sends it, so neither does pgbench.
			w.WriteString("-- left out: River's throttled insert NOTIFY\n")
			continue
		}
		if len(args) > 0 {
			if rw, ok := args[0].(pgx.QueryRewriter); ok {
				if sql, args, err = rw.RewriteQuery(ctx, conn.Conn(), sql, args[1:]); err != nil {
					return "", err
				}
			}
		}
		args = slices.DeleteFunc(slices.Clone(args), func(a any) bool {
			switch a.(type) {
			case pgx.QueryExecMode, pgx.QueryResultFormats, pgx.QueryResultFormatsByOID:
				return true
			}
			return false
		})
		var oids []uint32
		if len(args) > 0 {
			sd, err := conn.Conn().Prepare(ctx, "", sql)
			if err != nil {
				return "", fmt.Errorf("describe %q: %w", sql, err)
			}
			oids = sd.ParamOIDs
			if len(oids) != len(args) {
				return "", fmt.Errorf("%q: %d parameters, %d arguments", sql, len(oids), len(args))
			}
		}
		lits := make([]string, len(args))
		for i, a := range args {
			text, isNull, err := encodeText(conn.Conn().TypeMap(), oids[i], a)
			if err != nil {
				return "", fmt.Errorf("%q argument %d: %w", sql, i+1, err)
			}
			typ, err := typeName(ctx, conn.Conn(), oids[i])
			if err != nil {
				return "", err
			}
			if isNull {
				lits[i] = "NULL::" + typ
				continue
			}
			if i == 2 && strings.Contains(sql, "INSERT INTO events") && strings.Contains(sql, "current.v = $3") {
				if v, err := strconv.ParseInt(text, 10, 64); err == nil && v > 0 {
					text = "-1" // an existing stream: append at any version
				}
			}
			if typ == "bytea" || typ == "bytea[]" {
				// A River job's unique key (a hash of its args): new per
				// transaction, as the args it hashes are.
				lits[i] = freshBytes(text, typ, i)
				continue
			}
			// Ids the request made: fresh per transaction.
			for _, u := range uuidRe.FindAllString(text, -1) {
				if !slices.ContainsFunc(tokens, func(t token) bool { return t.value == u }) {
					tokens = append(tokens, token{value: u, name: fmt.Sprintf("id%d", len(tokens)), kind: tokFresh})
				}
			}
			lits[i] = literal(text, typ, tokens)
		}
		body, err := inlineParams(stripComments(sql), lits)
		if err != nil {
			return "", err
		}
		switch {
		case st.batch != 0 && st.batch != inBatch:
			if inBatch != 0 {
				w.WriteString("\\endpipeline\n")
			}
			w.WriteString("\\startpipeline\n")
			inBatch = st.batch
		case st.batch == 0 && inBatch != 0:
			w.WriteString("\\endpipeline\n")
			inBatch = 0
		}
		w.WriteString(body + ";\n")
	}
	if inBatch != 0 {
		w.WriteString("\\endpipeline\n")
	}
	return w.String(), nil
}

// freshBytes stands for a bytea (or bytea[]) value the request derived
// from its fresh ids: a per-transaction md5 of the same shape (NULLs kept).
func freshBytes(text, typ string, arg int) string {
	one := func(k int) string {
		return fmt.Sprintf("decode(md5(:run::text || '/bytes%d.%d/' || :client_id::text || '/' || :n::text), 'hex')", arg, k)
	}
	if typ == "bytea" {
		return one(0)
	}
	var elems []string
	for k, e := range strings.Split(strings.Trim(text, "{}"), ",") {
		if e == "NULL" {
			elems = append(elems, "NULL")
		} else {
			elems = append(elems, one(k))
		}
	}
	return "ARRAY[" + strings.Join(elems, ", ") + "]::bytea[]"
}

// encodeText is a's text form as pgx sends it for a parameter of type oid.
func encodeText(m *pgtype.Map, oid uint32, a any) (string, bool, error) {
	if a == nil {
		return "", true, nil
	}
	if _, ok := m.TypeForOID(oid); !ok {
		oid = pgtype.TextOID // an enum or a type pgx does not know: sent as text
	}
	buf, err := m.Encode(oid, pgtype.TextFormatCode, a, make([]byte, 0, 64)) // nil only for NULL
	if err != nil {
		return "", false, err
	}
	if buf == nil {
		return "", true, nil
	}
	return string(buf), false, nil
}

func typeName(ctx context.Context, conn *pgx.Conn, oid uint32) (string, error) {
	var name string
	err := conn.QueryRow(ctx, `SELECT format_type($1, NULL)`, oid).Scan(&name)
	return name, err
}

// literal renders text as a SQL expression of type typ, each token in it
// replaced by its expression. A ':' followed by a letter ends a quoted
// piece ('…:' || 'true…'), or pgbench would read a variable there.
func literal(text, typ string, tokens []token) string {
	var parts []string
	quote := func(s string) {
		for s != "" {
			cut := len(s)
			for i := 0; i+1 < len(s); i++ {
				if s[i] == ':' && isVarStart(s[i+1]) {
					cut = i + 1
					break
				}
			}
			parts = append(parts, "'"+strings.ReplaceAll(s[:cut], "'", "''")+"'")
			s = s[cut:]
		}
	}
	for text != "" {
		at, which := -1, -1
		for i, t := range tokens {
			if j := strings.Index(text, t.value); j >= 0 && (at < 0 || j < at || j == at && len(t.value) > len(tokens[which].value)) {
				at, which = j, i
			}
		}
		if at < 0 {
			quote(text)
			break
		}
		quote(text[:at])
		parts = append(parts, tokens[which].expr())
		text = text[at+len(tokens[which].value):]
	}
	switch {
	case len(parts) == 0:
		return "''::" + typ
	case len(parts) == 1:
		return "(" + parts[0] + ")::" + typ
	}
	if strings.HasPrefix(parts[0], "'") {
		parts[0] += "::text"
	}
	return "(" + strings.Join(parts, " || ") + ")::" + typ
}

func isVarStart(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80
}

// stripComments drops -- comments (sqlc's "-- name: X :many" would be
// pgbench variables) and folds the statement onto one line.
func stripComments(sql string) string {
	var out strings.Builder
	inQuote := false
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		switch {
		case c == '\'':
			inQuote = !inQuote
		case !inQuote && c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			for i < len(sql) && sql[i] != '\n' {
				i++
			}
			c = ' '
		case !inQuote && (c == '\n' || c == '\t' || c == '\r'):
			c = ' '
		}
		out.WriteByte(c)
	}
	return strings.TrimRight(strings.TrimSpace(out.String()), ";")
}

// inlineParams replaces $1…$n outside quotes by lits.
func inlineParams(sql string, lits []string) (string, error) {
	var out strings.Builder
	inQuote := false
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		if c == '\'' {
			inQuote = !inQuote
		}
		if c != '$' || inQuote || i+1 >= len(sql) || sql[i+1] < '0' || sql[i+1] > '9' {
			out.WriteByte(c)
			continue
		}
		j := i + 1
		for j < len(sql) && sql[j] >= '0' && sql[j] <= '9' {
			j++
		}
		n, _ := strconv.Atoi(sql[i+1 : j])
		if n < 1 || n > len(lits) {
			return "", fmt.Errorf("%q: $%d without an argument", sql, n)
		}
		out.WriteString(lits[n-1])
		i = j - 1
	}
	if strings.Contains(stripQuoted(out.String()), ";") {
		return "", fmt.Errorf("%q: more than one statement", sql)
	}
	return out.String(), nil
}

func stripQuoted(s string) string {
	var out strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			in = !in
			continue
		}
		if !in {
			out.WriteByte(s[i])
		}
	}
	return out.String()
}

// pgbenchResult is what pgbench measured: transactions/s and every
// transaction's latency (ms).
type pgbenchResult struct {
	tps float64
	lat []float64
}

// runPgbench runs script with clients clients, merchants of set, perClient
// transactions each, and reads the latencies from its transaction log.
func runPgbench(b *testing.B, bin, dbURL, script, run, set string, clients, perClient int) *pgbenchResult {
	b.Helper()
	dir := b.TempDir()
	file := filepath.Join(dir, "request.sql")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		b.Fatal(err)
	}
	threads := min(clients, 2)
	cmd := exec.Command(bin, "-n", "-M", "prepared", "-c", strconv.Itoa(clients), "-j", strconv.Itoa(threads),
		"-t", strconv.Itoa(perClient), "-D", "run="+run, "-D", "n=0", "-D", "m_ready=0", "-D", "set="+set,
		"-l", "--log-prefix", filepath.Join(dir, "tx"), "-r", "-f", file, dbURL)
	out, err := cmd.CombinedOutput()
	if err != nil || strings.Contains(string(out), "aborted") {
		b.Fatalf("pgbench: %v\n%s\nscript:\n%s", err, out, script)
	}
	if os.Getenv("REQBENCH_DUMP") != "" {
		fmt.Fprintf(os.Stderr, "pgbench:\n%s", out)
	}
	res := &pgbenchResult{}
	for l := range strings.Lines(string(out)) {
		if f := strings.Fields(l); len(f) >= 3 && f[0] == "tps" {
			res.tps, _ = strconv.ParseFloat(f[2], 64)
		}
	}
	if res.tps == 0 {
		b.Fatalf("pgbench printed no tps:\n%s", out)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "tx.*"))
	lat := make([]float64, 0, clients*perClient)
	for _, l := range logs {
		f, err := os.Open(l)
		if err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if fs := strings.Fields(sc.Text()); len(fs) >= 3 {
				us, _ := strconv.ParseFloat(fs[2], 64)
				lat = append(lat, us/1000)
			}
		}
		_ = f.Close()
	}
	if len(lat) == 0 {
		b.Fatalf("no pgbench transaction log in %s", dir)
	}
	res.lat = lat
	return res
}

// The script writer's text handling: tokens become their expressions, a
// ':' before a letter never reaches pgbench inside one quoted piece, quotes
// are doubled, comments go, and $n inside quotes is left alone.
func TestPgbenchScriptText(t *testing.T) {
	t.Parallel()
	toks := []token{{value: "u-1", name: "m_user", kind: tokMerchant}, {value: "u-1/x", name: "id9", kind: tokFresh}}
	for _, c := range []struct{ text, typ, want string }{
		{"plain", "text", "('plain')::text"},
		{"", "text", "''::text"},
		{"u-1", "text", "(:m_user::text)::text"},
		{"it's u-1!", "text", "('it''s '::text || :m_user::text || '!')::text"},
		{`{"a":true,"b":1}`, "jsonb", `('{"a":'::text || 'true,"b":1}')::jsonb`},
		{"key/u-1/x", "text", "('key/'::text || md5(:run::text || '/id9/' || :client_id::text || '/' || :n::text)::uuid::text)::text"},
	} {
		if got := literal(c.text, c.typ, toks); got != c.want {
			t.Errorf("literal(%q) = %s, want %s", c.text, got, c.want)
		}
	}
	if got := stripComments("-- name: X :many\nSELECT 1, '--' -- note\nFROM t;"); got != "SELECT 1, '--'  FROM t" {
		t.Errorf("stripComments: %q", got)
	}
	got, err := inlineParams("SELECT $1, '$2', $10", []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"})
	if err != nil || got != "SELECT a, '$2', j" {
		t.Errorf("inlineParams: %q, %v", got, err)
	}
	if _, err := inlineParams("SELECT 1; SELECT 2", nil); err == nil {
		t.Error("two statements accepted")
	}
	if got := freshBytes(`{NULL,"\\x01"}`, "bytea[]", 3); !strings.HasPrefix(got, "ARRAY[NULL, decode(md5(") {
		t.Errorf("freshBytes: %s", got)
	}
}
