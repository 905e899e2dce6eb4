package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/photo3d/photo3d/ops/internal/harness"
)

// smoke is the whole loadtest at its smallest size, on a stack of its own
// (ops/internal/harness: throwaway Postgres, api, one worker, SMTP relay):
// seed two merchants as `seed` does (the second on the free plan with one
// pack of views), `run` a short load on the first one's page, `meter` the
// second one's, stop the api and `verify`. It fails when any step does, when
// the load saw an error or anything but model pages, or when metering is not
// exact; make test runs it (ops/harness-smoke.sh) so the tool cannot rot.
//
//	go run ./ops/loadtest smoke [-bin DIR] [-c 4] [-d 3s]
func smoke(args []string) error {
	fs := flag.NewFlagSet("smoke", flag.ContinueOnError)
	bin := fs.String("bin", "", "directory with prebuilt api and worker (default: build them)")
	conc := fs.Int("c", 4, "concurrent connections of the load and the meter")
	dur := fs.Duration("d", 3*time.Second, "measured duration of each (at most 2m)")
	maxDur := fs.Duration("max", 4*time.Minute, "stop everything after this long")
	verbose := fs.Bool("v", false, "show the processes' logs")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dur <= 0 || *dur > 2*time.Minute || *conc < 1 || *conc > 256 {
		return errors.New("-d must be between 0 and 2m, -c between 1 and 256")
	}
	ctx, cancel := context.WithTimeout(context.Background(), *maxDur)
	defer cancel()
	log := io.Discard
	if *verbose {
		log = os.Stderr
	}
	env, err := harness.Prepare(ctx, "photo3d-loadtest-", *bin)
	if err != nil {
		return err
	}
	defer env.Close(ctx)
	dbURL, err := env.PG.Start(ctx, "loadtest")
	if err != nil {
		return err
	}
	// As ops/sharebench.sh runs it: every load request is a distinct shopper
	// (own address from the trusted loopback proxy), and the public rate
	// limit does not stand between them and the meter.
	st, err := harness.StartStack(ctx, env.Bin, dbURL, filepath.Join(env.Tmp, "data"), log,
		"PUBLIC_RATE_LIMIT=100000000", "TRUSTED_PROXIES=127.0.0.1/32")
	if err != nil {
		return err
	}
	defer st.Stop()
	if err := st.AddWorkers(ctx, 1); err != nil {
		return err
	}

	fmt.Println("== seed: two merchants, each with a published model")
	share, _, err := seedShare(ctx, st.APIBase, 10_000, false, st.Verifier())
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	metered, balance, err := seedShare(ctx, st.APIBase, 10_000, true, st.Verifier())
	if err != nil {
		return fmt.Errorf("seed the free merchant: %w", err)
	}
	if balance < 0 {
		return errors.New("seed: the API did not report the free merchant's view balance")
	}

	fmt.Println("== run")
	u, err := loopbackOnly(share)
	if err != nil {
		return err
	}
	res, err := load(u, *conc, *dur, time.Second)
	if err != nil {
		return err
	}
	switch {
	case res.Requests == 0:
		return errors.New("run: no request was answered")
	case res.Failures > 0:
		return fmt.Errorf("run: %d transport errors", res.Failures)
	case res.Statuses[200] != res.Requests:
		return fmt.Errorf("run: answers other than 200: %v", res.Statuses)
	case res.Models != res.Requests:
		return fmt.Errorf("run: %d of %d answers were model pages (%d notices)", res.Models, res.Requests, res.Notices)
	}

	fmt.Println("== meter")
	mu, err := loopbackOnly(metered)
	if err != nil {
		return err
	}
	accepted, notices, err := meterRun(mu, *conc, *dur)
	if err != nil {
		return err
	}
	if accepted == 0 {
		return errors.New("meter: the api accepted no view beacon")
	}
	// The api returns its view lease and writes its event buffer on stop.
	st.API.Stop(30 * time.Second)

	fmt.Println("== verify")
	if err := verifyMetering(ctx, dbURL, path.Base(mu.Path), int64(accepted), balance, int64(notices)); err != nil {
		return err
	}
	fmt.Println("PASS: loadtest seed, run, meter and verify at their smallest size")
	return nil
}
