-- The merchant's catalogue: inline read models of catalog-{id}, product-{id}
-- and gallery-{id} streams (internal/catalog), updated in the same
-- transaction as their events; `worker replay catalogue` rebuilds them.

CREATE TABLE catalogs (
    id          text        PRIMARY KEY,
    user_id     text        NOT NULL,
    name        text        NOT NULL,
    description text        NOT NULL DEFAULT '',
    is_default  boolean     NOT NULL DEFAULT false,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    deleted_at  timestamptz
);

-- One default catalog per merchant, enforced by the database as well.
CREATE UNIQUE INDEX catalogs_one_default ON catalogs (user_id) WHERE is_default AND deleted_at IS NULL;
CREATE INDEX catalogs_user ON catalogs (user_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;

-- products: status is derived from the current job (job_id): processing
-- while it builds, ready with its model, error with the failure reason. The
-- model and thumbnail keys are the current job's, copied when it completes
-- (inline, in the job-completion transaction) so the list needs no join.
CREATE TABLE products (
    id             text        PRIMARY KEY,
    user_id        text        NOT NULL,
    catalog_id     text        NOT NULL,
    name           text        NOT NULL,
    description    text        NOT NULL DEFAULT '',
    product_url    text        NOT NULL DEFAULT '',
    tags           text[]      NOT NULL DEFAULT '{}',
    source         text        NOT NULL,
    job_id         text,
    status         text        NOT NULL DEFAULT 'processing' CHECK (status IN ('processing', 'ready', 'error')),
    failure_reason text        NOT NULL DEFAULT '',
    model_key      text        NOT NULL DEFAULT '',
    thumbnail_key  text        NOT NULL DEFAULT '',
    created_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL,
    deleted_at     timestamptz
);

-- GET /products: every filter starts with the owner's live rows. Each sort
-- order has an index whose INCLUDE columns cover every filter (status,
-- name for q, created_at, catalog), so counting and choosing a page are
-- index-only scans; only the page's rows are then read from the table.
CREATE INDEX products_user_newest ON products (user_id, created_at DESC, id DESC)
    INCLUDE (status, name, catalog_id) WHERE deleted_at IS NULL;
CREATE INDEX products_user_name ON products (user_id, lower(name), id)
    INCLUDE (status, name, created_at, catalog_id) WHERE deleted_at IS NULL;
CREATE INDEX products_catalog ON products (catalog_id) WHERE deleted_at IS NULL;

-- galleries: product_ids is the display order; status is derived from the
-- products when read.
CREATE TABLE galleries (
    id               text        PRIMARY KEY,
    user_id          text        NOT NULL,
    name             text        NOT NULL,
    description      text        NOT NULL DEFAULT '',
    product_ids      text[]      NOT NULL DEFAULT '{}',
    cover_product_id text        NOT NULL DEFAULT '',
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,
    deleted_at       timestamptz
);

CREATE INDEX galleries_user_newest ON galleries (user_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;

-- Async projections (workspace items, notifications) find the products a
-- job builds from the log itself, bounded by position, so a replay sees
-- exactly what incremental processing saw.
CREATE INDEX events_product_job ON events ((data->>'jobId'), position) WHERE stream_type = 'product';
