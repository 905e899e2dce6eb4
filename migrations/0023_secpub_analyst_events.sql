-- Analysts read the event log without personal data (security review 2,
-- item 6). user.registered.v1 and user.profile_updated.v1 carry a person's
-- email and names; analysts answered questions with SELECT on events and so
-- read every merchant's address. They now read analyst_events: the same
-- columns (so the export's commit-safe order and its index still apply),
-- with the personal fields of the user stream removed, and the raw grant on
-- events is revoked. A view runs with its owner's rights, so the analyst
-- needs no access to events itself. New event types that carry personal data
-- must be stripped here too (or, better, carry ids only: DESIGN.md).
CREATE VIEW analyst_events AS
SELECT position, stream_id, stream_type, version, type,
       CASE WHEN stream_type = 'user' THEN data - ARRAY['email', 'name', 'firstName', 'lastName'] ELSE data END AS data,
       metadata, occurred_at, transaction_id
FROM events;

DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'photo3d_analyst') THEN
        RAISE NOTICE 'photo3d_analyst does not exist: grant SELECT ON analyst_events by hand (see 0016_analyst_role.sql)';
        RETURN;
    END IF;
    REVOKE ALL ON events FROM photo3d_analyst;
    GRANT SELECT ON analyst_events TO photo3d_analyst;
END
$$;
