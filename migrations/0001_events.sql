-- The event log: every domain fact, in order. position is the global order of
-- appends; transaction_id lets async projections read gaplessly (see
-- internal/projection): an event is only read once no transaction older than
-- it can still commit.
CREATE TABLE events (
    position       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    stream_id      text        NOT NULL,
    stream_type    text        NOT NULL,
    version        bigint      NOT NULL CHECK (version > 0),
    type           text        NOT NULL,
    data           jsonb       NOT NULL,
    metadata       jsonb       NOT NULL DEFAULT '{}',
    occurred_at    timestamptz NOT NULL DEFAULT now(),
    transaction_id xid8        NOT NULL DEFAULT pg_current_xact_id(),
    CONSTRAINT events_stream_version UNIQUE (stream_id, version)
);

CREATE INDEX events_transaction_position ON events (transaction_id, position);
CREATE INDEX events_type ON events (type);

-- One row per async projection: the last (transaction_id, position) it applied,
-- committed in the same transaction as the projection's read-model change.
CREATE TABLE projection_checkpoints (
    name          text        PRIMARY KEY,
    last_xid      xid8        NOT NULL DEFAULT '0',
    last_position bigint      NOT NULL DEFAULT 0,
    updated_at    timestamptz NOT NULL DEFAULT now()
);
