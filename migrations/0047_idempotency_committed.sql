-- Idempotency-Key records get a third state, 'committed': the first
-- request's own transaction sets it (internal/httpapi marks the key through
-- eventstore.InAppendingTx) when its change commits, before the answer is
-- stored as 'done'. A 'committed' row whose answer never came (the database
-- went away after the COMMIT, or the handler answered an error although its
-- change had committed) is never taken over or released: a retry is told the
-- request was carried out instead of carrying it out, and charging it, twice.
ALTER TABLE idempotency_keys DROP CONSTRAINT IF EXISTS idempotency_keys_state_check;
ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_state_check
    CHECK (state IN ('running', 'committed', 'done'));
