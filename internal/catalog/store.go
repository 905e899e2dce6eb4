package catalog

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// Every SQL statement of the catalogue lives in this file: the projection's
// reads of the log and upserts first, then the service's reads.

// lockMerchant serialises every catalogue write of one merchant for the rest
// of tx (plan limits, the default catalog, moves on catalog deletion).
func lockMerchant(ctx context.Context, tx pgx.Tx, userID string) error {
	_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('catalogue/' || $1, 0))`, userID)
	return wrap(err, "lock catalogue")
}

// accountErasing reports whether the merchant asked for their account to
// be erased (the request commits before the erasure job runs).
func accountErasing(ctx context.Context, q pgdb.Querier, userID string) (bool, error) {
	var erasing bool
	err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM users u WHERE u.id = $1 AND `+account.WorkspaceErasing+`)`, userID).Scan(&erasing)
	return erasing, wrap(err, "read the account's erasure state")
}

func wrap(err error, what string) error {
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// --- the log, for re-folding ---------------------------------------------

// loggedEvent is one decoded event with its position and time.
type loggedEvent struct {
	Position   int64
	Data       events.Event
	OccurredAt time.Time
	StreamID   string
}

func scanLogged(rows pgx.Rows) ([]loggedEvent, error) {
	defer rows.Close()
	reg := events.Domain()
	var out []loggedEvent
	for rows.Next() {
		var e loggedEvent
		var typ string
		var data []byte
		if err := rows.Scan(&e.Position, &e.StreamID, &typ, &data, &e.OccurredAt); err != nil {
			return nil, fmt.Errorf("scan event: %w", err)
		}
		ev, err := reg.Decode(typ, data)
		if err != nil {
			return nil, err
		}
		e.Data = ev
		out = append(out, e)
	}
	return out, rows.Err()
}

func plain(les []loggedEvent) []events.Event {
	out := make([]events.Event, len(les))
	for i, e := range les {
		out[i] = e.Data
	}
	return out
}

// streamEvents reads one stream in order.
func streamEvents(ctx context.Context, q pgdb.Querier, stream events.Stream) ([]loggedEvent, error) {
	rows, err := q.Query(ctx, `SELECT position, stream_id, type, data, occurred_at FROM events WHERE stream_id = $1 ORDER BY position`,
		stream.String())
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", stream, err)
	}
	return scanLogged(rows)
}

// productHistory reads a product's stream merged with the queued, completed
// and failed events of every job it references, in log order: the input of
// FoldProduct and of the timeline.
func productHistory(ctx context.Context, q pgdb.Querier, productID string, withProgress bool) ([]loggedEvent, error) {
	jobTypes := []string{events.JobQueued{}.EventType(), events.JobCompleted{}.EventType(), events.JobFailed{}.EventType()}
	if withProgress {
		jobTypes = append(jobTypes, events.JobStarted{}.EventType())
	}
	rows, err := q.Query(ctx, `
WITH jobs AS (
    SELECT 'job-' || (data->>'jobId') AS s FROM events
    WHERE stream_id = $1 AND type IN ('product.model_attached.v1', 'product.build_started.v1')
)
SELECT position, stream_id, type, data, occurred_at FROM events WHERE stream_id = $1
UNION ALL
SELECT position, stream_id, type, data, occurred_at FROM events
WHERE stream_id IN (SELECT s FROM jobs) AND type = ANY($2)
ORDER BY 1`, productStream(productID).String(), jobTypes)
	if err != nil {
		return nil, fmt.Errorf("read history of product %s: %w", productID, err)
	}
	return scanLogged(rows)
}

// ownBuilds lists the builds productID has had (attached or started) that
// no other live product has as its current model, oldest first.
func ownBuilds(ctx context.Context, q pgdb.Querier, productID string) ([]string, error) {
	rows, err := q.Query(ctx, `
SELECT b.job_id FROM (
    SELECT data->>'jobId' AS job_id, min(position) AS first FROM events
    WHERE stream_id = $1 AND type IN ('product.model_attached.v1', 'product.build_started.v1')
    GROUP BY 1
) b
WHERE NOT EXISTS (SELECT 1 FROM products o WHERE o.job_id = b.job_id AND o.id <> $2 AND o.deleted_at IS NULL)
ORDER BY b.first`, productStream(productID).String(), productID)
	if err != nil {
		return nil, fmt.Errorf("read builds of product %s: %w", productID, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("read builds of product %s: %w", productID, err)
	}
	return ids, nil
}

// publicationsOf reads the publication.created events of the given builds
// and of the product itself.
func publicationsOf(ctx context.Context, q pgdb.Querier, userID, productID string, jobIDs []string) ([]loggedEvent, error) {
	rows, err := q.Query(ctx, `SELECT position, stream_id, type, data, occurred_at FROM events
		WHERE type = 'publication.created.v1' AND data->>'userId' = $1
		AND (data->>'blueprintId' = ANY($2) OR data->>'productId' = $3) ORDER BY position`,
		userID, jobIDs, productID)
	if err != nil {
		return nil, fmt.Errorf("read publications: %w", err)
	}
	return scanLogged(rows)
}

// clearAndListStreams empties the three read models and lists every
// catalogue stream for Rebuild.
func clearAndListStreams(ctx context.Context, tx pgx.Tx) ([]events.Stream, error) {
	if _, err := tx.Exec(ctx, `TRUNCATE catalogs, products, galleries`); err != nil {
		return nil, fmt.Errorf("clear catalogue read models: %w", err)
	}
	rows, err := tx.Query(ctx, `SELECT DISTINCT stream_type, substr(stream_id, length(stream_type) + 2) FROM events
		WHERE stream_type IN ('catalog', 'product', 'gallery')`)
	if err != nil {
		return nil, fmt.Errorf("list catalogue streams: %w", err)
	}
	streams, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (events.Stream, error) {
		var s events.Stream
		return s, r.Scan(&s.Type, &s.ID)
	})
	return streams, wrap(err, "list catalogue streams")
}

// --- upserts of the folded state ------------------------------------------

func upsertCatalog(ctx context.Context, tx pgx.Tx, c Catalog) error {
	_, err := tx.Exec(ctx, `
INSERT INTO catalogs (id, user_id, name, description, is_default, created_at, updated_at, deleted_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, description = EXCLUDED.description,
    is_default = EXCLUDED.is_default, updated_at = EXCLUDED.updated_at, deleted_at = EXCLUDED.deleted_at`,
		c.ID, c.UserID, c.Name, c.Description, c.IsDefault, c.CreatedAt, c.UpdatedAt, c.DeletedAt)
	return wrap(err, "save catalog "+c.ID)
}

func upsertProduct(ctx context.Context, tx pgx.Tx, p Product) error {
	var jobID *string
	if p.JobID != "" {
		jobID = &p.JobID
	}
	_, err := tx.Exec(ctx, `
INSERT INTO products (id, user_id, catalog_id, name, description, product_url, tags, source, job_id, status,
                      failure_reason, model_key, thumbnail_key, created_at, updated_at, deleted_at, config,
                      photo_upload_id, photo_key, clean_edges, keep_shadow)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)
ON CONFLICT (id) DO UPDATE SET catalog_id = EXCLUDED.catalog_id, name = EXCLUDED.name,
    description = EXCLUDED.description, product_url = EXCLUDED.product_url, tags = EXCLUDED.tags,
    job_id = EXCLUDED.job_id, status = EXCLUDED.status, failure_reason = EXCLUDED.failure_reason,
    model_key = EXCLUDED.model_key, thumbnail_key = EXCLUDED.thumbnail_key,
    updated_at = EXCLUDED.updated_at, deleted_at = EXCLUDED.deleted_at, config = EXCLUDED.config,
    source = EXCLUDED.source, photo_upload_id = EXCLUDED.photo_upload_id, photo_key = EXCLUDED.photo_key,
    clean_edges = EXCLUDED.clean_edges, keep_shadow = EXCLUDED.keep_shadow`,
		p.ID, p.UserID, p.CatalogID, p.Name, p.Description, p.ProductURL, p.Tags, p.Source, jobID, p.Status,
		p.FailureReason, p.ModelKey, p.ThumbnailKey, p.CreatedAt, p.UpdatedAt, p.DeletedAt, p.Config,
		p.PhotoUploadID, p.PhotoKey, p.CleanEdges, p.KeepShadow)
	return wrap(err, "save product "+p.ID)
}

func upsertGallery(ctx context.Context, tx pgx.Tx, g Gallery) error {
	_, err := tx.Exec(ctx, `
INSERT INTO galleries (id, user_id, name, description, product_ids, cover_product_id, created_at, updated_at, deleted_at,
    tags, thumbnail_color)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, description = EXCLUDED.description,
    product_ids = EXCLUDED.product_ids, cover_product_id = EXCLUDED.cover_product_id,
    updated_at = EXCLUDED.updated_at, deleted_at = EXCLUDED.deleted_at,
    tags = EXCLUDED.tags, thumbnail_color = EXCLUDED.thumbnail_color`,
		g.ID, g.UserID, g.Name, g.Description, g.ProductIDs, g.CoverProductID, g.CreatedAt, g.UpdatedAt, g.DeletedAt,
		g.Tags, g.ThumbnailColor)
	return wrap(err, "save gallery "+g.ID)
}

// productsOfJob lists the products whose build history includes jobID.
func productsOfJob(ctx context.Context, tx pgx.Tx, jobID string) ([]string, error) {
	rows, err := tx.Query(ctx, `SELECT DISTINCT stream_id FROM events
		WHERE stream_type = 'product' AND data->>'jobId' = $1`, jobID)
	if err != nil {
		return nil, fmt.Errorf("products of job %s: %w", jobID, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("products of job %s: %w", jobID, err)
	}
	for i, s := range ids {
		ids[i] = strings.TrimPrefix(s, events.StreamProduct+"-")
	}
	return ids, nil
}

// --- catalogs -------------------------------------------------------------

const catalogColumns = `c.id, c.user_id, c.name, c.description, c.is_default, c.created_at, c.updated_at,
	(SELECT count(*) FROM products p WHERE p.catalog_id = c.id AND p.deleted_at IS NULL)`

func scanCatalog(row pgx.Row) (Catalog, error) {
	var c Catalog
	err := row.Scan(&c.ID, &c.UserID, &c.Name, &c.Description, &c.IsDefault, &c.CreatedAt, &c.UpdatedAt, &c.ProductCount)
	if errors.Is(err, pgx.ErrNoRows) {
		return Catalog{}, ErrCatalogNotFound
	}
	return c, wrap(err, "read catalog")
}

func getCatalog(ctx context.Context, q pgdb.Querier, userID, id string) (Catalog, error) {
	if _, err := uuid.Parse(id); err != nil {
		return Catalog{}, ErrCatalogNotFound
	}
	return scanCatalog(q.QueryRow(ctx, `SELECT `+catalogColumns+` FROM catalogs c
		WHERE c.id = $1 AND c.user_id = $2 AND c.deleted_at IS NULL`, id, userID))
}

// defaultCatalog returns the merchant's default catalog; ok false when none yet.
func defaultCatalog(ctx context.Context, q pgdb.Querier, userID string) (Catalog, bool, error) {
	c, err := scanCatalog(q.QueryRow(ctx, `SELECT `+catalogColumns+` FROM catalogs c
		WHERE c.user_id = $1 AND c.is_default AND c.deleted_at IS NULL`, userID))
	if errors.Is(err, ErrCatalogNotFound) {
		return Catalog{}, false, nil
	}
	return c, err == nil, err
}

// listCatalogs returns the default catalog first, then the newest.
func listCatalogs(ctx context.Context, q pgdb.Querier, userID string) ([]Catalog, error) {
	rows, err := q.Query(ctx, `SELECT `+catalogColumns+` FROM catalogs c
		WHERE c.user_id = $1 AND c.deleted_at IS NULL ORDER BY c.is_default DESC, c.created_at DESC, c.id DESC`, userID)
	if err != nil {
		return nil, fmt.Errorf("list catalogs: %w", err)
	}
	defer rows.Close()
	out := []Catalog{}
	for rows.Next() {
		c, err := scanCatalog(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, wrap(rows.Err(), "list catalogs")
}

// productIDsInCatalog lists the live products of a catalog (to move them).
func productIDsInCatalog(ctx context.Context, tx pgx.Tx, catalogID string) ([]string, error) {
	rows, err := tx.Query(ctx, `SELECT id FROM products WHERE catalog_id = $1 AND deleted_at IS NULL ORDER BY created_at, id`, catalogID)
	if err != nil {
		return nil, fmt.Errorf("products of catalog %s: %w", catalogID, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return ids, wrap(err, "products of catalog "+catalogID)
}

// --- products -------------------------------------------------------------

const productColumns = `id, user_id, catalog_id, name, description, product_url, tags, source, coalesce(job_id, ''),
	status, failure_reason, model_key, thumbnail_key, created_at, updated_at,
	photo_upload_id, photo_key, clean_edges, keep_shadow,
	EXISTS (SELECT 1 FROM publications pub WHERE pub.product_id = products.id AND pub.unpublished_at IS NULL)`

func scanProduct(row pgx.Row) (Product, error) {
	var p Product
	err := row.Scan(&p.ID, &p.UserID, &p.CatalogID, &p.Name, &p.Description, &p.ProductURL, &p.Tags, &p.Source,
		&p.JobID, &p.Status, &p.FailureReason, &p.ModelKey, &p.ThumbnailKey, &p.CreatedAt, &p.UpdatedAt,
		&p.PhotoUploadID, &p.PhotoKey, &p.CleanEdges, &p.KeepShadow, &p.Live)
	if errors.Is(err, pgx.ErrNoRows) {
		return Product{}, ErrProductNotFound
	}
	if p.Tags == nil {
		p.Tags = []string{}
	}
	return p, wrap(err, "read product")
}

// getProduct returns the owner's live product; anything else is not found.
func getProduct(ctx context.Context, q pgdb.Querier, userID, id string) (Product, error) {
	if _, err := uuid.Parse(id); err != nil {
		return Product{}, ErrProductNotFound
	}
	return scanProduct(q.QueryRow(ctx, `SELECT `+productColumns+` FROM products
		WHERE id = $1 AND user_id = $2 AND deleted_at IS NULL`, id, userID))
}

// getProductConfig returns the owner's live product with its configuration
// (the detail and the configuration routes; the list never reads config).
func getProductConfig(ctx context.Context, q pgdb.Querier, userID, id string) (Product, error) {
	p, err := getProduct(ctx, q, userID, id)
	if err != nil {
		return Product{}, err
	}
	err = q.QueryRow(ctx, `SELECT config FROM products WHERE id = $1`, id).Scan(&p.Config)
	if p.Config.Variants == nil { // a row written before migration 0011 and not re-folded since
		p.Config = NewConfig()
	}
	return p, wrap(err, "read product configuration")
}

func countProducts(ctx context.Context, q pgdb.Querier, userID string) (int, error) {
	var n int
	err := q.QueryRow(ctx, `SELECT count(*) FROM products WHERE user_id = $1 AND deleted_at IS NULL`, userID).Scan(&n)
	return n, wrap(err, "count products")
}

// whereBuilder numbers placeholders as conditions are added.
type whereBuilder struct {
	conds []string
	args  []any
}

func (w *whereBuilder) add(cond string, v any) {
	w.args = append(w.args, v)
	w.conds = append(w.conds, strings.ReplaceAll(cond, "?", "$"+strconv.Itoa(len(w.args))))
}

func (w *whereBuilder) sql() string { return strings.Join(w.conds, " AND ") }

// dateAndQuery adds the created from/to (inclusive calendar days) and
// text-contains filters shared by products and galleries: q matches when
// match (a condition on the placeholder ?, which every ? in it shares) holds.
func (w *whereBuilder) dateAndQuery(p ListParams, createdAt, match string) {
	if p.From != nil {
		w.add(createdAt+" >= ?", *p.From)
	}
	if p.To != nil {
		w.add(createdAt+" < ?", p.To.AddDate(0, 0, 1))
	}
	if p.Query != "" {
		w.add(match, p.Query)
	}
}

// productMatch is what a products search matches (issue 50 item 17, the
// search hint's promise): the name, the description, any one tag or the
// name of the product's catalog, each on its own, so a phrase spanning two
// fields is no match. strpos rather than LIKE: the merchant's % and _ are
// literal and need no escaping.
const productMatch = `(strpos(lower(products.name), lower(?)) > 0
	OR strpos(lower(products.description), lower(?)) > 0
	OR EXISTS (SELECT 1 FROM unnest(products.tags) AS tag WHERE strpos(lower(tag), lower(?)) > 0)
	OR EXISTS (SELECT 1 FROM catalogs cat WHERE cat.id = products.catalog_id AND strpos(lower(cat.name), lower(?)) > 0))`

// pageTotal returns the number of matches. The page was read first: when it
// holds some rows but fewer than a full page it is the last one, and the
// total is its offset plus its rows, so the count over every match (the one
// step that grows with the merchant's catalogue) is skipped. A full page or a
// page past the end needs the count.
func pageTotal(ctx context.Context, q pgdb.Querier, p ListParams, got int, countSQL string, args []any) (int, error) {
	if got > 0 && got < p.PageSize {
		return p.Offset() + got, nil
	}
	var total int
	err := q.QueryRow(ctx, countSQL, args...).Scan(&total)
	return total, err
}

// listProducts filters, sorts and pages in SQL; total counts every match.
func listProducts(ctx context.Context, q pgdb.Querier, userID string, p ListParams) ([]Product, int, error) {
	w := &whereBuilder{}
	w.add("user_id = ?", userID)
	w.conds = append(w.conds, "deleted_at IS NULL")
	// Ticked statuses and Live are alternatives: any of them matches.
	live := "EXISTS (SELECT 1 FROM publications pub WHERE pub.product_id = products.id AND pub.unpublished_at IS NULL)"
	switch {
	case len(p.Statuses) > 0 && p.Live:
		w.add("(status = ANY(?) OR "+live+")", p.Statuses)
	case len(p.Statuses) > 0:
		w.add("status = ANY(?)", p.Statuses)
	case p.Live:
		w.conds = append(w.conds, live)
	}
	if p.CatalogID != "" {
		w.add("catalog_id = ?", p.CatalogID)
	}
	if p.within != nil {
		// The plan's cut (Service.Products): the oldest products it covers
		// ($1 is the owner, the first condition added above).
		w.add("id IN (SELECT lim.id FROM products lim WHERE lim.user_id = $1 AND lim.deleted_at IS NULL ORDER BY lim.created_at, lim.id LIMIT ?)", *p.within)
	}
	w.dateAndQuery(p, "created_at", productMatch)
	order := "created_at DESC, id DESC"
	if p.Sort == SortName {
		order = "lower(name), id"
	}
	n := len(w.args)
	// Deferred join: the page's ids come from an index-only scan (deep
	// pages skip index entries, not table rows); only those rows are read.
	rows, err := q.Query(ctx, `SELECT `+productColumns+` FROM products WHERE id = ANY(ARRAY(
		SELECT id FROM products WHERE `+w.sql()+` ORDER BY `+order+` LIMIT $`+strconv.Itoa(n+1)+` OFFSET $`+strconv.Itoa(n+2)+`))
		ORDER BY `+order, append(w.args, p.PageSize, p.Offset())...)
	if err != nil {
		return nil, 0, fmt.Errorf("list products: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Product, error) { return scanProduct(row) })
	if err != nil {
		return nil, 0, fmt.Errorf("list products: %w", err)
	}
	total, err := pageTotal(ctx, q, p, len(out), `SELECT count(*) FROM products WHERE `+w.sql(), w.args)
	if err != nil {
		return nil, 0, fmt.Errorf("count products: %w", err)
	}
	return out, total, nil
}

// ownedLiveProducts returns which of ids are the owner's live products.
func ownedLiveProducts(ctx context.Context, q pgdb.Querier, userID string, ids []string) (map[string]bool, error) {
	valid := make([]string, 0, len(ids))
	for _, id := range ids {
		if _, err := uuid.Parse(id); err == nil {
			valid = append(valid, id)
		}
	}
	rows, err := q.Query(ctx, `SELECT id FROM products WHERE user_id = $1 AND deleted_at IS NULL AND id = ANY($2)`, userID, valid)
	if err != nil {
		return nil, fmt.Errorf("check products: %w", err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("check products: %w", err)
	}
	out := map[string]bool{}
	for _, id := range got {
		out[id] = true
	}
	return out, nil
}

// --- galleries ------------------------------------------------------------

// galleryFrom derives status (error if any live product failed, else
// processing if any builds, else ready), the product count, the asset count
// (those of them with a 3D model to show) and the cover's thumbnail (the
// chosen cover, else the first product). Tags and colour are the gallery's own.
const galleryFrom = `
FROM (
SELECT g.id, g.user_id, g.name, g.description, g.product_ids, g.cover_product_id, g.created_at, g.updated_at,
       CASE WHEN d.errors > 0 THEN 'error' WHEN d.building > 0 THEN 'processing' ELSE 'ready' END AS status,
       d.n, d.assets, coalesce(c.thumbnail_key, '') AS cover_key, g.tags, g.thumbnail_color
FROM galleries g
CROSS JOIN LATERAL (
    SELECT count(*) AS n, count(*) FILTER (WHERE p.status = 'error') AS errors,
           count(*) FILTER (WHERE p.status = 'processing') AS building,
           count(*) FILTER (WHERE p.status = 'ready' AND p.model_key <> '') AS assets
    FROM products p WHERE p.id = ANY(g.product_ids) AND p.deleted_at IS NULL
) d
LEFT JOIN products c ON c.id = coalesce(nullif(g.cover_product_id, ''), g.product_ids[1]) AND c.deleted_at IS NULL
WHERE g.deleted_at IS NULL AND g.user_id = $1
) x`

const galleryColumns = `x.id, x.user_id, x.name, x.description, x.product_ids, x.cover_product_id, x.created_at, x.updated_at,
	x.status, x.n, x.assets, x.cover_key, x.tags, x.thumbnail_color`

func scanGallery(row pgx.Row) (Gallery, error) {
	var g Gallery
	err := row.Scan(&g.ID, &g.UserID, &g.Name, &g.Description, &g.ProductIDs, &g.CoverProductID, &g.CreatedAt,
		&g.UpdatedAt, &g.Status, &g.ProductCount, &g.AssetCount, &g.CoverKey, &g.Tags, &g.ThumbnailColor)
	if errors.Is(err, pgx.ErrNoRows) {
		return Gallery{}, ErrGalleryNotFound
	}
	if g.ProductIDs == nil {
		g.ProductIDs = []string{}
	}
	if g.Tags == nil {
		g.Tags = []string{}
	}
	return g, wrap(err, "read gallery")
}

func getGallery(ctx context.Context, q pgdb.Querier, userID, id string) (Gallery, error) {
	if _, err := uuid.Parse(id); err != nil {
		return Gallery{}, ErrGalleryNotFound
	}
	return scanGallery(q.QueryRow(ctx, `SELECT `+galleryColumns+galleryFrom+` WHERE x.id = $2`, userID, id))
}

func countGalleries(ctx context.Context, q pgdb.Querier, userID string) (int, error) {
	var n int
	err := q.QueryRow(ctx, `SELECT count(*) FROM galleries WHERE user_id = $1 AND deleted_at IS NULL`, userID).Scan(&n)
	return n, wrap(err, "count galleries")
}

func listGalleries(ctx context.Context, q pgdb.Querier, userID string, p ListParams) ([]Gallery, int, error) {
	w := &whereBuilder{}
	w.args = []any{userID}
	w.conds = []string{"true"}
	if len(p.Statuses) > 0 {
		w.add("x.status = ANY(?)", p.Statuses)
	}
	w.dateAndQuery(p, "x.created_at", "strpos(lower(x.name), lower(?)) > 0")
	order := "x.created_at DESC, x.id DESC"
	if p.Sort == SortName {
		order = "lower(x.name), x.id"
	}
	n := len(w.args)
	rows, err := q.Query(ctx, `SELECT `+galleryColumns+galleryFrom+` WHERE `+w.sql()+
		` ORDER BY `+order+` LIMIT $`+strconv.Itoa(n+1)+` OFFSET $`+strconv.Itoa(n+2),
		append(w.args, p.PageSize, p.Offset())...)
	if err != nil {
		return nil, 0, fmt.Errorf("list galleries: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Gallery, error) { return scanGallery(row) })
	if err != nil {
		return nil, 0, fmt.Errorf("list galleries: %w", err)
	}
	total, err := pageTotal(ctx, q, p, len(out), `SELECT count(*)`+galleryFrom+` WHERE `+w.sql(), w.args)
	if err != nil {
		return nil, 0, fmt.Errorf("count galleries: %w", err)
	}
	return out, total, nil
}

// productsByIDs returns the owner's live products among ids, in ids' order.
func productsByIDs(ctx context.Context, q pgdb.Querier, userID string, ids []string) ([]Product, error) {
	rows, err := q.Query(ctx, `SELECT `+productColumns+` FROM products
		WHERE user_id = $1 AND deleted_at IS NULL AND id = ANY($2) ORDER BY array_position($2, id)`, userID, ids)
	if err != nil {
		return nil, fmt.Errorf("read gallery products: %w", err)
	}
	defer rows.Close()
	out := []Product{}
	for rows.Next() {
		p, err := scanProduct(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, wrap(rows.Err(), "read gallery products")
}

// LoadGallery reads a gallery whoever owns it (ok=false when there is none
// or it was deleted): its public page (internal/publish) needs no owner to
// look it up, as LoadProduct does for products. Only the stored columns are
// filled, not the derived ones.
func LoadGallery(ctx context.Context, q pgdb.Querier, id string) (Gallery, bool, error) {
	if _, err := uuid.Parse(id); err != nil {
		return Gallery{}, false, nil
	}
	var g Gallery
	err := q.QueryRow(ctx, `SELECT id, user_id, name, description, product_ids, cover_product_id, created_at, updated_at,
		tags, thumbnail_color
		FROM galleries WHERE id = $1 AND deleted_at IS NULL`, id).
		Scan(&g.ID, &g.UserID, &g.Name, &g.Description, &g.ProductIDs, &g.CoverProductID, &g.CreatedAt, &g.UpdatedAt,
			&g.Tags, &g.ThumbnailColor)
	if errors.Is(err, pgx.ErrNoRows) {
		return Gallery{}, false, nil
	}
	if err != nil {
		return Gallery{}, false, fmt.Errorf("read gallery %s: %w", id, err)
	}
	return g, true, nil
}
