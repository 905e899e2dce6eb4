-- Uploads, jobs (blueprints) and assets: inline read models of the upload-{id}
-- and job-{id} streams, written in the same transaction as the events by
-- internal/upload and internal/job. user_id is not a foreign key on purpose:
-- these tables are rebuilt from the event log and must not depend on the order
-- in which other read models are rebuilt.

CREATE TABLE uploads (
    id            text        PRIMARY KEY,
    user_id       text        NOT NULL,
    filename      text        NOT NULL,
    declared_type text        NOT NULL DEFAULT '',
    declared_size bigint      NOT NULL DEFAULT 0,
    blob_key      text        NOT NULL UNIQUE,
    status        text        NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'completed')),
    content_type  text        NOT NULL DEFAULT '',
    bytes         bigint      NOT NULL DEFAULT 0,
    width         integer     NOT NULL DEFAULT 0,
    height        integer     NOT NULL DEFAULT 0,
    created_at    timestamptz NOT NULL,
    completed_at  timestamptz
);

CREATE INDEX uploads_user_created ON uploads (user_id, created_at DESC);

-- One row per reconstruction. A job is also the merchant's "blueprint":
-- name and deleted_at belong to the blueprint view of the same row.
CREATE TABLE jobs (
    id             text        PRIMARY KEY,
    user_id        text        NOT NULL,
    upload_id      text        NOT NULL REFERENCES uploads (id),
    name           text        NOT NULL,
    status         text        NOT NULL CHECK (status IN ('queued', 'processing', 'completed', 'failed')),
    progress       integer     NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 100),
    step           text        NOT NULL DEFAULT '',
    attempt        integer     NOT NULL DEFAULT 0,
    image_key      text        NOT NULL,
    asset_id       text,
    model_key      text        NOT NULL DEFAULT '',
    thumbnail_key  text        NOT NULL DEFAULT '',
    mask_key       text        NOT NULL DEFAULT '',
    parts_map_key  text        NOT NULL DEFAULT '',
    parts          jsonb       NOT NULL DEFAULT '[]',
    stats          jsonb       NOT NULL DEFAULT '{}',
    reconstructor  text        NOT NULL DEFAULT '',
    version        text        NOT NULL DEFAULT '',
    error          text        NOT NULL DEFAULT '',
    queued_at      timestamptz NOT NULL,
    started_at     timestamptz,
    finished_at    timestamptz,
    deleted_at     timestamptz,
    created_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL
);

-- The blueprint list: a user's live jobs, newest first, keyset-paginated.
CREATE INDEX jobs_user_live ON jobs (user_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;

-- One asset per produced GLB.
CREATE TABLE assets (
    id           text        PRIMARY KEY,
    user_id      text        NOT NULL,
    job_id       text        NOT NULL UNIQUE REFERENCES jobs (id),
    key          text        NOT NULL,
    content_type text        NOT NULL,
    bytes        bigint      NOT NULL,
    created_at   timestamptz NOT NULL
);

CREATE INDEX assets_user ON assets (user_id);
