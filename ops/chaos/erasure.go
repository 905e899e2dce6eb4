package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/ops/internal/harness"
)

// erasureScenario: merchants download their data and delete their accounts
// while workers are killed and Postgres restarts (issue: "Nothing is lost,
// nothing is doubled, and erasure still leaves no personal data").
//
// Merchants act only as people would: through the HTTP API, the mail the
// relay received and the links it holds. The database is read for the
// checks only (the event log, River's jobs, read models, and a scan of
// every table for the leavers' strings), never user_pii or mail_outbox to
// drive the flow.
type erasureScenario struct {
	merchants []*eraMerchant
	// refused counts requests answered 5xx or not at all (the outage) and
	// sent again.
	refused atomic.Int64
}

// eraMerchant is one person of the scenario and what the API told them.
type eraMerchant struct {
	leaver  bool // deletes the account during the chaos
	person  harness.Person
	first   string // the parts of the name, looked for on their own after erasure
	last    string
	product string // their product's name
	shopper string // the address a shopper left on their page (a lead)

	m                *harness.Merchant
	userID           string
	productID, slug  string
	spareImage       string          // leavers: the photo of the build started just before leaving
	extraJob         string          // that build's job id
	deleteAmbiguous  bool            // a refused DELETE may have been committed (then a retry answers 401)
	exportsRequested map[string]bool // the exports the API's answers named, by request time
	exportRequests   int             // export requests accepted
	mu               sync.Mutex
}

func (*erasureScenario) name() string { return "erasure" }

// The people: distinctive strings that appear nowhere else, so finding one
// in a table after the erasure can only be their data.
func eraPeople() []*eraMerchant {
	return []*eraMerchant{
		{leaver: true, person: harness.Person{Email: "ottoline.quarrendon@leaver-one.example", Password: "leaver one pass 1", Name: "Ottoline Quarrendon"},
			first: "Ottoline", last: "Quarrendon", product: "Amber lamp L1", shopper: "sam.lampfan@buyer-one.example"},
		{leaver: true, person: harness.Person{Email: "barnaby.vexworthy@leaver-two.example", Password: "leaver two pass 2", Name: "Barnaby Vexworthy"},
			first: "Barnaby", last: "Vexworthy", product: "Cobalt jug L2", shopper: "kim.jugfan@buyer-two.example"},
		{person: harness.Person{Email: "philippa.staybridge@stayer.example", Password: "stayer pass 3", Name: "Philippa Staybridge"},
			first: "Philippa", last: "Staybridge", product: "Sage vase S1", shopper: "lou.vasefan@buyer-three.example"},
	}
}

// setup gives every merchant real data while the workers run undisturbed:
// a photo, a finished build, a product published with the email gate and a
// shopper's lead on its page; leavers also upload the photo of their last
// build.
func (s *erasureScenario) setup(ctx context.Context, c *chaosRun) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	s.merchants = eraPeople()
	errs := make([]error, len(s.merchants))
	var wg sync.WaitGroup
	for i, em := range s.merchants {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := em.prepare(ctx, c, 900+2*i); err != nil {
				errs[i] = fmt.Errorf("%s: %w", em.person.Email, err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (em *eraMerchant) prepare(ctx context.Context, c *chaosRun, photo int) error {
	var err error
	if em.m, em.userID, err = harness.SignUpAs(ctx, c.st.APIBase, em.person, 20, c.st.Verifier()); err != nil {
		return err
	}
	img, err := em.m.Upload(ctx, photo)
	if err != nil {
		return err
	}
	jobID, err := em.m.CreateJob(ctx, img)
	if err != nil {
		return err
	}
	if st, err := em.m.WaitJob(ctx, jobID); err != nil {
		return err
	} else if st != "completed" {
		return fmt.Errorf("the set-up build %s %s", jobID, st)
	}
	var product struct{ ID string }
	if err := em.m.Call(ctx, "POST", "/api/products", map[string]any{"name": em.product, "blueprintId": jobID}, "", &product); err != nil {
		return err
	}
	em.productID = product.ID
	var pub struct{ Slug string }
	if err := em.m.Call(ctx, "POST", "/api/products/"+em.productID+"/publish", map[string]any{"requireEmail": true}, "", &pub); err != nil {
		return err
	}
	em.slug = pub.Slug
	if code, _, err := em.page(ctx); err != nil || code != http.StatusOK {
		return fmt.Errorf("share page /v/%s: %d %v", em.slug, code, err)
	}
	shopper := &harness.Merchant{Base: em.m.Base, HTTP: em.m.HTTP}
	vid := fmt.Sprintf("viewer-chaos-%08d", photo)
	if code, raw, err := shopper.Send(ctx, "POST", "/v/"+em.slug+"/lead?vid="+vid, map[string]any{"email": em.shopper, "consent": true}); err != nil || code != http.StatusOK {
		return fmt.Errorf("leave a lead on /v/%s: %d %s %v", em.slug, code, raw, err)
	}
	if em.leaver {
		if em.spareImage, err = em.m.Upload(ctx, photo+1); err != nil {
			return err
		}
	}
	return nil
}

// page fetches the merchant's share page as a shopper would.
func (em *eraMerchant) page(ctx context.Context) (int, []byte, error) {
	shopper := &harness.Merchant{Base: em.m.Base, HTTP: em.m.HTTP}
	return shopper.Send(ctx, "GET", "/v/"+em.slug, nil)
}

// during spreads the merchants' requests over the window: the stayer asks
// for an export (twice in a row, a double click) early and again late; one
// leaver asks for an export, starts a build and deletes the account while
// a worker is building it, before the outage; the other does the same from
// the moment Postgres goes down, so its requests are refused and retried
// across the restart, and deletes the account as soon as the build is
// accepted (still queued). Requests that started run
// to their end even if the window closes first: the checks need them.
func (s *erasureScenario) during(ctx context.Context, c *chaosRun) error {
	start := time.Now()
	at := func(f float64) bool { // waits until f of the window has passed; false if the window ended
		select {
		case <-ctx.Done():
			return false
		case <-time.After(time.Until(start.Add(time.Duration(f * float64(c.o.chaos))))):
			return true
		}
	}
	outagePlanned := c.o.pgAt > 0 && c.o.pgAt < c.o.chaos
	// Requests outlive the window by a bounded margin (a retry across the
	// outage near its end).
	act, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()

	leaverA, leaverB, stayer := s.merchants[0], s.merchants[1], s.merchants[2]
	errs := make([]error, 3)
	var wg sync.WaitGroup
	wg.Add(3)
	go func() {
		defer wg.Done()
		at(0.05)
		for range 2 {
			if err := s.requestExport(act, stayer); err != nil {
				errs[0] = err
				return
			}
		}
		at(0.75)
		errs[0] = s.requestExport(act, stayer)
	}()
	go func() {
		defer wg.Done()
		at(0.15)
		if errs[1] = s.requestExport(act, leaverA); errs[1] != nil {
			return
		}
		at(0.22)
		if errs[1] = s.startBuild(act, leaverA); errs[1] != nil {
			return
		}
		// While the build is running, as one watching its progress would.
		if errs[1] = s.waitBuildStarted(act, leaverA); errs[1] != nil {
			return
		}
		errs[1] = s.deleteAccount(act, leaverA)
	}()
	go func() {
		defer wg.Done()
		if outagePlanned {
			select {
			case <-ctx.Done():
			case <-c.pgStopped:
			}
		} else {
			at(0.5)
		}
		if errs[2] = s.requestExport(act, leaverB); errs[2] != nil {
			return
		}
		if errs[2] = s.startBuild(act, leaverB); errs[2] != nil {
			return
		}
		errs[2] = s.deleteAccount(act, leaverB)
	}()
	wg.Wait()
	return errors.Join(errs...)
}

// persist sends a request until it gets an answer that is not a server
// error, as a person clicking again would; a refusal (5xx, no answer)
// is counted. A 429 (the password confirmations share sign-in's limits, and
// every retry across the outage is an attempt) is waited out the same way,
// a second at a time. It returns the status and body of the answer.
func (s *erasureScenario) persist(ctx context.Context, em *eraMerchant, method, path string, body any) (int, []byte, error) {
	for {
		code, raw, err := em.m.Send(ctx, method, path, body)
		if err == nil && code < 500 && code != http.StatusTooManyRequests {
			return code, raw, nil
		}
		s.refused.Add(1)
		wait := 250 * time.Millisecond
		if code == http.StatusTooManyRequests {
			wait = time.Second
		} else if method == "DELETE" && path == "/api/users/me" {
			em.deleteAmbiguous = true
		}
		select {
		case <-ctx.Done():
			if err == nil {
				err = fmt.Errorf("status %d: %s", code, raw)
			}
			return 0, nil, fmt.Errorf("%s %s: refused until the end: %w", method, path, err)
		case <-time.After(wait):
		}
	}
}

// requestExport asks for "Download my data" and remembers which export the
// answer names (by its request time: a second click while one is pending
// names the same one).
func (s *erasureScenario) requestExport(ctx context.Context, em *eraMerchant) error {
	code, raw, err := s.persist(ctx, em, "POST", "/api/users/me/export", nil)
	if err != nil {
		return err
	}
	if code != http.StatusAccepted {
		return fmt.Errorf("%s: POST /api/users/me/export answered %d: %s", em.person.Email, code, raw)
	}
	var ans struct {
		Data struct {
			Status      string `json:"status"`
			RequestedAt string `json:"requestedAt"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &ans); err != nil || ans.Data.RequestedAt == "" {
		return fmt.Errorf("%s: POST /api/users/me/export answered %s (%v)", em.person.Email, raw, err)
	}
	em.mu.Lock()
	defer em.mu.Unlock()
	if em.exportsRequested == nil {
		em.exportsRequested = map[string]bool{}
	}
	em.exportsRequested[ans.Data.RequestedAt] = true
	em.exportRequests++
	return nil
}

func (s *erasureScenario) startBuild(ctx context.Context, em *eraMerchant) error {
	code, raw, err := s.persist(ctx, em, "POST", "/api/jobs", map[string]any{"imageURL": em.spareImage})
	if err != nil {
		return err
	}
	var ans struct {
		Data struct{ ID string } `json:"data"`
	}
	if code != http.StatusCreated || json.Unmarshal(raw, &ans) != nil || ans.Data.ID == "" {
		return fmt.Errorf("%s: POST /api/jobs answered %d: %s", em.person.Email, code, raw)
	}
	em.extraJob = ans.Data.ID
	return nil
}

// waitBuildStarted polls the merchant's last build until a worker has
// started it (or it already ended).
func (s *erasureScenario) waitBuildStarted(ctx context.Context, em *eraMerchant) error {
	for {
		code, raw, err := s.persist(ctx, em, "GET", "/api/jobs/"+em.extraJob, nil)
		if err != nil {
			return err
		}
		var ans struct {
			Data struct{ Status string } `json:"data"`
		}
		if code != http.StatusOK || json.Unmarshal(raw, &ans) != nil {
			return fmt.Errorf("%s: GET /api/jobs/%s answered %d: %s", em.person.Email, em.extraJob, code, raw)
		}
		if ans.Data.Status != "queued" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: build %s never started: %w", em.person.Email, em.extraJob, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// deleteAccount is "Delete account" with the password. A DELETE refused by
// the outage may still have committed (the answer was lost); its retry
// then finds the session ended (401), which counts as accepted only if the
// log holds the request.
func (s *erasureScenario) deleteAccount(ctx context.Context, em *eraMerchant) error {
	code, raw, err := s.persist(ctx, em, "DELETE", "/api/users/me", map[string]any{"password": em.person.Password})
	if err != nil {
		return err
	}
	if code == http.StatusAccepted {
		return nil
	}
	if code == http.StatusUnauthorized && em.deleteAmbiguous {
		return nil // the check counts user.erasure_requested.v1 in the log
	}
	return fmt.Errorf("%s: DELETE /api/users/me answered %d: %s", em.person.Email, code, raw)
}

// check waits for the scenario's work (erasures, exports, the leavers' last
// builds and every River job that names them) with the workers still being
// restarted, then checks the outcome.
func (s *erasureScenario) check(ctx context.Context, c *chaosRun) (string, error) {
	if len(s.merchants) == 0 {
		return "", errors.New("set-up did not run")
	}
	if err := s.waitDone(ctx, c); err != nil {
		return "", err
	}
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	tables, err := harness.BaseTables(ctx, c.st.Pool)
	if err != nil {
		return "", err
	}
	var exportsBuilt, exportsNamed, exportRequests, erased, goodbyes, gone, refusedLogins, needles int
	var lastBuilds []string
	var hits, filesLeft int
	for _, em := range s.merchants {
		who := em.person.Email
		if em.leaver {
			ok, n, err := s.checkLeaver(ctx, c, em, bad)
			if err != nil {
				return "", fmt.Errorf("%s: %w", who, err)
			}
			if ok.erased {
				erased++
			}
			if ok.pageGone {
				gone++
			}
			if ok.loginRefused {
				refusedLogins++
			}
			goodbyes += ok.goodbyes
			lastBuilds = append(lastBuilds, ok.lastBuild)
			hits += ok.hits
			filesLeft += ok.filesLeft
			needles += n
			continue
		}
		built, asked, err := s.checkStayer(ctx, c, em, bad)
		if err != nil {
			return "", fmt.Errorf("%s: %w", who, err)
		}
		exportsBuilt += built
		exportsNamed += asked
		em.mu.Lock()
		exportRequests += em.exportRequests
		em.mu.Unlock()
	}
	var leaverExports, leaverExportsBuilt int
	if err := c.st.Pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE e.position IS NOT NULL) FROM river_job r
		LEFT JOIN events e ON e.type = 'user.data_export_ready.v1' AND e.data->>'exportId' = r.args->>'exportId'
		WHERE r.kind = 'account_export' AND r.args->>'exportId' NOT IN (SELECT id FROM data_exports)`).
		Scan(&leaverExports, &leaverExportsBuilt); err != nil {
		return "", err
	}
	var unfinished int
	if err := c.st.Pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind IN ('account_export', 'account_erase')
		AND state NOT IN ('completed', 'cancelled', 'discarded')`).Scan(&unfinished); err != nil {
		return "", err
	}
	if unfinished > 0 {
		bad("%d export or erasure jobs are not finished", unfinished)
	}
	line := fmt.Sprintf("stayer: %d export requests named %d exports, %d built once each (ZIP downloaded and read); leavers' exports %d (%d built before the erasure); "+
		"accounts erased %d/2 (goodbye mails %d, share pages 410 %d/2, sign-ins 401 %d/2; last builds %s); "+
		"%d tables scanned for %d strings: %d hits; files left %d; River jobs left unfinished %d; requests refused and retried %d",
		exportRequests, exportsNamed, exportsBuilt, leaverExports, leaverExportsBuilt, erased, goodbyes, gone, refusedLogins, strings.Join(lastBuilds, ", "),
		len(tables), needles, hits, filesLeft, unfinished, s.refused.Load())
	if len(problems) > 0 {
		fmt.Fprintln(os.Stderr, "erasure: "+line)
		return "", errors.New(strings.Join(problems, "\n  "))
	}
	return line, nil
}

// waitDone polls until every erasure has completed, the stayer's exports
// are built and nothing that names a leaver is still queued or running.
func (s *erasureScenario) waitDone(ctx context.Context, c *chaosRun) error {
	last := time.Time{}
	for {
		waiting, err := s.pending(ctx, c)
		if err == nil && waiting == "" {
			return nil
		}
		if err != nil {
			waiting = err.Error()
		}
		if time.Since(last) > 10*time.Second {
			last = time.Now()
			fmt.Fprintln(os.Stderr, "  erasure: waiting for "+waiting)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("still waiting for %s: %w%s", waiting, ctx.Err(), s.stuck(c))
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// stuck describes the scenario's River jobs that have not finished, for
// the error when waiting for them ran out of time.
func (s *erasureScenario) stuck(c *chaosRun) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ids := []string{}
	for _, em := range s.merchants {
		for _, id := range []string{em.userID, em.extraJob} {
			if id != "" { // an empty id would match every job
				ids = append(ids, id)
			}
		}
	}
	rows, err := c.st.Pool.Query(ctx, `SELECT format('%s %s %s attempt %s since %s by %s: %s', id, kind, state, attempt,
			to_char(attempted_at, 'HH24:MI:SS'), attempted_by[array_upper(attempted_by, 1)], coalesce(errors[array_upper(errors, 1)]->>'error', 'no error'))
		FROM river_job WHERE state NOT IN ('completed', 'cancelled', 'discarded')
		  AND (kind IN ('account_erase', 'account_export') OR EXISTS (SELECT 1 FROM unnest($1::text[]) i WHERE strpos(args::text, i) > 0))
		ORDER BY id`, ids)
	if err != nil {
		return "; (list the jobs: " + err.Error() + ")"
	}
	list, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(list) == 0 {
		return ""
	}
	return "\n  " + strings.Join(list, "\n  ")
}

// pending says what the scenario still waits for ("" once nothing).
func (s *erasureScenario) pending(ctx context.Context, c *chaosRun) (string, error) {
	var waiting []string
	// Only this scenario exports and erases: each such job must end (an
	// export marked ready by a worker killed before River recorded it is
	// re-run, and must not build twice).
	var open int
	if err := c.st.Pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind IN ('account_export', 'account_erase')
		AND state NOT IN ('completed', 'cancelled', 'discarded')`).Scan(&open); err != nil {
		return "", err
	}
	if open > 0 {
		waiting = append(waiting, fmt.Sprintf("%d export or erasure jobs", open))
	}
	for _, em := range s.merchants {
		if em.leaver {
			var done bool
			if err := c.st.Pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM river_job WHERE kind = 'account_erase'
				AND args->>'userId' = $1 AND state = 'completed')`, em.userID).Scan(&done); err != nil {
				return "", err
			}
			if !done {
				waiting = append(waiting, "the erasure of "+em.person.Email)
			}
			jobs, err := eraUnfinishedJobs(ctx, c, em.userID)
			if err != nil {
				return "", err
			}
			if len(jobs) > 0 {
				waiting = append(waiting, fmt.Sprintf("%s's River jobs %v", em.person.Email, jobs))
			}
			continue
		}
		var open int
		if err := c.st.Pool.QueryRow(ctx, `SELECT count(*) FROM data_exports WHERE user_id = $1 AND status = 'pending'`,
			em.userID).Scan(&open); err != nil {
			return "", err
		}
		if open > 0 {
			waiting = append(waiting, fmt.Sprintf("%d exports of %s", open, em.person.Email))
		}
	}
	return strings.Join(waiting, ", "), nil
}

// eraUnfinishedJobs lists (kind/state) the River jobs not yet finished whose
// arguments name the account or one of its builds, products or uploads
// (mail, reconstruct, cutout, model preparation…).
func eraUnfinishedJobs(ctx context.Context, c *chaosRun, userID string) ([]string, error) {
	rows, err := c.st.Pool.Query(ctx, `WITH ids AS (
			SELECT $1::text AS id
			UNION SELECT id FROM jobs WHERE user_id = $1
			UNION SELECT id FROM products WHERE user_id = $1
			UNION SELECT id FROM uploads WHERE user_id = $1)
		SELECT r.kind || '/' || r.state::text FROM river_job r
		WHERE r.state NOT IN ('completed', 'cancelled', 'discarded')
		  AND EXISTS (SELECT 1 FROM ids WHERE strpos(r.args::text, ids.id) > 0)
		ORDER BY r.id`, userID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// describeFiles names files of the blob store with their size and when
// they were last written, to tell which job left them.
func describeFiles(dataDir string, rel []string) string {
	var out []string
	for _, r := range rel {
		fi, err := os.Stat(filepath.Join(dataDir, "blobs", filepath.FromSlash(r)))
		if err != nil {
			out = append(out, r+" ("+err.Error()+")")
			continue
		}
		out = append(out, fmt.Sprintf("%s (%d bytes, written %s)", r, fi.Size(), fi.ModTime().Format("15:04:05.000")))
	}
	return strings.Join(out, ", ")
}

// leaverOutcome is what checkLeaver found, for the report line.
type leaverOutcome struct {
	erased, pageGone, loginRefused bool
	goodbyes                       int
	lastBuild                      string // how the build started just before leaving ended
	hits, filesLeft                int    // tables still holding a string of theirs, files left
}

// checkLeaver: the erasure ran once and completed, the log says so once,
// the last build ended (not lost), no table holds the address, the names or
// the shopper's address, no file key holds the account's id, the page is
// gone, sign-in is refused and the goodbye mail arrived once.
func (s *erasureScenario) checkLeaver(ctx context.Context, c *chaosRun, em *eraMerchant, bad func(string, ...any)) (leaverOutcome, int, error) {
	var out leaverOutcome
	who := em.person.Email
	db := c.st.Pool
	var eraseJobs, eraseCompleted, requested, erasedEvents int
	if err := db.QueryRow(ctx, `SELECT
			(SELECT count(*) FROM river_job WHERE kind = 'account_erase' AND args->>'userId' = $1),
			(SELECT count(*) FROM river_job WHERE kind = 'account_erase' AND args->>'userId' = $1 AND state = 'completed'),
			(SELECT count(*) FROM events WHERE stream_id = 'user-' || $1 AND type = 'user.erasure_requested.v1'),
			(SELECT count(*) FROM events WHERE stream_id = 'user-' || $1 AND type = 'user.erased.v1')`, em.userID).
		Scan(&eraseJobs, &eraseCompleted, &requested, &erasedEvents); err != nil {
		return out, 0, err
	}
	if eraseJobs != 1 || eraseCompleted != 1 || requested != 1 || erasedEvents != 1 {
		bad("%s: erasure jobs %d (completed %d), erasure requests in the log %d, user.erased.v1 %d: want 1 each", who, eraseJobs, eraseCompleted, requested, erasedEvents)
	}
	out.erased = eraseCompleted == 1 && erasedEvents == 1
	var erasedAt *time.Time
	if err := db.QueryRow(ctx, `SELECT min(occurred_at) FROM events WHERE stream_id = 'user-' || $1 AND type = 'user.erased.v1'`,
		em.userID).Scan(&erasedAt); err != nil {
		return out, 0, err
	}
	var status string
	var afterErasure bool
	if err := db.QueryRow(ctx, `SELECT j.status, coalesce(j.finished_at > (SELECT min(occurred_at) FROM events
			WHERE stream_id = 'user-' || j.user_id AND type = 'user.erased.v1'), false)
		FROM jobs j WHERE j.id = $1`, em.extraJob).Scan(&status, &afterErasure); err != nil {
		return out, 0, fmt.Errorf("read the last build %s: %w", em.extraJob, err)
	}
	if status != "completed" && status != "failed" {
		bad("%s: the build started before leaving (%s) is %s: lost", who, em.extraJob, status)
	}
	out.lastBuild = status
	if afterErasure {
		out.lastBuild += " after the erasure ended"
	} else {
		out.lastBuild += " before the erasure ended"
	}
	if jobs, err := eraUnfinishedJobs(ctx, c, em.userID); err != nil {
		return out, 0, err
	} else if len(jobs) > 0 {
		bad("%s: River jobs left unfinished: %v", who, jobs)
	}

	needles := []string{em.person.Email, em.person.Name, em.first, em.last, em.shopper}
	for _, n := range needles {
		found, err := harness.TablesHolding(ctx, db, n)
		if err != nil {
			return out, 0, err
		}
		if len(found) > 0 {
			out.hits += len(found)
			bad("%s: %q is still in %v", who, n, found)
		}
	}
	keys, err := harness.BlobFilesContaining(c.st.DataDir, em.userID)
	if err != nil {
		return out, 0, err
	}
	out.filesLeft = len(keys)
	if len(keys) > 0 {
		sort.Strings(keys)
		at := "never"
		if erasedAt != nil {
			at = erasedAt.Local().Format("15:04:05.000")
		}
		bad("%s: %d files of the erased account are left in the blob store (erased %s): %s", who, len(keys), at, describeFiles(c.st.DataDir, keys))
	}
	if code, body, err := em.page(ctx); err != nil {
		return out, 0, err
	} else if code != http.StatusGone || bytes.Contains(body, []byte(em.product)) {
		bad("%s: share page /v/%s answered %d (want 410 without the product)", who, em.slug, code)
	} else {
		out.pageGone = true
	}
	anon := &harness.Merchant{Base: em.m.Base, HTTP: em.m.HTTP}
	if code, _, err := anon.Send(ctx, "POST", "/api/auth/login", map[string]any{"email": em.person.Email, "password": em.person.Password}); err != nil {
		return out, 0, err
	} else if code != http.StatusUnauthorized {
		bad("%s: sign-in after the erasure answered %d (want 401)", who, code)
	} else {
		out.loginRefused = true
	}
	out.goodbyes = goodbyeMails(c, em.person.Email)
	if out.goodbyes != 1 {
		bad("%s: %d distinct goodbye mails at the relay (want 1)", who, out.goodbyes)
	}
	return out, len(needles), nil
}

var goodbyeMessageID = regexp.MustCompile(`(?mi)^Message-ID:\s*(\S+)\r?$`)

// goodbyeMails counts the distinct "account deleted" mails the relay got
// for addr: by Message-ID where the mail has one (a resend after a crash
// carries the same), else by body (the erasure mail's body is the same on
// every send). The erasure sends before it commits, so a crash between the
// two may send it twice: that is a resend, not a second mail.
func goodbyeMails(c *chaosRun, addr string) int {
	seen := map[string]bool{}
	for _, m := range c.st.Mail.To(addr) {
		head, body, _ := strings.Cut(m.Data, "\r\n\r\n")
		if !strings.Contains(head, "Subject: Your Photo3D account has been deleted") {
			continue
		}
		if id := goodbyeMessageID.FindStringSubmatch(head); id != nil {
			seen["id "+id[1]] = true
		} else {
			seen["body "+body] = true
		}
	}
	return len(seen)
}

// checkStayer: each export the API named was built exactly once (one River
// job, completed, one ready event), the latest downloads through its URL as
// a ZIP holding the merchant's own data and none of the leavers', and the
// stayer's page, rows and files are untouched by the others' erasure. It
// returns the exports built and the exports the answers named.
func (s *erasureScenario) checkStayer(ctx context.Context, c *chaosRun, em *eraMerchant, bad func(string, ...any)) (int, int, error) {
	who := em.person.Email
	db := c.st.Pool
	rows, err := db.Query(ctx, `SELECT d.id, d.status,
			(SELECT count(*) FROM river_job r WHERE r.kind = 'account_export' AND r.args->>'exportId' = d.id),
			(SELECT count(*) FROM river_job r WHERE r.kind = 'account_export' AND r.args->>'exportId' = d.id AND r.state = 'completed'),
			(SELECT count(*) FROM events e WHERE e.stream_id = 'user-' || $1 AND e.type = 'user.data_export_ready.v1' AND e.data->>'exportId' = d.id)
		FROM data_exports d WHERE d.user_id = $1 ORDER BY d.requested_at`, em.userID)
	if err != nil {
		return 0, 0, err
	}
	type exp struct {
		id, status             string
		jobs, completed, ready int
	}
	exps, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (exp, error) {
		var e exp
		return e, r.Scan(&e.id, &e.status, &e.jobs, &e.completed, &e.ready)
	})
	if err != nil {
		return 0, 0, err
	}
	em.mu.Lock()
	asked := len(em.exportsRequested)
	em.mu.Unlock()
	if len(exps) != asked {
		bad("%s: %d exports exist for the %d the API's answers named", who, len(exps), asked)
	}
	// Each export was built exactly once. One live export per account: the
	// latest is ready, and each one it replaced is expired with its ZIP
	// deleted (security review 3, M4).
	built := 0
	for i, e := range exps {
		want := "ready"
		if i < len(exps)-1 {
			want = "expired"
		}
		if e.status != want || e.jobs != 1 || e.completed != 1 || e.ready != 1 {
			bad("%s: export %s is %s with %d River jobs (%d completed) and %d ready events: want %s, 1, 1, 1", who, e.id, e.status, e.jobs, e.completed, e.ready, want)
			continue
		}
		if want == "expired" {
			if left, err := harness.BlobFilesContaining(c.st.DataDir, e.id); err != nil {
				return built, asked, err
			} else if len(left) > 0 {
				bad("%s: the replaced export %s still has files %v", who, e.id, left)
			}
		}
		built++
	}

	var latest struct {
		Status, URL string
	}
	if err := em.m.Call(ctx, "GET", "/api/users/me/export", nil, "", &latest); err != nil {
		return built, asked, err
	}
	if latest.Status != "ready" || latest.URL == "" {
		bad("%s: GET /api/users/me/export says %q (url %q)", who, latest.Status, latest.URL)
	} else if err := s.readExport(ctx, em, latest.URL, bad); err != nil {
		return built, asked, err
	}

	// The others' erasure left this account alone: the control that the
	// table scan and the file walk see data that is there.
	found, err := harness.TablesHolding(ctx, db, em.person.Email)
	if err != nil {
		return built, asked, err
	}
	if len(found) == 0 {
		bad("%s: the stayer's address is in no table: the scan sees nothing", who)
	}
	if keys, err := harness.BlobFilesContaining(c.st.DataDir, em.userID); err != nil {
		return built, asked, err
	} else if !slices.ContainsFunc(keys, func(k string) bool { return strings.HasPrefix(k, "models/") }) {
		bad("%s: the stayer's model is not in the blob store (files %v)", who, keys)
	}
	if code, _, err := em.page(ctx); err != nil {
		return built, asked, err
	} else if code != http.StatusOK {
		bad("%s: the stayer's share page answered %d", who, code)
	}
	return built, asked, nil
}

// readExport downloads the ZIP through the signed URL (no sign-in: the
// signature is the authorization) and reads it.
func (s *erasureScenario) readExport(ctx context.Context, em *eraMerchant, url string, bad func(string, ...any)) error {
	who := em.person.Email
	anon := &harness.Merchant{Base: em.m.Base, HTTP: em.m.HTTP}
	code, raw, err := anon.Send(ctx, "GET", url, nil)
	if err != nil {
		return err
	}
	if code != http.StatusOK {
		bad("%s: the export's URL answered %d", who, code)
		return nil
	}
	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		bad("%s: the export is not a ZIP: %v", who, err)
		return nil
	}
	entries := map[string]string{}
	for _, f := range zr.File {
		r, err := f.Open()
		if err != nil {
			bad("%s: export entry %s: %v", who, f.Name, err)
			continue
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			bad("%s: export entry %s: %v", who, f.Name, err)
			continue
		}
		entries[f.Name] = string(b)
	}
	for name, want := range map[string]string{"account.json": em.person.Email, "products.json": em.product, "leads.json": em.shopper,
		"publications.json": em.slug} {
		if !strings.Contains(entries[name], want) {
			bad("%s: the export's %s does not hold %q", who, name, want)
		}
	}
	hasModel := false
	for name := range entries {
		// A product's model sits in its named folder (products/Red Mug/model.glb),
		// any other build's under its storage key (files/models/…).
		hasModel = hasModel || ((strings.HasPrefix(name, "files/models/") || strings.HasPrefix(name, "products/")) && strings.HasSuffix(name, ".glb"))
	}
	if !hasModel {
		bad("%s: the export holds no model file", who)
	}
	for _, other := range s.merchants {
		if other == em {
			continue
		}
		for name, text := range entries {
			for _, n := range []string{other.person.Email, other.last, other.shopper, other.userID} {
				if strings.Contains(text, n) {
					bad("%s: the export's %s holds another merchant's %q", who, name, n)
				}
			}
		}
	}
	return nil
}
