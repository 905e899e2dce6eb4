-- Personal data out of the event log (issue 31, part 1). A user's address
-- and names move from the users read model (projected from
-- user.registered.v1 / user.profile_updated.v1, which carried them) into
-- user_pii: a mutable table keyed by the user id, written by the account
-- service in the same transaction as the event, deleted when the account is
-- erased. It is not a read model: `worker replay accounts` keeps it as it is
-- (no foreign key to users, whose rebuild truncates it), and the analyst
-- role is never granted it. Events now carry ids only; `worker migrate-pii`
-- strips the fields from events stored before this migration.
CREATE TABLE user_pii (
    user_id    text        PRIMARY KEY,
    email      text        NOT NULL CHECK (email = lower(email)),
    name       text        NOT NULL,
    first_name text        NOT NULL DEFAULT '',
    last_name  text        NOT NULL DEFAULT '',
    updated_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT user_pii_email_key UNIQUE (email)
);

INSERT INTO user_pii (user_id, email, name, first_name, last_name, updated_at)
SELECT id, email, name, first_name, last_name, updated_at FROM users
ON CONFLICT DO NOTHING;

-- The users read model keeps ids, avatar, versions and the erasure state
-- (both projected from user.erasure_requested.v1 / user.erased.v1).
ALTER TABLE users
    DROP COLUMN email,
    DROP COLUMN name,
    DROP COLUMN first_name,
    DROP COLUMN last_name,
    ADD COLUMN erasure_requested_at timestamptz,
    ADD COLUMN erased_at            timestamptz;

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'photo3d_analyst') THEN
        REVOKE ALL ON user_pii FROM photo3d_analyst;
    END IF;
END
$$;

-- Data exports (issue 31 part 3): "Download my data" builds a ZIP in the
-- blob store (exports/{user}/{id}.zip) with a River job; it can be
-- downloaded for 7 days, then the ZIP is deleted. Not a read model.
CREATE TABLE data_exports (
    id           text        PRIMARY KEY,
    user_id      text        NOT NULL,
    status       text        NOT NULL CHECK (status IN ('pending', 'ready', 'failed', 'expired')),
    blob_key     text        NOT NULL DEFAULT '',
    requested_at timestamptz NOT NULL,
    ready_at     timestamptz,
    expires_at   timestamptz
);
CREATE INDEX data_exports_user ON data_exports (user_id, requested_at DESC);
CREATE INDEX data_exports_expiry ON data_exports (expires_at) WHERE status = 'ready';
