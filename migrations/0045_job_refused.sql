-- A failed build whose photos the builder refused (events.JobFailed.Refused):
-- the same photos would be refused again, so POST /api/jobs/{id}/retry answers
-- 409 and the web app offers other photos instead of Retry. Rows of builds
-- that failed before this column existed stay retryable, as they were; a
-- replay of the log fills it from the events. Safe to run again.
ALTER TABLE jobs ADD COLUMN IF NOT EXISTS refused boolean NOT NULL DEFAULT false;
