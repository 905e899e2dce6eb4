-- Teams (issue 51): workspaces own the merchant data; people are members of
-- workspaces with a role. Every statement is safe to run again (the test
-- of this migration runs it twice over a copy of the previous schema's
-- data).
--
-- Every account has its own workspace whose id is the account's id, so the
-- `user_id` column of every merchant-data table (products, jobs,
-- publications, subscriptions, api_keys…) already names the owning
-- workspace: nothing is copied or rewritten, and a replay of the log
-- rebuilds the same rows. The inline projection internal/team.Projection
-- keeps these tables from workspace-{id} and approval-{id} events (and adds
-- the own workspace of each new account on user.registered.v1).

CREATE TABLE IF NOT EXISTS workspaces (
    id               text        PRIMARY KEY,
    owner_id         text        NOT NULL,
    require_approval boolean     NOT NULL DEFAULT false,
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS workspaces_owner ON workspaces (owner_id);

CREATE TABLE IF NOT EXISTS workspace_members (
    workspace_id text        NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    user_id      text        NOT NULL,
    role         text        NOT NULL CHECK (role IN ('owner', 'editor', 'reviewer', 'analyst')),
    joined_at    timestamptz NOT NULL,
    -- The member's own choice (not an event): mail about approvals.
    approval_mail boolean    NOT NULL DEFAULT false,
    PRIMARY KEY (workspace_id, user_id)
);
CREATE INDEX IF NOT EXISTS workspace_members_user ON workspace_members (user_id);
CREATE UNIQUE INDEX IF NOT EXISTS workspace_members_one_owner ON workspace_members (workspace_id) WHERE role = 'owner';

-- Invitations: the address and the hashed single-use token are personal
-- and secret, so they live here and never in events. Not a read model:
-- team.member_invited.v1 records the invitation by id.
CREATE TABLE IF NOT EXISTS team_invites (
    id           text        PRIMARY KEY,
    workspace_id text        NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    email        text        NOT NULL CHECK (email = lower(email)),
    role         text        NOT NULL CHECK (role IN ('editor', 'reviewer', 'analyst')),
    token_hash   bytea       NOT NULL UNIQUE,
    invited_by   text        NOT NULL,
    created_at   timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL,
    accepted_at  timestamptz,
    accepted_by  text,
    revoked_at   timestamptz
);
CREATE UNIQUE INDEX IF NOT EXISTS team_invites_one_open ON team_invites (workspace_id, email)
    WHERE accepted_at IS NULL AND revoked_at IS NULL;

-- Publish requests and their decisions (read model of approval-{id}).
-- "withdrawn" is also set by the projection when the product changes after
-- the request (a product event with a higher stream version).
CREATE TABLE IF NOT EXISTS approvals (
    id               text        PRIMARY KEY,
    workspace_id     text        NOT NULL,
    product_id       text        NOT NULL,
    product_version  bigint      NOT NULL,
    page_version     integer     NOT NULL,
    require_email    boolean     NOT NULL,
    allow_deep_links boolean     NOT NULL,
    requested_by     text        NOT NULL,
    requested_at     timestamptz NOT NULL,
    state            text        NOT NULL CHECK (state IN ('pending', 'approved', 'rejected', 'withdrawn')),
    withdraw_reason  text        NOT NULL DEFAULT '',
    decided_by       text        NOT NULL DEFAULT '',
    decided_at       timestamptz,
    comment          text        NOT NULL DEFAULT ''
);
CREATE UNIQUE INDEX IF NOT EXISTS approvals_one_pending ON approvals (product_id) WHERE state = 'pending';
CREATE INDEX IF NOT EXISTS approvals_workspace ON approvals (workspace_id, state, requested_at DESC);

-- Every existing account becomes the owner of its own workspace. Safe to
-- re-run: both inserts skip rows that exist.
INSERT INTO workspaces (id, owner_id, created_at)
SELECT id, id, created_at FROM users WHERE erased_at IS NULL
ON CONFLICT (id) DO NOTHING;
INSERT INTO workspace_members (workspace_id, user_id, role, joined_at)
SELECT w.id, w.owner_id, 'owner', w.created_at FROM workspaces w
ON CONFLICT (workspace_id, user_id) DO NOTHING;

-- Read marks are each person's own: a workspace's notifications are shared
-- by its members, and one member reading one does not read it for the rest.
-- Existing marks were made by the account owning the workspace, whose id is
-- the notification's user_id: they stay theirs.
DO $$
BEGIN
    IF (SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
        WHERE c.relname = 'notification_reads' AND i.indisprimary AND i.indnatts = 1) > 0 THEN
        ALTER TABLE notification_reads DROP CONSTRAINT notification_reads_pkey;
        ALTER TABLE notification_reads ADD PRIMARY KEY (notification_id, user_id);
    END IF;
END $$;
