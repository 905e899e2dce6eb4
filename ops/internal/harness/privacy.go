package harness

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// BaseTables lists every base table of the database's schema, from
// information_schema, so a table added later is scanned without touching
// the checks: events, read models, River's jobs, webhook deliveries,
// idempotency records, notifications…
func BaseTables(ctx context.Context, pool *pgxpool.Pool) ([]string, error) {
	rows, err := pool.Query(ctx, `SELECT quote_ident(table_name) FROM information_schema.tables
		WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1`)
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	// A schema without the log or River's table is not the product's: a scan
	// of it would find nothing and prove nothing.
	for _, must := range []string{"events", "river_job"} {
		found := false
		for _, t := range tables {
			found = found || t == must
		}
		if !found {
			return nil, fmt.Errorf("list tables: no %s table in the current schema", must)
		}
	}
	return tables, nil
}

// TablesHolding counts, in every base table (BaseTables), the rows whose
// text contains needle, case-insensitively; tables without any are left
// out. A bytea column shows as hex in a row's text form (idempotency
// records store response bodies as bytea), so the needle's hex is looked
// for too. This is the check internal/httpapi's privacy test makes after an
// erasure, run against a live database.
func TablesHolding(ctx context.Context, pool *pgxpool.Pool, needle string) (map[string]int, error) {
	if strings.TrimSpace(needle) == "" {
		return nil, errors.New("tables holding: an empty needle matches everything")
	}
	tables, err := BaseTables(ctx, pool)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, tbl := range tables {
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM `+tbl+` x
			WHERE strpos(lower(x::text), lower($1)) > 0 OR strpos(x::text, encode(convert_to($1, 'UTF8'), 'hex')) > 0`, needle).Scan(&n); err != nil {
			return nil, fmt.Errorf("scan %s: %w", tbl, err)
		}
		if n > 0 {
			out[tbl] = n
		}
	}
	return out, nil
}

// BlobFilesContaining lists the files of the file blob store under dataDir
// (DATA_DIR/blobs, the default BLOB_URL) whose path contains s, relative to
// the store: a user's id is in the key of every file that belongs to them
// (uploads/, models/, exports/… followed by the id). They are the files as
// they lie on disk, so fileblob's attribute sidecars (KEY.attrs) and the
// temporary files of unfinished writes (KEY.*.tmp) show as themselves:
// those are invisible through the bucket's listing, so a process killed
// half-way through writing or deleting a blob may leave them. A missing
// store holds nothing.
func BlobFilesContaining(dataDir, s string) ([]string, error) {
	root := filepath.Join(dataDir, "blobs")
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		if rel = filepath.ToSlash(rel); strings.Contains(rel, s) {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("walk the blob store %s: %w", root, err)
	}
	return files, nil
}
