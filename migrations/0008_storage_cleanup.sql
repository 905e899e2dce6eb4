-- Marks of the periodic storage clean-up (upload.CleanupWorker): an upload
-- whose photo was deleted because no job used it within a day, and a deleted
-- blueprint whose files were deleted. Rows stay (the event log and read
-- models keep their history); only the bytes go.
ALTER TABLE uploads ADD COLUMN purged_at timestamptz;
ALTER TABLE jobs ADD COLUMN blobs_purged_at timestamptz;
CREATE INDEX uploads_unpurged ON uploads (created_at) WHERE purged_at IS NULL;
