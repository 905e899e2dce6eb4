// Package dbtest gives every database test its own fresh, fully migrated
// Postgres database, cloned in milliseconds from a template that is migrated
// once per migration set. Tests are therefore isolated (River tables included)
// and can run in parallel against the real server.
//
// TEST_DATABASE_URL points at the server (make test starts a throwaway one).
// When it is unset or unreachable the test FAILS with instructions: a suite
// that skips silently when Postgres is missing would pass in CI while testing
// nothing.
package dbtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/photo3d/photo3d/internal/migrate"
	"github.com/photo3d/photo3d/migrations"
)

// EnvURL names the environment variable holding the test server's URL.
const EnvURL = "TEST_DATABASE_URL"

// DB is one throwaway database.
type DB struct {
	Pool *pgxpool.Pool
	URL  string
	Name string
}

// New creates a fresh migrated database for t and drops it when t ends.
func New(t testing.TB) *DB {
	t.Helper()
	base := os.Getenv(EnvURL)
	if base == "" {
		t.Fatalf("%s is not set: database tests need a real Postgres. Run `make test`, which starts a throwaway server, or export %s=postgres://…", EnvURL, EnvURL)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to %s: %v (is the test Postgres running? `make test` starts one)", EnvURL, err)
	}
	defer admin.Close(context.Background())

	tpl, err := ensureTemplate(ctx, admin, base)
	if err != nil {
		t.Fatalf("prepare template database: %v", err)
	}
	name := "t_" + randomHex(8)
	// CREATE DATABASE … TEMPLATE fails if another session is cloning the same
	// template at that instant; retry briefly.
	for attempt := 0; ; attempt++ {
		_, err = admin.Exec(ctx, fmt.Sprintf(`CREATE DATABASE %s TEMPLATE %s`, name, tpl))
		if err == nil || attempt > 50 {
			break
		}
		time.Sleep(time.Duration(20+attempt*10) * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("create test database: %v", err)
	}
	dbURL := withDatabase(base, name)
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		t.Fatalf("open test database: %v", err)
	}
	t.Cleanup(func() {
		pool.Close()
		c, err := pgx.Connect(context.Background(), base)
		if err != nil {
			return
		}
		defer c.Close(context.Background())
		_, _ = c.Exec(context.Background(), fmt.Sprintf(`DROP DATABASE IF EXISTS %s WITH (FORCE)`, name))
	})
	return &DB{Pool: pool, URL: dbURL, Name: name}
}

// ensureTemplate creates and migrates the template named after a hash of the
// migrations, under an advisory lock shared by all test processes.
func ensureTemplate(ctx context.Context, admin *pgx.Conn, base string) (string, error) {
	h := sha256.New()
	_ = fs.WalkDir(migrations.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := fs.ReadFile(migrations.FS, path)
			h.Write([]byte(path))
			h.Write(b)
		}
		return nil
	})
	name := "tpl_" + hex.EncodeToString(h.Sum(nil))[:16]

	if _, err := admin.Exec(ctx, `SELECT pg_advisory_lock(4242)`); err != nil {
		return "", err
	}
	defer func() { _, _ = admin.Exec(context.Background(), `SELECT pg_advisory_unlock(4242)`) }()

	var exists bool
	if err := admin.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
		return "", err
	}
	if exists {
		return name, nil
	}
	building := name + "_build"
	_, _ = admin.Exec(ctx, fmt.Sprintf(`DROP DATABASE IF EXISTS %s WITH (FORCE)`, building))
	if _, err := admin.Exec(ctx, fmt.Sprintf(`CREATE DATABASE %s`, building)); err != nil {
		return "", err
	}
	pool, err := pgxpool.New(ctx, withDatabase(base, building))
	if err != nil {
		return "", err
	}
	_, err = migrate.Up(ctx, pool)
	pool.Close()
	if err != nil {
		return "", fmt.Errorf("migrate template: %w", err)
	}
	if _, err := admin.Exec(ctx, fmt.Sprintf(`ALTER DATABASE %s RENAME TO %s`, building, name)); err != nil {
		return "", err
	}
	return name, nil
}

func withDatabase(base, name string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	u.Path = "/" + name
	return u.String()
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// PoolOf opens another pool of n connections on this database, closed when t
// ends: benchmarks of many concurrent writers need more than Pool's default
// of max(4, GOMAXPROCS), which would let only 4 of them commit at a time.
func (d *DB) PoolOf(t testing.TB, n int32) *pgxpool.Pool {
	t.Helper()
	cfg := d.Pool.Config()
	cfg.MaxConns = n
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatalf("open a pool of %d: %v", n, err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// VerifiedUser makes the account id (a users row and a verified address, as
// sign-up and the mailed link leave them, without the user stream's events)
// for tests of contexts that need an account but not its history: API keys
// and webhooks are refused to unverified accounts.
func (d *DB) VerifiedUser(t testing.TB, id string) {
	t.Helper()
	ctx := context.Background()
	_, err := d.Pool.Exec(ctx, `INSERT INTO users (id, version, created_at) VALUES ($1, 0, now())
		ON CONFLICT (id) DO NOTHING`, id)
	if err == nil {
		_, err = d.Pool.Exec(ctx, `INSERT INTO user_pii (user_id, email, name) VALUES ($1, lower($1) || '@example.test', 'Test user')
			ON CONFLICT (user_id) DO NOTHING`, id)
	}
	if err == nil {
		_, err = d.Pool.Exec(ctx, `INSERT INTO account_security (user_id, email_verified_at) VALUES ($1, now())
			ON CONFLICT (user_id) DO UPDATE SET email_verified_at = coalesce(account_security.email_verified_at, now())`, id)
	}
	if err != nil {
		t.Fatalf("create verified user %s: %v", id, err)
	}
}
