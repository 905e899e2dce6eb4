-- Gallery pages (issue 29 item 14): a publication's subject may be a gallery
-- (gallery_id; blueprint_id and product_id are then ''). Its public page is
-- /g/{slug}: the gallery's live products, each opening its own product page.
-- At most one live publication per gallery, as per product.
ALTER TABLE publications ADD COLUMN gallery_id text NOT NULL DEFAULT '';
CREATE UNIQUE INDEX publications_live_gallery ON publications (gallery_id)
    WHERE unpublished_at IS NULL AND gallery_id <> '';
