-- Workspace shell read models, all maintained by async projections in the
-- worker (internal/notify, internal/workspace) and rebuilt by `worker replay`.

-- notifications: one row per user-facing update, derived from one event. The
-- id is a hash of (source_position, kind), so a replay re-creates the very same
-- ids and the read marks below join back to them.
CREATE TABLE notifications (
    id              text        PRIMARY KEY,
    user_id         text        NOT NULL,
    kind            text        NOT NULL,
    title           text        NOT NULL,
    message         text        NOT NULL,
    link            text,
    subject_id      text,
    source_position bigint      NOT NULL,
    created_at      timestamptz NOT NULL,
    CONSTRAINT notifications_source UNIQUE (source_position, kind)
);

CREATE INDEX notifications_user_created ON notifications (user_id, created_at DESC, source_position DESC);
CREATE INDEX notifications_subject ON notifications (subject_id) WHERE subject_id IS NOT NULL;

-- notification_reads: what the user has read. It is user state, not derived
-- from events, so the projection's Reset never truncates it; rows for ids a
-- replay no longer produces are simply never joined.
CREATE TABLE notification_reads (
    notification_id text        PRIMARY KEY,
    user_id         text        NOT NULL,
    read_at         timestamptz NOT NULL
);

CREATE INDEX notification_reads_user ON notification_reads (user_id);

-- notify_jobs: job events after job.queued.v1 carry only the job id; the
-- notifications projection remembers who owns each job and its current name.
CREATE TABLE notify_jobs (
    job_id  text PRIMARY KEY,
    user_id text NOT NULL,
    name    text NOT NULL
);

-- notify_usage: the subscription fold the notifications projection needs to
-- tell when public views cross 80 % (views_alerted re-arms below it).
CREATE TABLE notify_usage (
    user_id       text    PRIMARY KEY,
    usage         jsonb   NOT NULL,
    views_alerted boolean NOT NULL DEFAULT false
);

-- workspace_items: everything a merchant owns that search and the dashboard's
-- "Resume where you left off" list show (blueprints now; products and
-- galleries through the same projection later).
CREATE TABLE workspace_items (
    kind       text        NOT NULL,
    item_id    text        NOT NULL,
    user_id    text        NOT NULL,
    label      text        NOT NULL,
    status     text        NOT NULL CHECK (status IN ('processing', 'ready', 'error')),
    path       text        NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    deleted    boolean     NOT NULL DEFAULT false,
    PRIMARY KEY (kind, item_id)
);

CREATE INDEX workspace_items_user_updated ON workspace_items (user_id, updated_at DESC) WHERE NOT deleted;

-- workspace_accounts: per-user counters folded from subscription and
-- publication events, read by the dashboard's insights.
CREATE TABLE workspace_accounts (
    user_id      text    PRIMARY KEY,
    usage        jsonb   NOT NULL DEFAULT '{}',
    publications integer NOT NULL DEFAULT 0
);
