-- Builds from a turntable spin set (issue 48): the layout of the job's photos
-- as job.queued.v1 records it, {"rings": [{"photos", "elevationDeg"}]}, so the
-- worker, retries and product rebuilds use the same rings and a replay of the
-- log writes the same row. NULL for every other build (and every older row:
-- no spin build existed before), so no backfill. IF NOT EXISTS: safe to run
-- again on a database that already has it.
ALTER TABLE jobs ADD COLUMN IF NOT EXISTS spin jsonb;
