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

-- A merchant's Shopify store: its permanent domain and the custom app's
-- Admin API access token, sealed with AES-GCM (the key is derived from the
-- server's secret; the token is never returned by the API or logged).
-- Disconnecting deletes the row.
CREATE TABLE channel_shopify (
    user_id      text        PRIMARY KEY,
    shop         text        NOT NULL,
    token_sealed bytea       NOT NULL,
    connected_at timestamptz NOT NULL
);

-- The media we attached to a Shopify product, so sending again replaces
-- them instead of piling up copies.
CREATE TABLE channel_shopify_media (
    user_id            text        NOT NULL,
    product_id         text        NOT NULL,
    shopify_product_id text        NOT NULL,
    media_ids          text[]      NOT NULL,
    sent_at            timestamptz NOT NULL,
    PRIMARY KEY (user_id, product_id, shopify_product_id)
);
