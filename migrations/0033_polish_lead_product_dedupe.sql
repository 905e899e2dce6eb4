-- Issue 29 item 20: one lead per address per product, whichever surface the
-- shopper used (the share page, an embed, a page published again under a new
-- link): the merchant sees a shopper once. The row keeps the shopper's latest
-- publication, variant, consent and surface ('page' or 'embed'); created_at
-- stays the first capture. Earlier duplicates keep their newest row.
ALTER TABLE product_leads ADD COLUMN surface text NOT NULL DEFAULT 'page'
    CHECK (surface IN ('page', 'embed'));

DELETE FROM product_leads a
USING product_leads b
WHERE a.user_id = b.user_id AND a.product_id = b.product_id AND lower(a.email) = lower(b.email)
  AND (a.created_at, a.id) < (b.created_at, b.id);

DROP INDEX product_leads_publication_email;
CREATE UNIQUE INDEX product_leads_product_email ON product_leads (user_id, product_id, lower(email));
