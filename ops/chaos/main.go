// Command chaos runs Photo3D's api and several worker processes on one
// Postgres while it kill -9s random workers every few hundred milliseconds
// (restarting them, as Kubernetes would) and restarts Postgres in the middle,
// then checks that nothing was lost or done twice:
//
//	go run ./ops/chaos -m 40 -workers 4 -chaos 30s -kill-every 300ms
//
// Jobs are created through the public API throughout the run, outage
// included. A short RECONSTRUCT_TIMEOUT makes River's rescuer re-run jobs
// whose worker died soon after. It asserts: every job the API accepted
// finished (0 lost), none completed twice, each completed job consumed its
// credit exactly once (a failed one released it), the API's credit counters
// agree, no request hung during the outage, and /readyz went red while the
// database was down and green again after. Everything runs on 127.0.0.1 and
// stops by itself (-max).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/photo3d/photo3d/ops/internal/harness"
)

func main() { harness.Main("chaos", run) }

type options struct {
	m, workers        int
	chaos, killEvery  time.Duration
	pgAt, pgDown      time.Duration
	timeout, settle   time.Duration
	bin               string
	verbose           bool
	requestTimeoutMax time.Duration
	scenarios         string
	stripeMock        string
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	var o options
	fs := flag.NewFlagSet("chaos", flag.ContinueOnError)
	fs.IntVar(&o.m, "m", 40, "jobs to create (spread over the chaos window)")
	fs.IntVar(&o.workers, "workers", 4, "worker processes")
	fs.DurationVar(&o.chaos, "chaos", 30*time.Second, "how long workers are killed")
	fs.DurationVar(&o.killEvery, "kill-every", 300*time.Millisecond, "mean time between kill -9s (each ±50%)")
	fs.DurationVar(&o.pgAt, "pg-restart-at", 12*time.Second, "when Postgres is stopped (0: never)")
	fs.DurationVar(&o.pgDown, "pg-down", 3*time.Second, "how long Postgres stays down")
	fs.DurationVar(&o.timeout, "reconstruct-timeout", 10*time.Second, "RECONSTRUCT_TIMEOUT of the workers (rescue comes after twice this, plus River's rescuer interval)")
	fs.DurationVar(&o.settle, "settle", 4*time.Minute, "how long to wait for the last jobs after the chaos")
	fs.DurationVar(&o.requestTimeoutMax, "hang", 5*time.Second, "a request slower than this during the outage counts as hung")
	fs.StringVar(&o.bin, "bin", "", "directory with prebuilt api and worker (default: build them)")
	fs.BoolVar(&o.verbose, "v", false, "show the processes' logs")
	fs.StringVar(&o.scenarios, "scenarios", "erasure,billing,mail", "what else happens during the chaos (comma-separated; \"\" for none): "+scenarioHelp())
	fs.StringVar(&o.stripeMock, "stripe-mock", "", "stripe-mock binary for the billing scenario (default: bin/stripe-mock, else go install it)")
	maxDur := fs.Duration("max", 10*time.Minute, "stop everything after this long")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.m < 1 || o.m > 500 || o.workers < 1 || o.workers > 16 || o.killEvery < 50*time.Millisecond || o.chaos > 5*time.Minute {
		return errors.New("-m 1..500, -workers 1..16, -kill-every ≥ 50ms, -chaos ≤ 5m")
	}
	scenarios, err := pickScenarios(o.scenarios)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, *maxDur)
	defer cancel()
	log := io.Discard
	if o.verbose {
		log = os.Stderr
	}

	env, err := harness.Prepare(ctx, "photo3d-chaos-", o.bin)
	if err != nil {
		return err
	}
	defer env.Close(ctx)
	pg, tmp, bin := env.PG, env.Tmp, env.Bin
	dbURL, err := pg.Start(ctx, "chaos")
	if err != nil {
		return err
	}
	st, err := harness.StartStack(ctx, bin, dbURL, filepath.Join(tmp, "data"), log)
	if err != nil {
		return err
	}
	defer st.Stop()
	// A killed erasure or export is run again once PRIVACY_JOB_TIMEOUT has
	// passed since it started (River's rescuer): as short as the builds'.
	st.WorkerEnv = []string{"RECONSTRUCT_WORKERS=1", "QUEUES=default,reconstruct,model", "RECONSTRUCT_TIMEOUT=" + o.timeout.String(),
		"PRIVACY_JOB_TIMEOUT=" + max(2*o.timeout, 10*time.Second).String(),
		"SHUTDOWN_TIMEOUT=5s"}

	// The workers send the sign-up mail whose link verifies the merchant.
	if err := st.AddWorkers(ctx, o.workers); err != nil {
		return err
	}
	cr := &chaosRun{st: st, pg: pg, o: o, bin: bin, tmp: tmp, log: log,
		pgStopped: make(chan struct{}), pgStarted: make(chan struct{})}
	defer cr.stop()
	for _, sc := range scenarios {
		if err := sc.setup(ctx, cr); err != nil {
			return fmt.Errorf("%s: set up: %w", sc.name(), err)
		}
	}
	merchant, err := harness.SignUp(ctx, st.APIBase, o.m, st.Verifier())
	if err != nil {
		return err
	}
	images := make([]string, o.m)
	for i := range o.m {
		if images[i], err = merchant.Upload(ctx, i); err != nil {
			return err
		}
	}

	r := &report{}
	start := time.Now()
	chaosCtx, stopChaos := context.WithTimeout(ctx, o.chaos)
	defer stopChaos()
	var wg sync.WaitGroup
	var ids []string
	var idsMu sync.Mutex

	// Jobs arrive throughout the window; a create refused during the outage
	// is retried, as a person would, and must not have left a job behind.
	wg.Add(1)
	go func() {
		defer wg.Done()
		gap := o.chaos * 8 / 10 / time.Duration(o.m)
		for i := 0; i < o.m; {
			cctx, c := context.WithTimeout(ctx, o.requestTimeoutMax+5*time.Second)
			t0 := time.Now()
			id, err := merchant.CreateJob(cctx, images[i])
			c()
			r.request(time.Since(t0), err)
			if err != nil {
				r.createRetries.Add(1)
				time.Sleep(200 * time.Millisecond)
				if ctx.Err() != nil {
					return
				}
				continue
			}
			idsMu.Lock()
			ids = append(ids, id)
			idsMu.Unlock()
			i++
			time.Sleep(gap)
		}
	}()

	// The scenarios act during the window: erasures and exports, Stripe
	// webhooks across the outage, mail across an SMTP outage.
	scenarioErrs := make([]error, len(scenarios))
	for i, sc := range scenarios {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := sc.during(chaosCtx, cr); err != nil {
				scenarioErrs[i] = fmt.Errorf("%s: %w", sc.name(), err)
			}
		}()
	}

	// Killer: kill -9 a random running worker; the supervisor restarts it.
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			d := o.killEvery/2 + rand.N(o.killEvery)
			select {
			case <-chaosCtx.Done():
				return
			case <-time.After(d):
			}
			w := st.Workers[rand.N(len(st.Workers))]
			if w.Running() {
				w.Kill()
				r.kills.Add(1)
			}
		}
	}()

	// Supervisor: restart dead workers after a short back-off (a worker
	// started while Postgres is down exits at once and is tried again).
	superCtx, stopSuper := context.WithCancel(ctx)
	defer stopSuper()
	var superWG sync.WaitGroup
	superWG.Add(1)
	go func() {
		defer superWG.Done()
		for superCtx.Err() == nil {
			for _, w := range st.Workers {
				if !w.Running() {
					if err := w.Start(); err == nil {
						r.restarts.Add(1)
					}
				}
			}
			time.Sleep(time.Duration(100+rand.N(200)) * time.Millisecond)
		}
	}()

	// Postgres restart with probes: /readyz must go red then green, and no
	// request may hang meanwhile.
	if o.pgAt > 0 && o.pgAt < o.chaos {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case <-chaosCtx.Done():
				return
			case <-time.After(o.pgAt):
			}
			r.pgErr = outage(ctx, cr, merchant, r)
		}()
	}

	wg.Wait()
	chaosTook := time.Since(start)
	fmt.Fprintf(os.Stderr, "chaos over after %s: %d kills, %d restarts; waiting for the last jobs\n", chaosTook.Round(time.Second), r.kills.Load(), r.restarts.Load())

	waitCtx, cancelWait := context.WithTimeout(ctx, o.settle)
	defer cancelWait()
	lastPrint := time.Time{}
	out, err := harness.Wait(waitCtx, st.Pool, ids, time.Second, func(out harness.Outcome) {
		if time.Since(lastPrint) > 10*time.Second {
			lastPrint = time.Now()
			fmt.Fprintf(os.Stderr, "  %d/%d finished\n", out.Completed+out.Failed, out.Jobs)
		}
	})
	if err != nil {
		stopSuper()
		superWG.Wait()
		return err
	}
	// The scenarios wait for their own work (erasures, exports, mail) with
	// the workers still supervised, then check it.
	var scenarioLines []string
	for i, sc := range scenarios {
		if scenarioErrs[i] != nil {
			continue
		}
		line, err := sc.check(waitCtx, cr)
		if err != nil {
			scenarioErrs[i] = fmt.Errorf("%s: %w", sc.name(), err)
			continue
		}
		scenarioLines = append(scenarioLines, sc.name()+": "+line)
	}
	stopSuper()
	superWG.Wait()
	credits, err := merchant.Credits(ctx)
	if err != nil {
		return err
	}
	var orphans int
	// The main merchant's jobs only: the scenarios' merchants build too.
	if err := st.Pool.QueryRow(ctx, `SELECT count(*) FROM jobs
		WHERE user_id = (SELECT user_id FROM jobs WHERE id = ($1::text[])[1]) AND NOT (id = ANY($1))`, ids).Scan(&orphans); err != nil {
		return err
	}
	var lag int64
	_ = st.Pool.QueryRow(ctx, `SELECT coalesce((SELECT max(position) FROM events), 0) - coalesce(min(last_position), 0) FROM projection_checkpoints`).Scan(&lag)

	fmt.Fprintf(stdout, "\nchaos: %d worker processes, %d jobs created through the API over %s, RECONSTRUCT_TIMEOUT=%s\n", o.workers, len(ids), o.chaos, o.timeout)
	fmt.Fprintf(stdout, "kill -9: %d, worker restarts: %d, job creates refused and retried: %d\n", r.kills.Load(), r.restarts.Load(), r.createRetries.Load())
	fmt.Fprintf(stdout, "outcome: %s\n", out)
	fmt.Fprintf(stdout, "API credits: used %d, still reserved %d; jobs not created by an accepted request: %d\n", credits.Used, credits.Reserved, orphans)
	fmt.Fprintf(stdout, "projection lag after the run: %d events\n", lag)
	fmt.Fprintf(stdout, "%s\n", r.outageSummary())
	for _, line := range scenarioLines {
		fmt.Fprintln(stdout, line)
	}

	var errs []error
	if out.Pending > 0 {
		errs = append(errs, fmt.Errorf("%d jobs lost (neither completed nor failed)", out.Pending))
	}
	if out.DoubleCompletions > 0 || out.CompletedNoEvent > 0 || out.CreditsWrong > 0 {
		errs = append(errs, errors.New("a job completed twice or was charged wrongly"))
	}
	if credits.Used != int64(out.Completed) || credits.Reserved != 0 {
		errs = append(errs, fmt.Errorf("API credits used %d (want %d), reserved %d (want 0)", credits.Used, out.Completed, credits.Reserved))
	}
	if orphans != 0 {
		errs = append(errs, fmt.Errorf("%d jobs exist that no accepted request created", orphans))
	}
	if r.pgErr != nil {
		errs = append(errs, r.pgErr)
	}
	errs = append(errs, scenarioErrs...)
	if err := errors.Join(errs...); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "PASS: 0 lost jobs, 0 double completions, credits charged exactly once per completed job; every scenario held")
	return nil
}

// report collects counters from the goroutines.
type report struct {
	kills, restarts, createRetries atomic.Int64

	mu                       sync.Mutex
	slowest                  time.Duration
	requests, errors         int
	red, green               int
	downFor, greenAfterStart time.Duration
	maxProbe                 time.Duration
	pgErr                    error
}

func (r *report) request(d time.Duration, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests++
	if err != nil {
		r.errors++
	}
	r.slowest = max(r.slowest, d)
}

func (r *report) outageSummary() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return fmt.Sprintf("postgres restart: down %s; /readyz answered 503 %d times while down, 200 again %s after Postgres started; slowest probe %s; slowest job create %s (%d creates, %d refused)",
		r.downFor.Round(time.Millisecond), r.red, r.greenAfterStart.Round(time.Millisecond), r.maxProbe.Round(time.Millisecond),
		r.slowest.Round(time.Millisecond), r.requests, r.errors)
}

// outage stops Postgres, probes the api while it is down and after it is
// back, and says what went wrong, if anything.
func outage(ctx context.Context, cr *chaosRun, m *harness.Merchant, r *report) error {
	pg, st, o := cr.pg, cr.st, cr.o
	hc := &http.Client{Timeout: o.requestTimeoutMax + 5*time.Second}
	probe := func(path string) (int, time.Duration) {
		t0 := time.Now()
		req, _ := http.NewRequestWithContext(ctx, "GET", st.APIBase+path, nil)
		if path != "/readyz" {
			req.Header.Set("Authorization", "Bearer "+m.Token)
		}
		res, err := hc.Do(req)
		d := time.Since(t0)
		r.mu.Lock()
		r.maxProbe = max(r.maxProbe, d)
		r.mu.Unlock()
		if err != nil {
			return 0, d
		}
		res.Body.Close()
		return res.StatusCode, d
	}
	fmt.Fprintln(os.Stderr, "stopping Postgres")
	t0 := time.Now()
	if err := pg.Stop(ctx); err != nil {
		return fmt.Errorf("stop postgres: %w", err)
	}
	stopped := time.Now() // pg_ctl stop waits for the shutdown; count the outage from here
	close(cr.pgStopped)
	var hung []string
	for time.Since(stopped) < o.pgDown {
		for _, path := range []string{"/readyz", "/api/subscription", "/api/blueprints"} {
			code, d := probe(path)
			if d > o.requestTimeoutMax {
				hung = append(hung, fmt.Sprintf("%s took %s", path, d))
			}
			if path == "/readyz" {
				r.mu.Lock()
				if code == http.StatusServiceUnavailable {
					r.red++
				}
				r.mu.Unlock()
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	fmt.Fprintln(os.Stderr, "starting Postgres")
	if _, err := pg.Start(ctx, "chaos"); err != nil {
		return fmt.Errorf("restart postgres: %w", err)
	}
	up := time.Now()
	close(cr.pgStarted)
	r.mu.Lock()
	r.downFor = up.Sub(t0)
	r.mu.Unlock()
	for {
		code, d := probe("/readyz")
		if d > o.requestTimeoutMax {
			hung = append(hung, fmt.Sprintf("/readyz took %s after the restart", d))
		}
		if code == http.StatusOK {
			break
		}
		if time.Since(up) > 30*time.Second {
			return errors.New("/readyz did not turn green within 30s of Postgres restarting")
		}
		time.Sleep(50 * time.Millisecond)
	}
	r.mu.Lock()
	r.greenAfterStart = time.Since(up)
	red := r.red
	r.mu.Unlock()
	if code, _ := probe("/api/subscription"); code != http.StatusOK {
		return fmt.Errorf("GET /api/subscription answered %d after the restart", code)
	}
	var errs []error
	if red == 0 {
		errs = append(errs, errors.New("/readyz never answered 503 while Postgres was down"))
	}
	if len(hung) > 0 {
		errs = append(errs, fmt.Errorf("requests hung during the outage: %v", hung))
	}
	return errors.Join(errs...)
}
