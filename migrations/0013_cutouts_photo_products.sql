-- Issue 13, build side.
--
-- upload_cutouts caches the background-removed cutout of an upload per
-- option pair (Clean edges, Restore ground shadow). It is derived data, not
-- history: the PNG in the blob store can always be recomputed from the photo,
-- so it lives outside the event log. The api inserts a pending row together
-- with the River job on the "cutout" queue; the worker marks it ready (or
-- failed) and the api's short wait sees the change.
CREATE TABLE upload_cutouts (
    upload_id    text        NOT NULL REFERENCES uploads (id) ON DELETE CASCADE,
    user_id      text        NOT NULL,
    clean_edges  boolean     NOT NULL,
    keep_shadow  boolean     NOT NULL,
    status       text        NOT NULL CHECK (status IN ('pending', 'ready', 'failed')),
    blob_key     text        NOT NULL DEFAULT '',
    width        integer     NOT NULL DEFAULT 0,
    height       integer     NOT NULL DEFAULT 0,
    message      text        NOT NULL DEFAULT '',
    requested_at timestamptz NOT NULL,
    finished_at  timestamptz,
    PRIMARY KEY (upload_id, clean_edges, keep_shadow)
);

-- Products made from a new photo: the photo (and the cutout options chosen
-- for it) is kept so a draft can be built later ("Generate 3D now") and the
-- product page can show the original. A draft has no build yet.
ALTER TABLE products
    ADD COLUMN photo_upload_id text    NOT NULL DEFAULT '',
    ADD COLUMN photo_key       text    NOT NULL DEFAULT '',
    ADD COLUMN clean_edges     boolean NOT NULL DEFAULT false,
    ADD COLUMN keep_shadow     boolean NOT NULL DEFAULT false;
ALTER TABLE products DROP CONSTRAINT products_status_check;
ALTER TABLE products ADD CONSTRAINT products_status_check CHECK (status IN ('draft', 'processing', 'ready', 'error'));
