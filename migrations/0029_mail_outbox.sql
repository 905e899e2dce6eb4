-- Issue 31 part 4: account mail goes through a transactional outbox. The
-- request inserts a row here and a River `mail` job naming it in the same
-- transaction; the job sends and deletes the row. The row holds what River's
-- job arguments must not (they are kept and shown to operators): the
-- recipient's address and the template data, which carries single-use links.
-- Erasing an account deletes its rows (user_id).
CREATE TABLE mail_outbox (
    id         text        PRIMARY KEY,
    user_id    text,
    kind       text        NOT NULL,
    to_address text        NOT NULL,
    data       jsonb       NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mail_outbox_user ON mail_outbox (user_id);

-- Issue 29 item 15: the processing screen's estimate is the median of the
-- last 50 completed builds (job.Service.TypicalDuration); this index keeps
-- that a short index scan however many jobs the table holds.
CREATE INDEX jobs_completed_recent ON jobs (finished_at DESC) WHERE status = 'completed';
