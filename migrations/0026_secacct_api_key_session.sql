-- Issue 28 item 2: an API key is bound to its account's session version
-- when it is made, so "sign out everywhere", a password change or reset
-- (which bump the version) end it too; apikey.Authenticate compares them.
-- Keys made before carry the version their account has now.
ALTER TABLE api_key_secrets ADD COLUMN session_version bigint NOT NULL DEFAULT 0;

UPDATE api_key_secrets s
SET session_version = a.session_version
FROM api_keys k JOIN account_security a ON a.user_id = k.user_id
WHERE k.id = s.key_id;
