-- Issue 50 item 13: a merchant changes their sign-in address. The request
-- (new address + current password) stores a single-use link here, hashed
-- like email_verifications, and mails it to the NEW address; the change
-- happens only when the link is opened (user_pii.email is updated then, in
-- the same transaction as user.email_changed.v1). The old address is then
-- told, with an undo link (undo = true, email = the old address) that puts
-- it back and signs every device out. Addresses are personal data: they
-- live here, never in events, and erasure deletes the rows. A newer request
-- replaces an older pending one. Not a read model.
CREATE TABLE email_changes (
    token_hash bytea       PRIMARY KEY,
    user_id    text        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    email      text        NOT NULL CHECK (email = lower(email)),
    undo       boolean     NOT NULL DEFAULT false,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX email_changes_user ON email_changes (user_id);
