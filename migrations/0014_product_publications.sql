-- Product publications and leads (issue 13). A publication's subject is now
-- a blueprint (blueprint_id) or a product (product_id); the other column is ''.
-- At most one live publication per product, as per blueprint: publishing again
-- returns the same link with new settings. require_email and allow_deep_links
-- are the publish step's toggles (publication.settings_changed.v1).
ALTER TABLE publications ADD COLUMN product_id text NOT NULL DEFAULT '';
ALTER TABLE publications ADD COLUMN require_email boolean NOT NULL DEFAULT false;
ALTER TABLE publications ADD COLUMN allow_deep_links boolean NOT NULL DEFAULT false;
DROP INDEX publications_live_blueprint;
CREATE UNIQUE INDEX publications_live_blueprint ON publications (blueprint_id)
    WHERE unpublished_at IS NULL AND blueprint_id <> '';
CREATE UNIQUE INDEX publications_live_product ON publications (product_id)
    WHERE unpublished_at IS NULL AND product_id <> '';

-- Leads: emails shoppers leave at a product page's email gate. Personal data,
-- so it lives here and never in the event log (product.lead_captured.v1 says
-- only that a lead was captured); the merchant can delete a row and it is gone.
-- consent is the exact text the shopper agreed to.
CREATE TABLE product_leads (
    id             text        PRIMARY KEY,
    user_id        text        NOT NULL,
    product_id     text        NOT NULL,
    publication_id text        NOT NULL,
    email          text        NOT NULL,
    variant_id     text        NOT NULL DEFAULT '',
    consent        text        NOT NULL,
    created_at     timestamptz NOT NULL
);
CREATE INDEX product_leads_owner ON product_leads (user_id, product_id, created_at DESC, id);
