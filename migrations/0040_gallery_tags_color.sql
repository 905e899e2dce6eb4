-- Issue 50 item 16: a gallery's own tags (sent at creation, edited later) and
-- the colour of its tile. '' means "not chosen": the API shows the default
-- colour derived from the gallery's id, so old rows need no backfill and a
-- replay writes the same values.
ALTER TABLE galleries
    ADD COLUMN tags            text[] NOT NULL DEFAULT '{}',
    ADD COLUMN thumbnail_color text   NOT NULL DEFAULT '';
