// Package migrate brings a database up to date: the project's numbered SQL
// files first, then River's own tables. Both run under one advisory lock, so
// several processes starting at once (api, worker, tests) never race.
package migrate

import (
	"context"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/photo3d/photo3d/migrations"
)

// lockKey is an arbitrary constant shared by every migrating process.
const lockKey = 7_340_421_113

// Up applies every pending migration and returns the names it applied.
func Up(ctx context.Context, pool *pgxpool.Pool) ([]string, error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("acquire connection: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, lockKey); err != nil {
		return nil, fmt.Errorf("take migration lock: %w", err)
	}
	defer func() { _, _ = conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, lockKey) }()

	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return nil, fmt.Errorf("create schema_migrations: %w", err)
	}
	files, err := list()
	if err != nil {
		return nil, err
	}
	var applied []string
	for _, f := range files {
		var exists bool
		if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1)`, f.version).Scan(&exists); err != nil {
			return nil, fmt.Errorf("check migration %s: %w", f.name, err)
		}
		if exists {
			continue
		}
		sql, err := fs.ReadFile(migrations.FS, f.name)
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", f.name, err)
		}
		err = pgx.BeginFunc(ctx, conn.Conn(), func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, string(sql)); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, f.version, f.name)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("apply migration %s: %w", f.name, err)
		}
		applied = append(applied, f.name)
	}

	migrator, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return nil, fmt.Errorf("create river migrator: %w", err)
	}
	res, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil)
	if err != nil {
		return nil, fmt.Errorf("migrate river: %w", err)
	}
	for _, v := range res.Versions {
		applied = append(applied, fmt.Sprintf("river_%03d_%s", v.Version, v.Name))
	}
	return applied, nil
}

type file struct {
	version int
	name    string
}

func list() ([]file, error) {
	entries, err := fs.ReadDir(migrations.FS, ".")
	if err != nil {
		return nil, fmt.Errorf("list migrations: %w", err)
	}
	var out []file
	seen := map[int]string{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %s: name must start with a number and an underscore", e.Name())
		}
		if prev, dup := seen[v]; dup {
			return nil, fmt.Errorf("migrations %s and %s share number %d", prev, e.Name(), v)
		}
		seen[v] = e.Name()
		out = append(out, file{version: v, name: e.Name()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	return out, nil
}
