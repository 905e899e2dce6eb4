-- Security state of an account that is not part of the event log (like
-- password hashes): the session version every token must carry to be
-- accepted (bumped by password change/reset and "sign out everywhere"),
-- whether the e-mail address was proven, single-use verification links
-- (hashed) and tokens signed out one by one (until they expire anyway).

CREATE TABLE account_security (
    user_id           text        PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    session_version   bigint      NOT NULL DEFAULT 0,
    email_verified_at timestamptz,
    updated_at        timestamptz NOT NULL DEFAULT now()
);

-- Addresses Google already vouched for are verified.
INSERT INTO account_security (user_id, email_verified_at)
SELECT DISTINCT user_id, now() FROM google_identities
ON CONFLICT (user_id) DO NOTHING;

CREATE TABLE email_verifications (
    token_hash bytea       PRIMARY KEY,
    user_id    text        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    email      text        NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX email_verifications_user ON email_verifications (user_id);

CREATE TABLE revoked_tokens (
    jti        text        PRIMARY KEY,
    user_id    text        NOT NULL,
    expires_at timestamptz NOT NULL
);
CREATE INDEX revoked_tokens_expiry ON revoked_tokens (expires_at);
