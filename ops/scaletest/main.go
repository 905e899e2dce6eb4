// Command scaletest measures how reconstruction throughput grows with the
// number of worker processes sharing one Postgres, and checks that every job
// completed exactly once (one completion event, one credit consumed):
//
//	go run ./ops/scaletest -m 16 -procs 1,2,4
//
// For each process count it starts a fresh database on a throwaway Postgres
// cluster, the api and N `worker` processes built from this checkout, signs a
// merchant up through the public API, uploads M different photos, starts M
// builds and waits for them. Jobs per minute is M over the time from the
// first job queued to the last finished, as the jobs table records them.
// Everything runs on 127.0.0.1 and stops by itself (-max).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/photo3d/photo3d/ops/internal/harness"
)

func main() { harness.Main("scaletest", run) }

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("scaletest", flag.ContinueOnError)
	m := fs.Int("m", 16, "photos (jobs) per process count")
	procList := fs.String("procs", "1,2,4", "worker process counts to measure")
	perProc := fs.Int("reconstruct-workers", 1, "RECONSTRUCT_WORKERS of each process (concurrent jobs per process)")
	binFlag := fs.String("bin", "", "directory with prebuilt api and worker (default: build them)")
	maxDur := fs.Duration("max", 20*time.Minute, "stop everything after this long")
	verbose := fs.Bool("v", false, "show the processes' logs")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var procs []int
	for _, p := range strings.Split(*procList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 1 || n > 16 {
			return fmt.Errorf("-procs: %q is not a count between 1 and 16", p)
		}
		procs = append(procs, n)
	}
	if *m < 1 || *m > 500 {
		return errors.New("-m must be between 1 and 500")
	}
	ctx, cancel := context.WithTimeout(ctx, *maxDur)
	defer cancel()
	log := io.Discard
	if *verbose {
		log = os.Stderr
	}

	env, err := harness.Prepare(ctx, "photo3d-scaletest-", *binFlag)
	if err != nil {
		return err
	}
	defer env.Close(ctx)
	pg, tmp, bin := env.PG, env.Tmp, env.Bin

	type row struct {
		procs   int
		elapsed time.Duration
		out     harness.Outcome
		credits harness.Credits
	}
	var rows []row
	for _, n := range procs {
		fmt.Fprintf(os.Stderr, "== %d worker process(es), %d jobs\n", n, *m)
		dbURL, err := pg.Start(ctx, fmt.Sprintf("scale_%d", n))
		if err != nil {
			return err
		}
		st, err := harness.StartStack(ctx, bin, dbURL, filepath.Join(tmp, fmt.Sprintf("data-%d", n)), log)
		if err != nil {
			return err
		}
		st.WorkerEnv = []string{"RECONSTRUCT_WORKERS=" + strconv.Itoa(*perProc), "QUEUES=default,reconstruct"}
		out, credits, err := measure(ctx, st, n, *m)
		st.Stop()
		if err != nil {
			return err
		}
		fmt.Fprintln(os.Stderr, out)
		rows = append(rows, row{n, out.Last.Sub(out.First), out, credits})
	}

	fmt.Fprintf(stdout, "\nM=%d photos per run, RECONSTRUCT_WORKERS=%d per process, builtin reconstructor, %d CPU cores\n\n", *m, *perProc, runtime.NumCPU())
	fmt.Fprintln(stdout, "| worker processes | jobs | completed | first queued → last finished | jobs/minute | speed-up | River attempts | double completions | credits used (API) | credit errors |")
	fmt.Fprintln(stdout, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	base := 0.0
	failed := false
	for _, r := range rows {
		jpm := float64(r.out.Completed) / r.elapsed.Minutes()
		if base == 0 {
			base = jpm
		}
		fmt.Fprintf(stdout, "| %d | %d | %d | %s | %.1f | %.2f× | %d | %d | %d | %d |\n", r.procs, r.out.Jobs, r.out.Completed,
			r.elapsed.Round(100*time.Millisecond), jpm, jpm/base, r.out.Attempts, r.out.DoubleCompletions, r.credits.Used, r.out.CreditsWrong)
		if !r.out.OK() || r.credits.Used != int64(r.out.Jobs) || r.credits.Reserved != 0 {
			failed = true
		}
	}
	if failed {
		return errors.New("not every job completed exactly once with one credit charged (see above)")
	}
	fmt.Fprintln(stdout, "\nevery job completed exactly once: one job.completed.v1 event and one credits_consumed event each; API credits used = jobs, none left reserved")
	return nil
}

// measure feeds m photos to a stack running n workers and waits for them.
func measure(ctx context.Context, st *harness.Stack, n, m int) (harness.Outcome, harness.Credits, error) {
	var out harness.Outcome
	// The workers start first: they send the sign-up mail that verifies the
	// merchant. Jobs per minute counts from the first job queued, so this
	// does not change the figure.
	if err := st.AddWorkers(ctx, n); err != nil {
		return out, harness.Credits{}, err
	}
	merchant, err := harness.SignUp(ctx, st.APIBase, m, st.Verifier())
	if err != nil {
		return out, harness.Credits{}, err
	}
	images := make([]string, m)
	for i := range m {
		if images[i], err = merchant.Upload(ctx, i); err != nil {
			return out, harness.Credits{}, err
		}
	}
	ids := make([]string, m)
	for i, img := range images {
		if ids[i], err = merchant.CreateJob(ctx, img); err != nil {
			return out, harness.Credits{}, err
		}
	}
	out, err = harness.Wait(ctx, st.Pool, ids, 250*time.Millisecond, nil)
	if err != nil {
		return out, harness.Credits{}, err
	}
	if !out.Done() {
		return out, harness.Credits{}, fmt.Errorf("%d worker(s): gave up waiting: %s", n, out)
	}
	credits, err := merchant.Credits(ctx)
	return out, credits, err
}
