-- Publications: the inline read model of the publication-{id} streams, written
-- by internal/publish in the same transaction as the events. A publication is
-- a share link (slug) onto one blueprint; its versions are immutable snapshots
-- of the blueprint taken when the merchant published, so a locked link keeps
-- showing exactly what was published while edits continue.
CREATE TABLE publications (
    id              text        PRIMARY KEY,
    user_id         text        NOT NULL,
    blueprint_id    text        NOT NULL,
    slug            text        NOT NULL,
    current_version integer     NOT NULL DEFAULT 0,
    locked_version  integer     NOT NULL DEFAULT 0, -- 0: unlocked, the link follows edits live
    unpublished_at  timestamptz,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    CONSTRAINT publications_slug UNIQUE (slug)
);

-- At most one live publication per blueprint: creating twice returns the
-- existing one, and this index settles two concurrent creates.
CREATE UNIQUE INDEX publications_live_blueprint ON publications (blueprint_id) WHERE unpublished_at IS NULL;
CREATE INDEX publications_user_created ON publications (user_id, created_at DESC, id DESC);

CREATE TABLE publication_versions (
    publication_id text        NOT NULL REFERENCES publications (id),
    version        integer     NOT NULL CHECK (version > 0),
    snapshot       jsonb       NOT NULL,
    created_at     timestamptz NOT NULL,
    PRIMARY KEY (publication_id, version)
);

-- One row per owner whose public views ran out and who has already been told
-- (a PublicViewsExhausted event was appended). The row is inserted with the
-- event and deleted when a view lease is granted again, so every api instance
-- agrees on "once per exhaustion" without coordinating in memory.
CREATE TABLE public_view_exhaustions (
    user_id        text        PRIMARY KEY,
    publication_id text        NOT NULL,
    since          timestamptz NOT NULL
);
