-- The daily clean-up of unused photos keeps every photo a build uses, the
-- further photos of a multi-photo or spin-set build included (jobs.more_views
-- @> [{"uploadId": …}]); this index answers that containment per upload.
CREATE INDEX IF NOT EXISTS jobs_more_views_gin ON jobs USING gin (more_views jsonb_path_ops);
