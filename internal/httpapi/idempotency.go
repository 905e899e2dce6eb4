package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/photo3d/photo3d/internal/auth"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/fault"
)

// Idempotent POSTs (issue 17). A client that sends `Idempotency-Key: <k>` on
// one of idempotentRoutes gets exactly one execution per (user, k): a retry
// (a timeout, a dropped connection, a script run twice) receives the first
// answer again, marked `Idempotent-Replayed: true`, and creates or charges
// nothing. Retries that arrive while the first is still running wait for it
// and then get its answer, so 20 parallel copies make one job and spend one
// credit. The key belongs to the signed-in user (session or API key alike).
//
// The key's row lives outside the handler's transaction, so it cannot be
// stored with the handler's change; instead the handler's own transaction
// marks it 'committed' (eventstore.InAppendingTx: every change appends
// events), and the answer is stored ('done') after it. A key whose change
// committed is never run again, even when its answer was lost (the database
// went away after the COMMIT) or was an error: a retry is told so
// (idempotency_answer_lost) instead of making a second job or charging a
// second credit. Only a key whose change did not commit is released or
// taken over, and run again.

// IdempotencyHeader is the request header clients send.
const IdempotencyHeader = "Idempotency-Key"

// idempotentRoutes are the POSTs that cost money or create things. Other
// routes ignore the header. Multipart uploads (photo bytes, .glb models,
// avatars) are left out: their bodies are too large to fingerprint and keep,
// and the upload slot they follow (POST /api/uploads) is covered.
var idempotentRoutes = map[string]bool{
	"POST /api/uploads":                    true,
	"POST /api/uploads/{id}/cutout":        true,
	"POST /api/jobs":                       true,
	"POST /api/jobs/{id}/retry":            true,
	"POST /api/subscription/trial":         true,
	"POST /api/subscription/addons":        true,
	"POST /api/catalogs":                   true,
	"POST /api/products":                   true,
	"POST /api/products/{id}/rebuild":      true,
	"POST /api/products/{id}/variants":     true,
	"POST /api/products/{id}/hotspots":     true,
	"POST /api/products/{id}/links":        true,
	"POST /api/products/{id}/publish":      true,
	"POST /api/galleries":                  true,
	"POST /api/publications":               true,
	"POST /api/publications/{id}/versions": true,
	"POST /api/webhooks":                   true,
}

const (
	// idempotencyRetention: a key can be replayed for 24 hours, then it is
	// forgotten (swept) and may be used again.
	idempotencyRetention = 24 * time.Hour
	// idempotencyLease bounds how long a first request may hold its key; a
	// 'running' row past it belongs to a process that died mid-request and
	// a retry with the same request takes it over. A 'committed' row past it
	// lost its answer: retries are told so (errIdempotencyAnswerLost).
	idempotencyLease = 2 * time.Minute
	// idempotencyWait is how long a concurrent retry waits for the first
	// request before answering 409 idempotency_in_progress.
	idempotencyWait = 30 * time.Second
	// maxReplayBody: answers larger than this are not kept (none of the
	// covered routes comes near it); the key is then released, not replayed.
	maxReplayBody = 1 << 20
	// idempotencySweepEvery: how often one api process deletes expired rows.
	idempotencySweepEvery = 10 * time.Minute
)

var (
	errIdempotencyKeyInvalid = fault.New(fault.Invalid, "invalid_idempotency_key",
		"The Idempotency-Key header must be 1 to 255 printable ASCII characters.")
	errIdempotencyKeyReused = fault.New(fault.Unprocessable, "idempotency_key_reused",
		"This Idempotency-Key was already used for a different request. Use a new key for a new request.")
	errIdempotencyInProgress = fault.New(fault.Conflict, "idempotency_in_progress",
		"A request with this Idempotency-Key is still being processed. Retry in a moment to get its answer.")
	// errIdempotencyAnswerLost: the first request's change committed but its
	// answer was never stored. It is not run again (that would make or
	// charge it twice) and there is nothing to replay, so the client is told
	// to look the result up. A conflict (409) like idempotency_in_progress,
	// but without Retry-After: retrying it answers the same.
	errIdempotencyAnswerLost = fault.New(fault.Conflict, "idempotency_answer_lost",
		"This request was carried out, but its answer could not be kept. Look up what it made (your jobs, products or links) instead of sending it again.")
)

func validIdempotencyKey(k string) bool {
	if len(k) < 1 || len(k) > 255 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// idempotencyRecord is a stored key's state.
type idempotencyRecord struct {
	fingerprint []byte
	done        bool // the answer is stored: replay it
	status      int
	contentType string
	location    string
	body        []byte
	// committed: the first request's change committed and its answer is not
	// stored (yet); leaseOver: its lease has run out, so it never will be.
	committed, leaseOver bool
}

type idempotencyStore struct {
	db        *pgxpool.Pool
	lastSweep atomic.Int64 // unix nanoseconds
}

// claim makes the caller the one executor of (user, key): it inserts the
// row, or takes over an expired one (older than the retention) or an
// abandoned one (lease run out, same request, nothing committed: a
// 'committed' row is never taken over, its change would be made twice).
// Otherwise it returns the row as it stands; found=false means it vanished
// meanwhile (the first attempt failed and released it): claim again.
func (s *idempotencyStore) claim(ctx context.Context, user, key string, fp []byte) (rec idempotencyRecord, claimed, found bool, err error) {
	s.sweep(ctx)
	// The takeover is an UPDATE apart from the INSERT, not its ON CONFLICT
	// DO UPDATE ... WHERE: that locks the row even when the WHERE refuses
	// it, and a key's retries poll here while its request runs, whose
	// transactions must find the row unlocked (see markCommitted). A plain
	// UPDATE locks only a row it takes over, and one that turned
	// 'committed' meanwhile no longer matches once it has waited for it.
	var one int
	err = s.db.QueryRow(ctx, `
		WITH inserted AS (
			INSERT INTO idempotency_keys (user_id, key, fingerprint, state, leased_until)
			VALUES ($1, $2, $3, 'running', now() + make_interval(secs => $4))
			ON CONFLICT (user_id, key) DO NOTHING
			RETURNING 1
		), taken AS (
			UPDATE idempotency_keys k
			SET fingerprint = $3, state = 'running', status = 0, content_type = '', location = '', body = '',
				created_at = now(), leased_until = now() + make_interval(secs => $4)
			WHERE k.user_id = $1 AND k.key = $2
			  AND (k.created_at < now() - make_interval(secs => $5)
			       OR (k.state = 'running' AND k.leased_until < now() AND k.fingerprint = $3))
			RETURNING 1
		)
		SELECT 1 FROM inserted UNION ALL SELECT 1 FROM taken`,
		user, key, fp, idempotencyLease.Seconds(), idempotencyRetention.Seconds()).Scan(&one)
	if err == nil {
		return idempotencyRecord{}, true, true, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return idempotencyRecord{}, false, false, fmt.Errorf("claim idempotency key: %w", err)
	}
	var state string
	err = s.db.QueryRow(ctx, `SELECT fingerprint, state, status, content_type, location, body, leased_until < now()
		FROM idempotency_keys WHERE user_id = $1 AND key = $2`, user, key).
		Scan(&rec.fingerprint, &state, &rec.status, &rec.contentType, &rec.location, &rec.body, &rec.leaseOver)
	if errors.Is(err, pgx.ErrNoRows) {
		return idempotencyRecord{}, false, false, nil
	}
	if err != nil {
		return idempotencyRecord{}, false, false, fmt.Errorf("read idempotency key: %w", err)
	}
	rec.done = state == "done"
	rec.committed = state == "committed"
	return rec, false, true, nil
}

// markCommitted runs inside every transaction the claimed request's handler
// appends events in (eventstore.InAppendingTx), so the key says 'committed'
// exactly when some change of the request did commit, whatever becomes of
// the answer afterwards.
//
// It skips a row another transaction holds locked rather than wait for it:
// that is another transaction of the same request that marked it first
// (nothing else locks a claimed row for long: see claim), and it may be
// waiting for this one, so a wait here would wait on itself for good.
// Catalog writes once did that: they resolve further photos, which completes
// a cloud upload in a transaction of its own, inside one that may already
// have appended (the default catalog). That completion now runs without the
// hooks (eventstore.WithoutAppendHooks); skipping keeps any future nesting
// from hanging. The holder's mark stands if it commits; if it rolls back
// while this one commits, the key stays 'running' as it did before marks
// existed (a non-final answer releases it).
func markCommitted(user, key string) func(ctx context.Context, tx pgx.Tx) error {
	return func(ctx context.Context, tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `UPDATE idempotency_keys SET state = 'committed'
			WHERE (user_id, key) IN (SELECT user_id, key FROM idempotency_keys
				WHERE user_id = $1 AND key = $2 AND state = 'running' FOR UPDATE SKIP LOCKED)`, user, key)
		if err != nil {
			return fmt.Errorf("mark idempotency key committed: %w", err)
		}
		return nil
	}
}

// finish stores the final answer, or, when the answer is not final (a 5xx,
// a conflict, a rate limit, a cancelled request, a body too large to keep),
// releases the key so a retry runs the request again, provided nothing of
// it committed. A 'committed' key is kept instead, its lease ended so that
// retries learn at once that the answer is lost rather than wait for it.
func (s *idempotencyStore) finish(ctx context.Context, user, key string, c *capture, o *replayOverride) error {
	ctx = context.WithoutCancel(ctx)
	body, err := c.storedBody(o)
	if !c.final() || err != nil {
		_, derr := s.db.Exec(ctx, `
			WITH released AS (
				DELETE FROM idempotency_keys WHERE user_id = $1 AND key = $2 AND state = 'running'
			)
			UPDATE idempotency_keys SET leased_until = now()
			WHERE user_id = $1 AND key = $2 AND state = 'committed'`, user, key)
		return errors.Join(err, derr)
	}
	_, err = s.db.Exec(ctx, `UPDATE idempotency_keys SET state = 'done', status = $3, content_type = $4, location = $5, body = $6
		WHERE user_id = $1 AND key = $2`, user, key, c.status, c.Header().Get("Content-Type"), c.Header().Get("Location"), body)
	return err
}

// sweep deletes expired keys, at most once per idempotencySweepEvery per process.
func (s *idempotencyStore) sweep(ctx context.Context) {
	now := time.Now().UnixNano()
	last := s.lastSweep.Load()
	if now-last < int64(idempotencySweepEvery) || !s.lastSweep.CompareAndSwap(last, now) {
		return
	}
	_, _ = s.db.Exec(context.WithoutCancel(ctx), `DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(secs => $1)`,
		idempotencyRetention.Seconds())
}

// replayKey carries a *replayOverride on an idempotent request's context.
type replayKey struct{}

// replayOverride is what a handler wants a replay to answer instead of the
// answer it sent: see replayAs.
type replayOverride struct {
	data any
	set  bool
}

// replayAs tells the idempotency layer that a replay of this request must
// answer data (same status, same envelope) instead of what the handler sent.
// Answers that show a secret once (a webhook's signing secret) use it, so the
// secret is never stored in idempotency_keys and a retry within the 24 hours
// cannot read it again. Outside an idempotent request it does nothing.
func replayAs(r *http.Request, data any) {
	if o, ok := r.Context().Value(replayKey{}).(*replayOverride); ok {
		o.data, o.set = data, true
	}
}

// storedBody is the body kept for replays: the handler's override when it
// gave one, else the bytes it sent.
func (c *capture) storedBody(o *replayOverride) ([]byte, error) {
	if o == nil || !o.set {
		return c.body.Bytes(), nil
	}
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(envelope{Success: true, Data: o.data}); err != nil {
		return nil, fmt.Errorf("encode replay: %w", err)
	}
	return b.Bytes(), nil
}

// capture passes an answer through to the client and keeps a copy.
type capture struct {
	http.ResponseWriter
	status   int
	body     bytes.Buffer
	overflow bool
}

func (c *capture) WriteHeader(code int) {
	if c.status == 0 {
		c.status = code
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *capture) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	if !c.overflow {
		if c.body.Len()+len(b) > maxReplayBody {
			c.overflow = true
			c.body.Reset()
		} else {
			c.body.Write(b)
		}
	}
	return c.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (c *capture) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// final says whether the answer is the request's outcome (to be replayed)
// rather than a transient failure worth running again.
func (c *capture) final() bool {
	switch {
	case c.status == 0, c.overflow, c.status >= 500:
		return false
	case c.status == http.StatusConflict, c.status == http.StatusTooManyRequests, c.status == 499:
		return false
	}
	return true
}

// idempotent is the middleware for the signed-in group (after requireAuth).
func idempotent(db *pgxpool.Pool) func(http.Handler) http.Handler {
	store := &idempotencyStore{db: db}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			key, sent := r.Header[IdempotencyHeader]
			if !sent || db == nil || !idempotentRoutes[r.Method+" "+routePattern(r)] {
				next.ServeHTTP(w, r)
				return
			}
			if len(key) != 1 || !validIdempotencyKey(key[0]) {
				WriteError(w, r, errIdempotencyKeyInvalid)
				return
			}
			body, err := io.ReadAll(r.Body)
			if err != nil {
				WriteError(w, r, err)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			h := sha256.New()
			_, _ = io.WriteString(h, r.Method+" "+r.URL.RequestURI()+"\n")
			h.Write(body)
			serveIdempotent(store, next, w, r, currentWorkspace(r), idempotencyScope(r, key[0]), h.Sum(nil))
		})
	}
}

func serveIdempotent(store *idempotencyStore, next http.Handler, w http.ResponseWriter, r *http.Request, user, key string, fp []byte) {
	ctx := r.Context()
	deadline := time.Now().Add(idempotencyWait)
	pause := 10 * time.Millisecond
	for {
		rec, claimed, found, err := store.claim(ctx, user, key, fp)
		if err != nil {
			WriteError(w, r, err)
			return
		}
		if claimed {
			c := &capture{ResponseWriter: w}
			o := &replayOverride{}
			finished := false
			defer func() {
				if !finished { // a panic: release the key for a retry
					_ = store.finish(ctx, user, key, &capture{ResponseWriter: w}, nil)
				}
			}()
			hctx := eventstore.InAppendingTx(context.WithValue(ctx, replayKey{}, o), markCommitted(user, key))
			next.ServeHTTP(c, r.WithContext(hctx))
			finished = true
			if err := store.finish(ctx, user, key, c, o); err != nil {
				LoggerFrom(ctx).Error("store idempotent answer", "err", err)
			}
			return
		}
		if found && !bytes.Equal(rec.fingerprint, fp) {
			WriteError(w, r, errIdempotencyKeyReused)
			return
		}
		if found && rec.done {
			if rec.contentType != "" {
				w.Header().Set("Content-Type", rec.contentType)
			}
			if rec.location != "" {
				w.Header().Set("Location", rec.location)
			}
			w.Header().Set("Cache-Control", "no-store")
			w.Header().Set("Idempotent-Replayed", "true")
			w.WriteHeader(rec.status)
			_, _ = w.Write(rec.body)
			return
		}
		if !found {
			continue // released by a failed first attempt: run it ourselves
		}
		if rec.committed && rec.leaseOver {
			// Carried out, answer lost: never run it again.
			WriteError(w, r, errIdempotencyAnswerLost)
			return
		}
		if time.Now().After(deadline) {
			w.Header().Set("Retry-After", strconv.Itoa(1))
			WriteError(w, r, errIdempotencyInProgress)
			return
		}
		select {
		case <-ctx.Done():
			WriteError(w, r, ctx.Err())
			return
		case <-time.After(pause):
		}
		pause = min(2*pause, 200*time.Millisecond)
	}
}

// idempotencyScope is the key as stored: a key belongs to who sent it. In
// the account's own workspace (and for API keys, which are the workspace's)
// that is the workspace, as before teams; a member working in another
// workspace has keys of their own there, so two members who happen to send
// the same key neither replay nor block each other's requests (issue 51).
func idempotencyScope(r *http.Request, key string) string {
	if sess, ok := auth.SessionFrom(r.Context()); ok && sess.UserID != currentWorkspace(r) {
		return sess.UserID + ":" + key
	}
	return key
}
