package publish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// Projection keeps the publications and publication_versions tables in step
// with the publication-{id} streams. It runs inline (inside the append's
// transaction) because the merchant reads a new link back at once and the
// public page must stop serving the moment an unpublish commits.
type Projection struct{}

// Apply implements eventstore.Inline.
func (Projection) Apply(ctx context.Context, tx pgx.Tx, e eventstore.Envelope) error {
	switch ev := e.Data.(type) {
	case events.PublicationCreated:
		_, err := tx.Exec(ctx, `INSERT INTO publications (id, user_id, blueprint_id, product_id, gallery_id, slug, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`, ev.PublicationID, ev.UserID, ev.BlueprintID, ev.ProductID, ev.GalleryID, ev.Slug, ev.At)
		if err != nil {
			return fmt.Errorf("insert publication %s: %w", ev.PublicationID, err)
		}
	case events.PublicationVersioned:
		snap, err := json.Marshal(ev.Snapshot)
		if err != nil {
			return fmt.Errorf("encode snapshot: %w", err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO publication_versions (publication_id, version, snapshot, created_at)
			VALUES ($1, $2, $3, $4)`, ev.PublicationID, ev.Version, snap, ev.At); err != nil {
			return fmt.Errorf("insert version %d of %s: %w", ev.Version, ev.PublicationID, err)
		}
		if _, err := tx.Exec(ctx, `UPDATE publications SET current_version = greatest(current_version, $2), updated_at = $3
			WHERE id = $1`, ev.PublicationID, ev.Version, ev.At); err != nil {
			return fmt.Errorf("update publication %s: %w", ev.PublicationID, err)
		}
	case events.PublicationLocked:
		if _, err := tx.Exec(ctx, `UPDATE publications SET locked_version = $2, updated_at = $3 WHERE id = $1`,
			ev.PublicationID, ev.Version, e.OccurredAt); err != nil {
			return fmt.Errorf("lock publication %s: %w", ev.PublicationID, err)
		}
	case events.PublicationUnpublished:
		if _, err := tx.Exec(ctx, `UPDATE publications SET unpublished_at = $2, updated_at = $2 WHERE id = $1`,
			ev.PublicationID, ev.At); err != nil {
			return fmt.Errorf("unpublish %s: %w", ev.PublicationID, err)
		}
	case events.PublicationEmbedOriginsSet:
		origins := ev.Origins
		if origins == nil {
			origins = []string{}
		}
		if _, err := tx.Exec(ctx, `UPDATE publications SET embed_origins = $2, updated_at = $3 WHERE id = $1`,
			ev.PublicationID, origins, e.OccurredAt); err != nil {
			return fmt.Errorf("set embed origins of %s: %w", ev.PublicationID, err)
		}
	case events.PublicationSettingsChanged:
		if _, err := tx.Exec(ctx, `UPDATE publications SET require_email = $2, allow_deep_links = $3, updated_at = $4
			WHERE id = $1`, ev.PublicationID, ev.RequireEmail, ev.AllowDeepLinks, ev.At); err != nil {
			return fmt.Errorf("change settings of %s: %w", ev.PublicationID, err)
		}
	case events.PublicViewsExhausted:
		// Recorded by the metering marker table in the same transaction.
	}
	return nil
}

// record is one publications row.
type record struct {
	ID             string
	UserID         string
	BlueprintID    string
	ProductID      string // set instead of BlueprintID for a product page
	GalleryID      string // set instead of both for a gallery page (/g/{slug})
	RequireEmail   bool
	AllowDeepLinks bool
	Slug           string
	CurrentVersion int
	LockedVersion  int
	UnpublishedAt  *time.Time
	CreatedAt      time.Time
	UpdatedAt      time.Time
	EmbedOrigins   []string // sites allowed to frame /embed; empty: any
}

// versionRow is one publication_versions row.
type versionRow struct {
	Version   int
	Snapshot  Snapshot
	CreatedAt time.Time
}

const recordColumns = `id, user_id, blueprint_id, product_id, gallery_id, require_email, allow_deep_links, slug, current_version,
	locked_version, unpublished_at, created_at, updated_at, embed_origins`

func scanRecord(row pgx.Row) (record, error) {
	var r record
	err := row.Scan(&r.ID, &r.UserID, &r.BlueprintID, &r.ProductID, &r.GalleryID, &r.RequireEmail, &r.AllowDeepLinks, &r.Slug,
		&r.CurrentVersion, &r.LockedVersion, &r.UnpublishedAt, &r.CreatedAt, &r.UpdatedAt, &r.EmbedOrigins)
	return r, err
}

// errNoRow is returned by the single-row readers when nothing matches.
var errNoRow = errors.New("no such publication")

func oneRecord(ctx context.Context, q pgdb.Querier, where string, args ...any) (record, error) {
	r, err := scanRecord(q.QueryRow(ctx, `SELECT `+recordColumns+` FROM publications WHERE `+where, args...))
	if errors.Is(err, pgx.ErrNoRows) {
		return record{}, errNoRow
	}
	if err != nil {
		return record{}, fmt.Errorf("read publication: %w", err)
	}
	return r, nil
}

// liveByBlueprint finds the live publication of a blueprint, if any.
func liveByBlueprint(ctx context.Context, q pgdb.Querier, blueprintID string) (record, error) {
	return oneRecord(ctx, q, `blueprint_id = $1 AND blueprint_id <> '' AND unpublished_at IS NULL`, blueprintID)
}

// liveByProduct finds the live publication of a product, if any.
func liveByProduct(ctx context.Context, q pgdb.Querier, productID string) (record, error) {
	return oneRecord(ctx, q, `product_id = $1 AND product_id <> '' AND unpublished_at IS NULL`, productID)
}

// liveByGallery finds the live publication of a gallery, if any.
func liveByGallery(ctx context.Context, q pgdb.Querier, galleryID string) (record, error) {
	return oneRecord(ctx, q, `gallery_id = $1 AND gallery_id <> '' AND unpublished_at IS NULL`, galleryID)
}

// byID reads a publication whatever its state.
func byID(ctx context.Context, q pgdb.Querier, id string) (record, error) {
	return oneRecord(ctx, q, `id = $1`, id)
}

// listByUser lists a user's publications, newest first, optionally for one blueprint.
func listByUser(ctx context.Context, q pgdb.Querier, userID, blueprintID string) ([]record, error) {
	rows, err := q.Query(ctx, `SELECT `+recordColumns+` FROM publications
		WHERE user_id = $1 AND ($2 = '' OR blueprint_id = $2 OR product_id = $2 OR gallery_id = $2)
		ORDER BY unpublished_at IS NOT NULL, created_at DESC, id DESC LIMIT 500`, userID, blueprintID)
	if err != nil {
		return nil, fmt.Errorf("list publications: %w", err)
	}
	defer rows.Close()
	var out []record
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			return nil, fmt.Errorf("scan publication: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// versionsOf lists a publication's versions in order.
func versionsOf(ctx context.Context, q pgdb.Querier, id string) ([]versionRow, error) {
	rows, err := q.Query(ctx, `SELECT version, snapshot, created_at FROM publication_versions
		WHERE publication_id = $1 ORDER BY version`, id)
	if err != nil {
		return nil, fmt.Errorf("list versions: %w", err)
	}
	defer rows.Close()
	var out []versionRow
	for rows.Next() {
		var v versionRow
		var raw []byte
		if err := rows.Scan(&v.Version, &raw, &v.CreatedAt); err != nil {
			return nil, fmt.Errorf("scan version: %w", err)
		}
		if err := json.Unmarshal(raw, &v.Snapshot); err != nil {
			return nil, fmt.Errorf("decode snapshot: %w", err)
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// versionSnapshot reads one version's snapshot.
func versionSnapshot(ctx context.Context, q pgdb.Querier, id string, version int) (Snapshot, error) {
	var raw []byte
	err := q.QueryRow(ctx, `SELECT snapshot FROM publication_versions WHERE publication_id = $1 AND version = $2`, id, version).Scan(&raw)
	if err != nil {
		return Snapshot{}, fmt.Errorf("read version %d of %s: %w", version, id, err)
	}
	var s Snapshot
	if err := json.Unmarshal(raw, &s); err != nil {
		return Snapshot{}, fmt.Errorf("decode snapshot: %w", err)
	}
	return s, nil
}

// ownerErased reports whether the slug's publication belongs to an account
// whose deletion was requested: its pages answer 410 from that moment.
func ownerErased(ctx context.Context, q pgdb.Querier, slug string) (bool, error) {
	var erased bool
	err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM publications p JOIN users u ON u.id = p.user_id
		WHERE p.slug = $1 AND `+account.WorkspaceErasing+`)`, slug).Scan(&erased)
	if err != nil {
		return false, fmt.Errorf("read page owner: %w", err)
	}
	return erased, nil
}

// liveBySlug is the public pages' one query: the live publication behind a
// slug and, when it is locked, the locked snapshot. It is a primary-key-like
// lookup on the unique slug index.
func liveBySlug(ctx context.Context, q pgdb.Querier, slug string) (record, *Snapshot, error) {
	var r record
	var raw []byte
	err := q.QueryRow(ctx, `SELECT p.id, p.user_id, p.blueprint_id, p.product_id, p.gallery_id, p.require_email, p.allow_deep_links,
			p.slug, p.current_version, p.locked_version, p.unpublished_at, p.created_at, p.updated_at, p.embed_origins, v.snapshot
		FROM publications p
		LEFT JOIN publication_versions v ON v.publication_id = p.id AND v.version = p.locked_version
		WHERE p.slug = $1 AND p.unpublished_at IS NULL`, slug).
		Scan(&r.ID, &r.UserID, &r.BlueprintID, &r.ProductID, &r.GalleryID, &r.RequireEmail, &r.AllowDeepLinks, &r.Slug,
			&r.CurrentVersion, &r.LockedVersion, &r.UnpublishedAt, &r.CreatedAt, &r.UpdatedAt, &r.EmbedOrigins, &raw)
	if errors.Is(err, pgx.ErrNoRows) {
		return record{}, nil, errNoRow
	}
	if err != nil {
		return record{}, nil, fmt.Errorf("read publication by slug: %w", err)
	}
	if raw == nil {
		return r, nil, nil
	}
	var s Snapshot
	if err := json.Unmarshal(raw, &s); err != nil {
		return record{}, nil, fmt.Errorf("decode snapshot: %w", err)
	}
	return r, &s, nil
}
