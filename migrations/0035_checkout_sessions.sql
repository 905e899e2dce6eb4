-- Open Stripe Checkout Sessions (third security review, L5): a click on
-- Upgrade or Buy reuses the account's open session for the same purchase
-- instead of creating one more at the provider, so one user cannot spend
-- the platform's provider rate limit. A row ends when the provider reports
-- the session completed (the webhook deletes it) or when it expires (rows
-- past expires_at are never handed out and are pruned on the next insert).
-- Not a read model: nothing is projected here and nothing is rebuilt.
CREATE TABLE billing_checkout_sessions (
    user_id    text        NOT NULL,
    kind       text        NOT NULL,
    packs      bigint      NOT NULL,
    session_id text        NOT NULL,
    url        text        NOT NULL,
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, kind, packs)
);
CREATE INDEX billing_checkout_sessions_expiry ON billing_checkout_sessions (expires_at);
