-- Issue 32: sales channels. Each merchant's Google Merchant Center feed is
-- served at /feeds/{token}/google.xml; the token is an unguessable
-- capability (like a share link's slug), rotatable in Settings → Channels,
-- which ends the old URL at once.
CREATE TABLE channel_feeds (
    user_id    text        PRIMARY KEY,
    token      text        NOT NULL,
    created_at timestamptz NOT NULL,
    rotated_at timestamptz NOT NULL,
    CONSTRAINT channel_feeds_token UNIQUE (token)
);
