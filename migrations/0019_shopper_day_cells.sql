-- Shopper analytics at scale (issue 14): pre-aggregated day cells, so the
-- dashboard of a merchant with millions of stored events reads one row per
-- day instead of every shopper-day. The worker's rollup rebuilds a day's
-- cells from that day's shopper_days rows in the same transaction (so the
-- cells are as replayable as shopper_days: worker replay analytics).
--
-- One row per owner, day and filter: filter is '' (no filter) or a
-- canonical "sku=…", "device=…", "source=…", "region=…" or a pair of them
-- joined by '&' (internal/analytics/cells.go cellKey). cell is an opaque
-- encoding of additive counts (shopper-days, clicks by kind), per-group
-- counts (region, device, source, product, variant, hotspot, platform) and
-- HyperLogLog sketches of the viewer ids per funnel step, merged over the
-- range at query time.
CREATE TABLE shopper_day_cells (
    user_id      text   NOT NULL,
    filter       text   NOT NULL,
    day          date   NOT NULL,
    shopper_days bigint NOT NULL, -- counted shopper-days in the cell: picks the exact or the sketch path
    cell         bytea  NOT NULL,
    PRIMARY KEY (user_id, filter, day)
);
-- Cells are read whole and rarely compress (sketch registers): keep them
-- out of line without pglz so reads skip the decompression.
ALTER TABLE shopper_day_cells ALTER COLUMN cell SET STORAGE EXTERNAL;
CREATE INDEX shopper_day_cells_day ON shopper_day_cells (day);
