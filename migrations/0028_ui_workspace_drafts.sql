-- Issue 29 item 4: a photo product saved without a build is a draft, not
-- "processing", on the dashboard and in search. The workspace read model
-- learns the status; existing draft products are marked from the catalogue.
ALTER TABLE workspace_items DROP CONSTRAINT workspace_items_status_check;
ALTER TABLE workspace_items ADD CONSTRAINT workspace_items_status_check
    CHECK (status IN ('draft', 'processing', 'ready', 'error'));
UPDATE workspace_items w SET status = 'draft'
  FROM products p
 WHERE w.kind = 'product' AND w.item_id = p.id AND p.status = 'draft';
