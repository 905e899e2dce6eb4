-- API keys and idempotent retries (issue 17).
--
-- api_keys is the inline read model of the apikey-{id} streams
-- (apikey.created.v1, apikey.revoked.v1): what the "API access" panel lists.
-- The key itself is never stored and never in an event; api_key_secrets holds
-- only its SHA-256 (see internal/apikey for why a fast hash is right for a
-- 256-bit random key) and the last-used time, which is telemetry, not a
-- domain fact. Neither table is granted to photo3d_analyst.
CREATE TABLE api_keys (
    id         text        PRIMARY KEY,
    user_id    text        NOT NULL,
    name       text        NOT NULL,
    prefix     text        NOT NULL,
    scopes     text[]      NOT NULL,
    created_at timestamptz NOT NULL,
    revoked_at timestamptz,
    version    bigint      NOT NULL
);
CREATE INDEX api_keys_owner ON api_keys (user_id, created_at DESC, id);

CREATE TABLE api_key_secrets (
    key_id       text        PRIMARY KEY REFERENCES api_keys (id) ON DELETE CASCADE,
    hash         bytea       NOT NULL UNIQUE,
    last_used_at timestamptz
);

-- Idempotency-Key records: one per (user, key). state 'running' while the
-- first request is being served (others with the same key wait for it),
-- 'done' with the answer to replay. A row older than 24 hours is expired
-- and swept; a 'running' row whose lease ran out (the api died mid-request)
-- may be taken over.
CREATE TABLE idempotency_keys (
    user_id      text        NOT NULL,
    key          text        NOT NULL,
    fingerprint  bytea       NOT NULL,
    state        text        NOT NULL CHECK (state IN ('running', 'done')),
    status       int         NOT NULL DEFAULT 0,
    content_type text        NOT NULL DEFAULT '',
    location     text        NOT NULL DEFAULT '',
    body         bytea       NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL DEFAULT now(),
    leased_until timestamptz NOT NULL,
    PRIMARY KEY (user_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
