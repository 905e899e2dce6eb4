package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/dbtest"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/job/jobtest"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// jobCharges counts what POST /api/jobs makes and charges for user: jobs,
// job.queued.v1 events, and AI credits held or spent.
func jobCharges(t *testing.T, s keyStack, user string) (jobs, queued int, credits int64) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM jobs WHERE user_id = $1`, user).Scan(&jobs))
	require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM events WHERE type = 'job.queued.v1' AND data->>'userId' = $1`,
		user).Scan(&queued))
	sub, err := s.env.Subs.Get(ctx, s.env.DB.Pool, user)
	require.NoError(t, err)
	return jobs, queued, sub.AICreditsReserved + sub.AICreditsUsed
}

func keyState(t *testing.T, db *dbtest.DB, key string) string {
	t.Helper()
	var state string
	err := db.Pool.QueryRow(context.Background(), `SELECT state FROM idempotency_keys WHERE key = $1`, key).Scan(&state)
	if errors.Is(err, pgx.ErrNoRows) {
		return "(none)"
	}
	require.NoError(t, err)
	return state
}

// The build was made and charged, and the database went away before its
// answer was stored: the retry with the same key must not build and charge
// it again (it did, once the key's lease ran out). A trigger stands in for
// the lost database: it refuses to store the answer.
func TestIdempotentJobAnswerLostAfterCommitIsNotRunAgain(t *testing.T) {
	t.Parallel()
	s, a, tok, body := keyedBuildWithTrigger(t, `
		CREATE FUNCTION test_lose_answer() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'the database went away (test)'; END $$;
		CREATE TRIGGER test_lose_answer BEFORE UPDATE ON idempotency_keys
			FOR EACH ROW WHEN (NEW.state = 'done') EXECUTE FUNCTION test_lose_answer()`)
	ctx := context.Background()
	db := s.env.DB.Pool
	jobs0, queued0, credits0 := jobCharges(t, s, a)

	res, r := s.withKey(t, tok, "POST", "/api/jobs", body, "Idempotency-Key", "lost-1")
	require.Equal(t, http.StatusCreated, res.StatusCode, "%+v", r.Error)
	first := decodeAs[jobReply](t, r.Data)
	require.Equal(t, "committed", keyState(t, s.env.DB, "lost-1"), "the job's transaction marked the key; its answer was not stored")

	// The database is back and the first request's lease has run out.
	_, err := db.Exec(ctx, `DROP TRIGGER test_lose_answer ON idempotency_keys;
		UPDATE idempotency_keys SET leased_until = now() - interval '1 second' WHERE key = 'lost-1'`)
	require.NoError(t, err)
	res, r = s.withKey(t, tok, "POST", "/api/jobs", body, "Idempotency-Key", "lost-1")
	jobs, queued, credits := jobCharges(t, s, a)
	require.Equal(t, jobs0+1, jobs, "one job, not two")
	require.Equal(t, queued0+1, queued)
	require.Equal(t, credits0+1, credits, "one credit charged, not two")
	require.Equal(t, http.StatusConflict, res.StatusCode, "%+v", r.Error)
	require.Equal(t, "idempotency_answer_lost", errCode(r))
	require.Empty(t, res.Header.Get("Retry-After"), "retrying answers the same")
	var id string
	require.NoError(t, db.QueryRow(ctx, `SELECT id FROM jobs WHERE user_id = $1`, a).Scan(&id))
	require.Equal(t, first.ID, id)

	// Asked again it answers the same; a new key is a new build.
	res, r = s.withKey(t, tok, "POST", "/api/jobs", body, "Idempotency-Key", "lost-1")
	require.Equal(t, "idempotency_answer_lost", errCode(r))
	res, r = s.withKey(t, tok, "POST", "/api/jobs", body, "Idempotency-Key", "lost-2")
	require.Equal(t, http.StatusCreated, res.StatusCode, "%+v", r.Error)
	require.Equal(t, "done", keyState(t, s.env.DB, "lost-2"))
}

// A build whose transaction fails (here at its COMMIT, after the key was
// marked in it) made and charged nothing: the mark rolls back with it, the
// key is released and the retry builds it, once.
func TestIdempotentJobThatDidNotCommitRunsAgain(t *testing.T) {
	t.Parallel()
	s, a, tok, body := keyedBuildWithTrigger(t, `
		CREATE FUNCTION test_fail_commit() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'commit failed (test)'; END $$;
		CREATE CONSTRAINT TRIGGER test_fail_commit AFTER UPDATE ON idempotency_keys
			DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.state = 'committed') EXECUTE FUNCTION test_fail_commit()`)
	ctx := context.Background()
	db := s.env.DB.Pool
	jobs0, queued0, credits0 := jobCharges(t, s, a)

	res, r := s.withKey(t, tok, "POST", "/api/jobs", body, "Idempotency-Key", "fails-1")
	require.Equal(t, http.StatusInternalServerError, res.StatusCode, "%+v", r.Error)
	jobs, queued, credits := jobCharges(t, s, a)
	require.Equal(t, [3]int64{int64(jobs0), int64(queued0), credits0}, [3]int64{int64(jobs), int64(queued), credits}, "nothing made or charged")
	require.Equal(t, "(none)", keyState(t, s.env.DB, "fails-1"), "released")

	_, err := db.Exec(ctx, `DROP TRIGGER test_fail_commit ON idempotency_keys`)
	require.NoError(t, err)
	res, r = s.withKey(t, tok, "POST", "/api/jobs", body, "Idempotency-Key", "fails-1")
	require.Equal(t, http.StatusCreated, res.StatusCode, "%+v", r.Error)
	require.Empty(t, res.Header.Get("Idempotent-Replayed"), "run, not replayed")
	jobs, queued, credits = jobCharges(t, s, a)
	require.Equal(t, [3]int64{int64(jobs0 + 1), int64(queued0 + 1), credits0 + 1}, [3]int64{int64(jobs), int64(queued), credits})
	res, _ = s.withKey(t, tok, "POST", "/api/jobs", body, "Idempotency-Key", "fails-1")
	require.Equal(t, "true", res.Header.Get("Idempotent-Replayed"))
}

// A handler that answers an error although its change committed (a read
// after the COMMIT failed, say) keeps its key: the change is not made again,
// and since no answer will come, retries learn so at once rather than after
// the lease. While the first request may still store its answer, a retry
// waits for it.
func TestIdempotencyKeepsACommittedKeyWhateverTheAnswer(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	store := &idempotencyStore{db: db.Pool}
	es := eventstore.New(events.Domain())
	calls, status := 0, http.StatusInternalServerError
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		err := pgdb.WithTx(r.Context(), db.Pool, func(tx pgx.Tx) error {
			id := uuid.NewString()
			_, err := es.Append(r.Context(), tx, events.Stream{Type: events.StreamCatalog, ID: id}, 0,
				events.CatalogCreated{CatalogID: id, UserID: "user-1", Name: "Made"})
			return err
		})
		require.NoError(t, err)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = fmt.Fprintf(w, `{"call":%d}`, calls)
	})
	run := func(key string) *httptest.ResponseRecorder { return serveCatalogKeyed(store, h, key) }
	made := func() int { return catalogsCreated(t, db) }

	require.Equal(t, http.StatusInternalServerError, run("k1").Code)
	require.Equal(t, "committed", keyState(t, db, "k1"))
	again := run("k1")
	require.Equal(t, http.StatusConflict, again.Code)
	require.Contains(t, again.Body.String(), `"idempotency_answer_lost"`)
	require.Equal(t, 1, calls, "not run again")
	require.Equal(t, 1, made())

	// A committed key whose lease runs is being answered: the retry waits
	// and then replays the answer.
	_, err := db.Pool.Exec(context.Background(), `INSERT INTO idempotency_keys (user_id, key, fingerprint, state, leased_until)
		VALUES ('user-1', 'k2', 'fingerprint', 'committed', now() + interval '1 minute')`)
	require.NoError(t, err)
	done := make(chan *httptest.ResponseRecorder)
	go func() { done <- run("k2") }()
	// Once the retry has read the committed key (its SELECT is the last
	// statement of a pool connection), the first request stores its answer.
	// The test watches on a connection of its own, so that it never
	// overwrites what a pool connection ran last.
	watch, err := pgx.Connect(context.Background(), db.URL)
	require.NoError(t, err)
	defer watch.Close(context.Background())
	require.Eventually(t, func() bool {
		var n int
		err := watch.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'SELECT fingerprint, state%'`).Scan(&n)
		return err == nil && n > 0
	}, time.Minute, 5*time.Millisecond, "the retry never read the key")
	select {
	case rec := <-done:
		t.Fatalf("the retry answered while the first request could still store its answer: %d %s", rec.Code, rec.Body)
	default:
	}
	_, err = watch.Exec(context.Background(), `UPDATE idempotency_keys SET state = 'done', status = 201,
		content_type = 'application/json', body = '{"call":"first"}' WHERE key = 'k2'`)
	require.NoError(t, err)
	replay := <-done
	require.Equal(t, http.StatusCreated, replay.Code, replay.Body.String())
	require.Equal(t, "true", replay.Header().Get("Idempotent-Replayed"))
	require.Equal(t, 1, calls)

	// A final answer is stored over the mark and replayed, as ever.
	status = http.StatusCreated
	require.Equal(t, http.StatusCreated, run("k3").Code)
	require.Equal(t, "done", keyState(t, db, "k3"))
	require.Equal(t, "true", run("k3").Header().Get("Idempotent-Replayed"))
	require.Equal(t, 2, calls)
	require.Equal(t, 2, made())
}

// A request's transaction that has marked its key may wait for another
// transaction of the same request (a catalog write completes an upload in a
// transaction of its own): that one must not wait for the mark's row lock,
// or the request waits on itself for good. When both commit the key is
// marked; when only the inner one does (its change is a side matter: the
// request failed), the key is released as before marks existed.
func TestIdempotencyMarkDoesNotWaitOnItsOwnRequest(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	store := &idempotencyStore{db: db.Pool}
	es := eventstore.New(events.Domain())
	outerFails := false
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		create := func(tx pgx.Tx) error {
			id := uuid.NewString()
			_, err := es.Append(ctx, tx, events.Stream{Type: events.StreamCatalog, ID: id}, 0,
				events.CatalogCreated{CatalogID: id, UserID: "user-1", Name: "Made"})
			return err
		}
		err := pgdb.WithTx(ctx, db.Pool, func(outer pgx.Tx) error {
			if err := create(outer); err != nil {
				return err
			}
			if err := pgdb.WithTx(ctx, db.Pool, create); err != nil {
				return err
			}
			if outerFails {
				return errors.New("outer transaction fails")
			}
			return nil
		})
		if err != nil {
			WriteError(w, r, err)
			return
		}
		WriteJSON(w, http.StatusCreated, map[string]string{"made": "both"})
	})
	run := func(key string) *httptest.ResponseRecorder { return serveCatalogKeyed(store, h, key) }
	made := func() int { return catalogsCreated(t, db) }

	require.Equal(t, http.StatusCreated, run("k1").Code)
	require.Equal(t, "done", keyState(t, db, "k1"))
	require.Equal(t, 2, made())

	outerFails = true
	require.Equal(t, http.StatusInternalServerError, run("k2").Code)
	require.Equal(t, 3, made(), "the inner transaction committed")
	require.Equal(t, "(none)", keyState(t, db, "k2"), "the outer one, which marked the key, did not: released")
}

// serveCatalogKeyed serves POST /api/catalogs through the idempotency layer
// for user-1 with key (the same fingerprint every time).
func serveCatalogKeyed(store *idempotencyStore, h http.Handler, key string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	serveIdempotent(store, h, rec, httptest.NewRequest("POST", "/api/catalogs", nil), "user-1", key, []byte("fingerprint"))
	return rec
}

// catalogsCreated counts the catalog.created.v1 events in db.
func catalogsCreated(t *testing.T, db *dbtest.DB) int {
	t.Helper()
	var n int
	require.NoError(t, db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM events WHERE type = 'catalog.created.v1'`).Scan(&n))
	return n
}

// keyedBuildWithTrigger is a stack, a signed-in user with a token and a
// build's body (one photo), with the test's fault installed in the database
// (trigger: SQL creating a function and the trigger that calls it).
func keyedBuildWithTrigger(t *testing.T, trigger string) (s keyStack, user, token string, body map[string]any) {
	t.Helper()
	s = newKeyStack(t, 0, false)
	user = s.env.User(t)
	token, _, err := s.tokens.Issue(user)
	require.NoError(t, err)
	body = map[string]any{"imageURL": s.env.UploadPhoto(t, user, jobtest.PNG(t, 96, 96))}
	_, err = s.env.DB.Pool.Exec(context.Background(), trigger)
	require.NoError(t, err)
	return s, user, token, body
}
