-- Issue 29 item 20: a merchant's store settings, projected inline from
-- user.store_settings_updated.v1 (absent row = not chosen yet; the web app
-- then guesses from the merchant's other prices and browser locale). The
-- default currency is what a new price starts in; prices keep their own.
CREATE TABLE store_settings (
    user_id          text        PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    default_currency text        NOT NULL CHECK (default_currency ~ '^[A-Z]{3}$'),
    updated_at       timestamptz NOT NULL DEFAULT now()
);
