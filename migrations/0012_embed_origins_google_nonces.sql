-- Issue 11 items 10 and 14.
--
-- Embed origins (item 10): the sites allowed to frame a publication's /embed
-- page, set by PublicationEmbedOriginsSet on the publication stream and
-- folded here. Empty: any site may embed it (the behaviour before this
-- migration, so existing rows need no backfill); otherwise the embed page's
-- frame-ancestors lists exactly these origins.
ALTER TABLE publications ADD COLUMN embed_origins text[] NOT NULL DEFAULT '{}';

-- Google sign-in nonces (item 14): the server issues one per sign-in attempt,
-- the browser hands it to Google Identity Services, and Google signs it into
-- the ID token's "nonce" claim. A token is accepted only while its nonce is
-- issued here, unexpired and unused, and using it marks it used, so a stolen
-- or replayed ID token is refused. Only a SHA-256 of the nonce is kept.
-- Short-lived security state, not a projection of the event log.
CREATE TABLE google_nonces (
    nonce_hash bytea       PRIMARY KEY,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX google_nonces_expires ON google_nonces (expires_at);
