-- Issue 28 item 12: lead.captured deliveries no longer store the shopper's
-- email (the worker adds it from product_leads when it sends, so a deleted
-- lead lives on nowhere). Strip it from the rows written before.
UPDATE webhook_deliveries
SET payload = (payload::jsonb #- '{data,email}')::text
WHERE event_type = 'lead.captured' AND payload::jsonb #> '{data,email}' IS NOT NULL;
