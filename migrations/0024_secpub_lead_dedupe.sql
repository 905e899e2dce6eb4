-- One lead per address per publication (security review 2, item 8): junk
-- submissions of one address no longer pile up, and a shopper who comes back
-- updates their lead instead of adding one (no second lead.captured webhook).
-- Earlier duplicates keep their newest row. The list pages on
-- (created_at DESC, id DESC), which the new owner index serves in order.
DELETE FROM product_leads a
USING product_leads b
WHERE a.publication_id = b.publication_id AND lower(a.email) = lower(b.email)
  AND (a.created_at, a.id) < (b.created_at, b.id);

CREATE UNIQUE INDEX product_leads_publication_email ON product_leads (publication_id, lower(email));

DROP INDEX product_leads_owner;
CREATE INDEX product_leads_owner ON product_leads (user_id, product_id, created_at DESC, id DESC);
