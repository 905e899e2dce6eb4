-- Own models (issue 28 items 1 and 7). The api stores the uploaded files and
-- a pending row, appends product.model_submitted.v1 and queues the
-- prepare_model job (River queue `model`) in one transaction; the worker
-- validates and packs the model, then marks the row ready (with the stored
-- GLB and thumbnail) or failed (with the message the merchant reads) and
-- deletes the uploaded files. source_bytes count in the daily upload quota
-- with photos; the hourly storage_cleanup deletes the GLB and thumbnail of a
-- model that was replaced (or whose product was deleted) once no version of
-- a live publication shows it, and uploaded files a lost job left behind.
CREATE TABLE product_models (
    id            text        PRIMARY KEY,
    product_id    text        NOT NULL,
    user_id       text        NOT NULL,
    status        text        NOT NULL CHECK (status IN ('pending', 'ready', 'failed')),
    code          text        NOT NULL DEFAULT '',
    message       text        NOT NULL DEFAULT '',
    filename      text        NOT NULL DEFAULT '',
    source_keys   text[]      NOT NULL DEFAULT '{}', -- uploaded files, until prepared
    source_bytes  bigint      NOT NULL DEFAULT 0,
    model_key     text        NOT NULL DEFAULT '',
    thumbnail_key text        NOT NULL DEFAULT '',
    created_at    timestamptz NOT NULL,
    finished_at   timestamptz,
    purged_at     timestamptz -- model and thumbnail deleted by storage_cleanup
);
CREATE INDEX product_models_user_created ON product_models (user_id, created_at);
CREATE INDEX product_models_product ON product_models (product_id);
CREATE INDEX product_models_unpurged ON product_models (finished_at) WHERE purged_at IS NULL;
-- "Does a published version still show this model?" for the clean-up.
CREATE INDEX publication_versions_model_key ON publication_versions ((snapshot->>'modelKey'));

-- Models uploaded before this table existed (synchronously prepared).
INSERT INTO product_models (id, product_id, user_id, status, filename, source_bytes, model_key, thumbnail_key, created_at, finished_at)
SELECT 'event-' || e.position, e.data->>'productId', p.user_id, 'ready', COALESCE(e.data->>'filename', ''),
       COALESCE((e.data->>'bytes')::bigint, 0), e.data->>'modelKey', COALESCE(e.data->>'thumbnailKey', ''), e.occurred_at, e.occurred_at
FROM events e JOIN products p ON p.id = e.data->>'productId'
WHERE e.type = 'product.model_uploaded.v1';
