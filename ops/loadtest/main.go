// Command loadtest measures the public share page under load on this machine.
// It only talks to loopback addresses, runs for a bounded time, and reports
// throughput, latency percentiles and how many answers were model pages
// versus the "temporarily unavailable" notice (metering stays on).
//
//	go run ./ops/loadtest seed -base http://127.0.0.1:8080 -views 500000
//	go run ./ops/loadtest run -url http://127.0.0.1:8080/v/SLUG -c 64 -d 20s
//
// seed signs up a merchant through the public API, starts the Pro trial, buys
// views (test-mode billing), turns a generated photo into a model and
// publishes it, then prints the share URL. run gives every request its own
// user agent, so each is a distinct viewer that the meter must count.
//
//	go run ./ops/loadtest smoke
//
// runs all of it at its smallest size on a throwaway stack (smoke.go).
//
//	go run ./ops/loadtest ceiling -headers page.headers -body page.html
//
// serves one saved api response from a bare net/http server: the most a Go
// handler can reach against nginx on this machine (ceiling.go).
package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/photo3d/photo3d/ops/internal/harness"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: loadtest seed|run|meter|verify|smoke|ceiling [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "seed":
		err = seed(os.Args[2:])
	case "run":
		err = run(os.Args[2:])
	case "meter":
		err = meter(os.Args[2:])
	case "verify":
		err = verify(os.Args[2:])
	case "smoke":
		err = smoke(os.Args[2:])
	case "ceiling":
		err = ceiling(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q (seed, run, meter, verify, smoke or ceiling)", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

// loopbackOnly refuses any target that is not this machine.
func loopbackOnly(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("parse %q: %w", raw, err)
	}
	host := u.Hostname()
	if host == "localhost" {
		return u, nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("%s is not a loopback address; this tool only loads 127.0.0.1", host)
	}
	return u, nil
}

// ---- seed -------------------------------------------------------------

func seed(args []string) error {
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	base := fs.String("base", "http://127.0.0.1:8080", "api base URL (loopback only)")
	views := fs.Int64("views", 500_000, "public views to buy for the merchant (packs of 10,000; 0: none)")
	free := fs.Bool("free", false, "after publishing, move to the free plan: the balance is exactly the views bought")
	experiment := fs.Bool("experiment", false, "instead: two product pages of the same model, the second running a two-arm experiment; prints both share URLs")
	mailDir := fs.String("mail-dir", filepath.Join(cmp.Or(os.Getenv("DATA_DIR"), ".data"), "outbox"),
		"the DEV_MODE api's mail files, to open the new merchant's verification link")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if _, err := loopbackOnly(*base); err != nil {
		return err
	}
	if *experiment {
		plain, running, err := seedExperiment(context.Background(), *base, *views, harness.MailDirVerifier(*mailDir))
		if err != nil {
			return err
		}
		fmt.Println(plain, running)
		return nil
	}
	share, _, err := seedShare(context.Background(), *base, *views, *free, harness.MailDirVerifier(*mailDir))
	if err != nil {
		return err
	}
	fmt.Println(share)
	return nil
}

// seedExperiment makes two product pages of one model for the same merchant and
// starts a two-arm experiment on the second (issue 52: the page with an
// experiment against the same page without one). It returns both share URLs.
func seedExperiment(ctx context.Context, base string, views int64, verify harness.Verifier) (string, string, error) {
	c, jobID, err := seedModel(ctx, base, views, verify)
	if err != nil {
		return "", "", err
	}
	var urls [2]string
	for i, name := range []string{"Bench lamp", "Bench lamp (experiment)"} {
		var product struct{ ID string }
		if err := c.Call(ctx, "POST", "/api/products", map[string]any{"name": name, "blueprintId": jobID}, "", &product); err != nil {
			return "", "", err
		}
		var pub struct{ ShareURL string }
		if err := c.Call(ctx, "POST", "/api/products/"+product.ID+"/publish", map[string]any{}, "", &pub); err != nil {
			return "", "", err
		}
		urls[i] = pub.ShareURL
		if i == 1 {
			arms := []map[string]any{{"name": "Control"}, {"name": "Close-up", "preset": map[string]any{"cameraOrbit": "30deg 70deg 80%", "autospin": false}}}
			if err := c.Call(ctx, "POST", "/api/products/"+product.ID+"/experiments", map[string]any{"goal": "clicks", "arms": arms}, "", nil); err != nil {
				return "", "", err
			}
		}
	}
	return urls[0], urls[1], nil
}

// seedModel signs a merchant up (verify proves the address), buys views and
// builds a model from a generated photo; it returns the merchant and the job.
func seedModel(ctx context.Context, base string, views int64, verify harness.Verifier) (*harness.Merchant, string, error) {
	c, err := harness.SignUp(ctx, base, 0, verify)
	if err != nil {
		return nil, "", err
	}
	if views > 0 {
		if err := c.Call(ctx, "POST", "/api/subscription/addons", map[string]any{"kind": "views", "amount": views}, "", nil); err != nil {
			return nil, "", err
		}
	}
	img, err := c.Upload(ctx, 0)
	if err != nil {
		return nil, "", err
	}
	var job struct{ ID, Status string }
	if err := c.Call(ctx, "POST", "/api/jobs", map[string]any{"imageURL": img}, "", &job); err != nil {
		return nil, "", err
	}
	deadline := time.Now().Add(3 * time.Minute)
	for job.Status != "completed" {
		if job.Status == "failed" || time.Now().After(deadline) {
			return nil, "", fmt.Errorf("job %s ended %q", job.ID, job.Status)
		}
		time.Sleep(time.Second)
		if err := c.Call(ctx, "GET", "/api/jobs/"+job.ID, nil, "", &job); err != nil {
			return nil, "", err
		}
	}
	return c, job.ID, nil
}

// seedShare signs a merchant up (verify proves the address), buys views,
// builds a model from a generated photo and publishes it; with free it then
// moves to the free plan. It returns the share URL and the public-view
// balance (-1 when the API did not say).
func seedShare(ctx context.Context, base string, views int64, free bool, verify harness.Verifier) (string, int64, error) {
	c, jobID, err := seedModel(ctx, base, views, verify)
	if err != nil {
		return "", -1, err
	}
	var pub struct{ ShareURL string }
	if err := c.Call(ctx, "POST", "/api/publications", map[string]any{"blueprintId": jobID}, "", &pub); err != nil {
		return "", -1, err
	}
	if free {
		if err := c.Call(ctx, "POST", "/api/subscription/plan", map[string]any{"plan": "free"}, "", nil); err != nil {
			return "", -1, err
		}
	}
	balance := int64(-1)
	var sub struct{ PublicViewsBalance *int64 }
	if err := c.Call(ctx, "GET", "/api/subscription", nil, "", &sub); err == nil && sub.PublicViewsBalance != nil {
		balance = *sub.PublicViewsBalance
		fmt.Fprintf(os.Stderr, "public views balance %d\n", balance)
	}
	return pub.ShareURL, balance, nil
}

// ---- run --------------------------------------------------------------

func run(args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	target := fs.String("url", "", "share page URL (loopback only)")
	conc := fs.Int("c", 64, "concurrent connections")
	dur := fs.Duration("d", 20*time.Second, "measured duration (at most 2m)")
	warm := fs.Duration("warmup", 2*time.Second, "unmeasured warm-up")
	if err := fs.Parse(args); err != nil {
		return err
	}
	u, err := loopbackOnly(*target)
	if err != nil {
		return err
	}
	if *dur <= 0 || *dur > 2*time.Minute {
		return errors.New("-d must be between 0 and 2m")
	}
	_, err = load(u, *conc, *dur, *warm)
	return err
}

// loadResult is what one load run saw.
type loadResult struct {
	Requests, Models, Notices, Failures int
	Statuses                            map[int]int
}

// load sends GET u from conc connections for warm (unmeasured) plus dur,
// every request a new viewer, and prints throughput and latency.
func load(u *url.URL, conc int, dur, warm time.Duration) (loadResult, error) {
	tr := &http.Transport{MaxIdleConns: conc, MaxIdleConnsPerHost: conc, MaxConnsPerHost: conc, IdleConnTimeout: time.Minute}
	hc := &http.Client{Transport: tr, Timeout: 10 * time.Second}

	var (
		measuring  atomic.Bool
		seq        atomic.Int64
		mu         sync.Mutex
		latencies  []time.Duration
		statuses   = map[int]int{}
		models     int
		notices    int
		failures   int
		bytesTotal int64
	)
	ctx, cancel := context.WithTimeout(context.Background(), warm+dur)
	defer cancel()
	start := time.Now()
	go func() {
		time.Sleep(warm)
		start = time.Now()
		measuring.Store(true)
	}()
	var wg sync.WaitGroup
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([]time.Duration, 0, 1<<14)
			lStatus := map[int]int{}
			var lModels, lNotices, lFail int
			var lBytes int64
			for ctx.Err() == nil {
				req, _ := http.NewRequestWithContext(ctx, "GET", u.String(), nil)
				req.Header.Set("User-Agent", fmt.Sprintf("Mozilla/5.0 (X11; Linux x86_64) loadtest/%d", seq.Add(1)))
				t0 := time.Now()
				res, err := hc.Do(req)
				if err != nil {
					if ctx.Err() == nil && measuring.Load() {
						lFail++
					}
					continue
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				elapsed := time.Since(t0)
				if !measuring.Load() || ctx.Err() != nil {
					continue
				}
				local = append(local, elapsed)
				lStatus[res.StatusCode]++
				lBytes += int64(len(body))
				switch {
				case bytes.Contains(body, []byte("<model-viewer")):
					lModels++
				case bytes.Contains(body, []byte("temporarily unavailable")):
					lNotices++
				}
			}
			mu.Lock()
			latencies = append(latencies, local...)
			for k, v := range lStatus {
				statuses[k] += v
			}
			models += lModels
			notices += lNotices
			failures += lFail
			bytesTotal += lBytes
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	slices.Sort(latencies)
	pct := func(p float64) time.Duration {
		if len(latencies) == 0 {
			return 0
		}
		return latencies[min(len(latencies)-1, int(float64(len(latencies))*p))]
	}
	n := len(latencies)
	fmt.Printf("target      %s\n", u)
	fmt.Printf("connections %d, measured %s (after %s warm-up)\n", conc, elapsed.Round(time.Millisecond), warm)
	fmt.Printf("requests    %d (%.0f req/s), %.1f MB\n", n, float64(n)/elapsed.Seconds(), float64(bytesTotal)/1e6)
	fmt.Printf("statuses    %v, transport errors %d\n", statuses, failures)
	fmt.Printf("answers     %d model pages, %d unavailable notices\n", models, notices)
	if n > 0 {
		fmt.Printf("latency     p50 %s  p90 %s  p99 %s  max %s\n", pct(0.50), pct(0.90), pct(0.99), latencies[n-1])
	}
	return loadResult{Requests: n, Models: models, Notices: notices, Failures: failures, Statuses: statuses}, nil
}
