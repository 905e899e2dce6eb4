-- Product configuration (issue 13): variants, hotspots, purchase links and
-- viewer presets, folded from the product stream (catalog.Config) and kept
-- as one JSON document. Only the product detail and the configuration
-- routes read it, so the list's covering indexes are unchanged. Rows made
-- before this migration hold '{}' until they are next folded; readers treat
-- '{}' as the new-product configuration (the Default variant only), which is
-- exactly what folding their log gives (`worker replay catalogue` rewrites it).
ALTER TABLE products ADD COLUMN config jsonb NOT NULL DEFAULT '{}';
