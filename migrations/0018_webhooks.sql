-- Webhooks (issue 17): merchants' endpoints, the delivery log, and the small
-- folds the "webhooks" projection keeps.

-- webhook_endpoints is ordinary state written beside the WebhookRegistered /
-- WebhookRemoved events (like sessions beside user events): the signing secret
-- and the full URL (which often carries a token) must never enter the log.
CREATE TABLE webhook_endpoints (
    id         text        PRIMARY KEY,
    user_id    text        NOT NULL,
    url        text        NOT NULL,
    events     text[]      NOT NULL,
    secret     text        NOT NULL,
    created_at timestamptz NOT NULL,
    removed_at timestamptz
);
CREATE INDEX webhook_endpoints_owner ON webhook_endpoints (user_id, created_at DESC) WHERE removed_at IS NULL;

-- webhook_deliveries is the delivery log. One row per (endpoint, event): the
-- unique pair makes a projection replay or a worker restart unable to send an
-- event twice. payload holds the exact bytes that are signed and sent.
CREATE TABLE webhook_deliveries (
    id               text        PRIMARY KEY,
    endpoint_id      text        NOT NULL REFERENCES webhook_endpoints (id),
    user_id          text        NOT NULL,
    event_id         text        NOT NULL,
    event_type       text        NOT NULL,
    payload          text        NOT NULL,
    state            text        NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
    attempts         integer     NOT NULL DEFAULT 0,
    last_status      integer,
    last_error       text        NOT NULL DEFAULT '',
    last_response    text        NOT NULL DEFAULT '',
    first_attempt_at timestamptz,
    last_attempt_at  timestamptz,
    next_retry_at    timestamptz,
    finished_at      timestamptz,
    created_at       timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT webhook_deliveries_once UNIQUE (endpoint_id, event_id)
);
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (finished_at) WHERE state <> 'pending';

-- webhook_usage: the subscription fold the projection needs to see a
-- merchant's public-views balance drop under 10 % (once per crossing).
CREATE TABLE webhook_usage (
    user_id     text    PRIMARY KEY,
    usage       jsonb   NOT NULL,
    low_alerted boolean NOT NULL DEFAULT false
);
