-- Experiments (issue 52): A/B tests of how a published product is shown. The
-- experiment-{id} stream holds what the merchant decided (experiment.*.v1);
-- this table is its inline read model, arms and their presets included (the
-- arm names are the merchant's text: the account erasure deletes the rows).
-- At most one experiment per product is running or paused at a time.
CREATE TABLE experiments (
    id             text        PRIMARY KEY,
    user_id        text        NOT NULL,
    product_id     text        NOT NULL,
    publication_id text        NOT NULL,
    goal           text        NOT NULL, -- ar | clicks | leads
    traffic_share  double precision NOT NULL,
    arms           jsonb       NOT NULL, -- [{armId, name, preset}], control first
    state          text        NOT NULL, -- running | paused | stopped
    stop_reason    text        NOT NULL DEFAULT '',
    applied_arm_id text        NOT NULL DEFAULT '',
    started_at     timestamptz NOT NULL,
    stopped_at     timestamptz,
    updated_at     timestamptz NOT NULL
);
CREATE UNIQUE INDEX experiments_one_open ON experiments (product_id) WHERE state <> 'stopped';
CREATE INDEX experiments_owner ON experiments (user_id, product_id, started_at DESC, id);

-- The arm a shopper's view and actions happened in ('' outside experiments):
-- an experiment's results are counted from these rows, so replaying the
-- telemetry gives the same numbers.
ALTER TABLE shopper_events ADD COLUMN arm text NOT NULL DEFAULT '';
CREATE INDEX shopper_events_arm ON shopper_events (arm, kind, viewer) WHERE arm <> '';
