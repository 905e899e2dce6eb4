-- Time from a merchant's first upload to their first publish, in seconds.
WITH up AS (SELECT data->>'userId' AS merchant, min(occurredAt) AS t FROM ev
            WHERE type = 'upload.created.v1' GROUP BY 1),
     pub AS (SELECT data->>'userId' AS merchant, min(occurredAt) AS t FROM ev
             WHERE type = 'publication.created.v1' GROUP BY 1)
SELECT merchant, date_diff('microsecond', up.t, pub.t) / 1e6 AS seconds
FROM up JOIN pub USING (merchant)
ORDER BY merchant;
