-- The account erasure (security review 3, L7) blanks the merchant's text in
-- every event of the account's streams. Each aggregate's creation event
-- (version 1) names its owner, so this index finds an account's streams
-- without reading the whole log; it holds one entry per stream.
CREATE INDEX events_stream_owner ON events ((data->>'userId')) WHERE version = 1;
