-- Shopper analytics (issue 14). High-volume telemetry from the public viewer
-- stays out of the event log: shopper_events is an append-only table
-- partitioned by day (internal/analytics creates tomorrow's partitions ahead
-- and drops those older than the retention), written in COPY batches from an
-- in-memory buffer. The merchant's dashboard reads shopper_days, a rollup the
-- worker recomputes from the raw rows (a day's rows are deleted and rebuilt,
-- so running it twice, or replaying any day, gives the same answer).
CREATE TABLE shopper_events (
    at             timestamptz NOT NULL,
    user_id        text        NOT NULL, -- the merchant who owns the publication
    publication_id text        NOT NULL,
    product_id     text        NOT NULL DEFAULT '', -- what the publication shows (blueprint or product id)
    viewer         text        NOT NULL, -- the browser's random first-party id; never an address
    kind           text        NOT NULL, -- view, interact, visible, hotspot, variant, ar, fullscreen, click, lead
    counted        boolean     NOT NULL DEFAULT false, -- view: whether it was a counted (billed) view
    ms             integer     NOT NULL DEFAULT 0,     -- visible: milliseconds visible since the last heartbeat
    hotspot        text        NOT NULL DEFAULT '',
    variant        text        NOT NULL DEFAULT '',
    mode           text        NOT NULL DEFAULT '', -- ar: webxr, scene-viewer, quick-look
    platform       text        NOT NULL DEFAULT '', -- click: the store platform of the link
    device         text        NOT NULL DEFAULT '',
    source         text        NOT NULL DEFAULT '',
    region         text        NOT NULL DEFAULT ''
) PARTITION BY RANGE (at);
-- Each partition inherits this index; the rollup reads one owner-less day at
-- a time (a partition scan), the raw-path queries one owner's range.
CREATE INDEX shopper_events_user_at ON shopper_events (user_id, at);

-- One row per shopper (viewer) per publication per day: what they did, with
-- the dimensions of their first view that day. Everything the dashboard shows
-- is computed from these rows (internal/analytics/kpi.go).
CREATE TABLE shopper_days (
    user_id          text        NOT NULL,
    day              date        NOT NULL,
    publication_id   text        NOT NULL,
    viewer           text        NOT NULL,
    product_id       text        NOT NULL,
    device           text        NOT NULL,
    source           text        NOT NULL,
    region           text        NOT NULL,
    counted          boolean     NOT NULL, -- had a counted view that day
    interacted       boolean     NOT NULL,
    visible_ms       bigint      NOT NULL,
    hotspots         text[]      NOT NULL, -- distinct hotspots opened
    variants         text[]      NOT NULL, -- distinct variants seen (the opening one included)
    variant_changed  boolean     NOT NULL,
    ar               boolean     NOT NULL,
    fullscreen       boolean     NOT NULL,
    clicks           integer     NOT NULL,
    platforms        text[]      NOT NULL, -- store platforms clicked
    -- what happened before the shopper's first click (topFeaturesAdding)
    ar_before_click      boolean NOT NULL,
    variant_before_click boolean NOT NULL,
    zoom_before_click    boolean NOT NULL,
    hotspots_before_click text[] NOT NULL,
    PRIMARY KEY (user_id, day, publication_id, viewer)
);
CREATE INDEX shopper_days_user_day ON shopper_days (user_id, day) INCLUDE (product_id);

-- Which days the rollup has computed, and from how many raw rows: the
-- periodic job recomputes today and yesterday, and any day whose raw count
-- changed (late batches).
CREATE TABLE shopper_rollup_days (
    day         date        PRIMARY KEY,
    raw_rows    bigint      NOT NULL,
    computed_at timestamptz NOT NULL
);
