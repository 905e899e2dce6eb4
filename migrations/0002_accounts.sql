-- Accounts and subscriptions. users, branding and subscriptions are inline
-- read models of the user-{id} and subscription-{userId} streams (their
-- version column is the stream version they reflect). Secrets and identities
-- (password hashes, reset tokens, Google subjects, invite codes) live only in
-- their own tables, never in events.

CREATE TABLE users (
    id         text        PRIMARY KEY,
    email      text        NOT NULL CHECK (email = lower(email)),
    name       text        NOT NULL,
    first_name text        NOT NULL DEFAULT '',
    last_name  text        NOT NULL DEFAULT '',
    avatar_key text,
    version    bigint      NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT users_email_key UNIQUE (email)
);

-- argon2id PHC strings; one row per user that has a password.
CREATE TABLE password_credentials (
    user_id    text        PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    hash       text        NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- Verified Google accounts linked to users (subject = the ID token's sub).
CREATE TABLE google_identities (
    subject    text        PRIMARY KEY,
    user_id    text        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX google_identities_user ON google_identities (user_id);

-- Single-use reset tokens, stored as SHA-256 hashes only.
CREATE TABLE password_resets (
    token_hash bytea       PRIMARY KEY,
    user_id    text        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX password_resets_user ON password_resets (user_id);

-- Invite codes for SIGNUP_MODE=invite, stored hashed, bound to one e-mail.
CREATE TABLE invites (
    code_hash  bytea       PRIMARY KEY,
    email      text        NOT NULL CHECK (email = lower(email)),
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    used_at    timestamptz,
    used_by    text
);
CREATE INDEX invites_email ON invites (email);

-- Branding read model (absent row = defaults).
CREATE TABLE branding (
    user_id     text        PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    brand_name  text        NOT NULL,
    brand_color text        NOT NULL,
    logo_key    text,
    updated_at  timestamptz NOT NULL DEFAULT now()
);

-- Subscription read model: one row per user; version = subscription stream
-- version. Money operations lock this row (FOR UPDATE) and append with that
-- version as the expected one. The CHECKs make a negative balance component
-- impossible even if a bug slipped past the service.
CREATE TABLE subscriptions (
    user_id                text        PRIMARY KEY,
    plan                   text        NOT NULL CHECK (plan IN ('free', 'pro', 'enterprise')),
    trial_started_at       timestamptz,
    trial_days             integer     NOT NULL DEFAULT 7 CHECK (trial_days >= 1),
    trial_ever_started     boolean     NOT NULL DEFAULT false,
    ai_credits_purchased   bigint      NOT NULL DEFAULT 0 CHECK (ai_credits_purchased >= 0),
    ai_credits_used        bigint      NOT NULL DEFAULT 0 CHECK (ai_credits_used >= 0),
    ai_credits_reserved    bigint      NOT NULL DEFAULT 0 CHECK (ai_credits_reserved >= 0),
    public_views_purchased bigint      NOT NULL DEFAULT 0 CHECK (public_views_purchased >= 0),
    public_views_used      bigint      NOT NULL DEFAULT 0 CHECK (public_views_used >= 0),
    public_views_leased    bigint      NOT NULL DEFAULT 0 CHECK (public_views_leased >= 0),
    version                bigint      NOT NULL,
    created_at             timestamptz NOT NULL,
    updated_at             timestamptz NOT NULL DEFAULT now()
);

-- Per-job credit holds: the idempotency record of reserve/consume/release.
CREATE TABLE credit_reservations (
    job_id     text        PRIMARY KEY,
    user_id    text        NOT NULL,
    amount     bigint      NOT NULL CHECK (amount >= 0),
    state      text        NOT NULL CHECK (state IN ('reserved', 'consumed', 'released')),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX credit_reservations_user ON credit_reservations (user_id);

-- Blocks of public views leased to api instances.
CREATE TABLE view_leases (
    lease_id   text        PRIMARY KEY,
    user_id    text        NOT NULL,
    granted    bigint      NOT NULL CHECK (granted >= 0),
    consumed   bigint      NOT NULL DEFAULT 0 CHECK (consumed >= 0),
    returned   bigint      NOT NULL DEFAULT 0 CHECK (returned >= 0),
    open       boolean     NOT NULL DEFAULT true,
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    CHECK (consumed + returned <= granted)
);
CREATE INDEX view_leases_open ON view_leases (user_id, expires_at) WHERE open;
