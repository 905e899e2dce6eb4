-- photo3d_analyst: a read-only role for analysts. It reads the event log and
-- the read models that hold no credentials and no personal contact data;
-- users (emails), password credentials, Google identities, password resets,
-- invites, sessions and anything added later stay out of reach unless a
-- migration grants them explicitly. Events never hold secrets (DESIGN.md).
--
-- NOLOGIN: give it to a person's login role,
--   CREATE ROLE alice LOGIN PASSWORD '…' IN ROLE photo3d_analyst;
-- ideally against a read replica. Roles are cluster-wide; the grants below
-- are per database. Managed databases often refuse CREATE ROLE to the
-- application's role: then this migration only says so, and an admin runs
-- `CREATE ROLE photo3d_analyst NOLOGIN;` and the GRANT lines below by hand.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'photo3d_analyst') THEN
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = current_user AND (rolcreaterole OR rolsuper)) THEN
            RAISE NOTICE 'photo3d_analyst not created: % may not create roles (see 0016_analyst_role.sql)', current_user;
            RETURN;
        END IF;
        CREATE ROLE photo3d_analyst NOLOGIN;
    END IF;
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO photo3d_analyst', current_schema());
    GRANT SELECT ON events, projection_checkpoints, uploads, jobs, assets, subscriptions,
        publications, publication_versions TO photo3d_analyst;
END
$$;
