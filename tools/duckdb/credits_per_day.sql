-- Credits consumed per day (UTC).
SELECT CAST(date_trunc('day', occurredAt) AS DATE) AS day,
       sum(CAST(data->>'amount' AS BIGINT)) AS credits
FROM ev
WHERE type = 'subscription.credits_consumed.v1'
GROUP BY day
ORDER BY day;
