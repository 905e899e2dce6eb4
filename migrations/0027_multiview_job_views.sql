-- Multi-photo builds (issue 34 §3): the further photos of a job, in order, as
-- [{"uploadId", "imageKey", "azimuth"?}], so the worker, retries and product
-- rebuilds use the same views. Empty for a one-photo build.
ALTER TABLE jobs ADD COLUMN more_views jsonb NOT NULL DEFAULT '[]';
