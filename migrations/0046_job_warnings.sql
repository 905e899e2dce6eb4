-- The builder's warnings about a model it built but doubts
-- (events.JobCompleted.Warnings: the product runs off an edge of its photo),
-- shown to the merchant beside the model. Never NULL: '[]' when all is well,
-- as for builds completed before this column existed; a replay of the log
-- fills it from the events. Safe to run again.
ALTER TABLE jobs ADD COLUMN IF NOT EXISTS warnings jsonb NOT NULL DEFAULT '[]';
