// Command channelload measures security review 3's item H1 on a real stack:
// what anonymous requests for a published product's channel files cost the
// api. It starts the api and one worker built from this checkout on a fresh
// database, signs a merchant up (Pro trial), makes a product from a photo,
// uploads the review's own model (glbtest.Grid: a 1000×1000 grid, 36 MB,
// 1,996,002 triangles) and gives it 20 variants, publishes it, and at once
// has 40 anonymous clients ask in parallel for the variants' .usdz,
// .commerce.glb and .glb files (client i the i-th file of v1.usdz,
// v1.commerce.glb, v1.glb, v2.usdz, …; once, or with -repeat again and again)
// while /healthz is polled every 50 ms, for a window of -dur (answers still
// pending at its end are cut). It reports the api's CPU seconds in that
// window (utime+stime from /proc/<pid>/stat), its peak RSS (VmHWM from
// /proc/<pid>/status), the answers by status and /healthz's latency; then,
// with -ready, how long the worker takes to make every file and at what CPU
// and memory.
//
//	nice go run ./ops/channelload -db 'postgres://postgres@127.0.0.1:55432/postgres?sslmode=disable'
//
// PUBLIC_RATE_LIMIT is raised so the per-address page limit does not hide
// the api's own cost: the clients stand for many addresses.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/internal/glbvariants/glbtest"
	"github.com/photo3d/photo3d/ops/internal/harness"
)

func main() { harness.Main("channelload", run) }

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("channelload", flag.ContinueOnError)
	admin := fs.String("db", "", "URL of a Postgres server to create a throwaway database in (default: a throwaway cluster via ops/postgres.sh)")
	binFlag := fs.String("bin", "", "directory with prebuilt api and worker (default: build them)")
	grid := fs.Int("grid", 1000, "the model's grid side (1000: the review's 36 MB, 2 M triangles)")
	nVariants := fs.Int("variants", 20, "variants of the product")
	clients := fs.Int("clients", 40, "parallel anonymous clients")
	dur := fs.Duration("dur", 60*time.Second, "the measured window")
	repeat := fs.Bool("repeat", false, "each client asks again and again (default: once)")
	ready := fs.Duration("ready", 0, "then wait up to this long for every file to be made (0: do not wait)")
	maxDur := fs.Duration("max", 20*time.Minute, "stop everything after this long")
	verbose := fs.Bool("v", false, "show the processes' logs")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, *maxDur)
	defer cancel()
	log := io.Discard
	if *verbose {
		log = os.Stderr
	}
	env, err := harness.Prepare(ctx, "photo3d-channelload-", *binFlag)
	if err != nil {
		return err
	}
	defer env.Close(ctx)
	dbURL, dropDB, err := database(ctx, env, *admin)
	if err != nil {
		return err
	}
	defer dropDB()
	stack, err := harness.StartStack(ctx, env.Bin, dbURL, filepath.Join(env.Tmp, "data"), log, "PUBLIC_RATE_LIMIT=1000000")
	if err != nil {
		return err
	}
	defer stack.Stop()
	if err := stack.AddWorkers(ctx, 1); err != nil {
		return err
	}
	step := func(format string, a ...any) { fmt.Fprintf(os.Stderr, "== "+format+"\n", a...) }

	step("merchant, product from a photo, own model (grid %d), %d variants", *grid, *nVariants)
	m, err := harness.SignUp(ctx, stack.APIBase, 0, stack.Verifier())
	if err != nil {
		return err
	}
	m.HTTP.Timeout = 5 * time.Minute
	slug, variants, err := product(ctx, m, *grid, *nVariants)
	if err != nil {
		return err
	}
	var files []string
	for _, v := range variants {
		for _, ext := range []string{".usdz", ".commerce.glb", ".glb"} {
			files = append(files, "/v/"+slug+"/ar/"+v+ext)
		}
	}
	apiPid, workerPid := stack.API.Pid(), stack.Workers[0].Pid()
	// The window's peak, not the upload's: reset VmHWM (proc(5), clear_refs).
	for _, pid := range []int{apiPid, workerPid} {
		if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
			return fmt.Errorf("reset peak RSS: %w", err)
		}
	}
	before, err := sample(apiPid)
	if err != nil {
		return err
	}
	wBefore, _ := sample(workerPid)

	step("%d clients over %d files (%d variants × usdz, commerce.glb, glb) for %s (repeat: %t), /healthz every 50 ms", *clients, len(files), len(variants), *dur, *repeat)
	hctx, stopHealth := context.WithCancel(ctx)
	health := make(chan []time.Duration, 1)
	go func() { health <- pollHealth(hctx, stack.APIBase+"/healthz") }()
	statuses, slowest := attack(ctx, stack.APIBase, files, *clients, *dur, *repeat)
	after, err := sample(apiPid)
	stopHealth()
	lat := <-health
	if err != nil {
		return err
	}
	wAfter, _ := sample(workerPid)

	fmt.Fprintf(stdout, "model: grid %d (%d variants); %d clients (repeat: %t), window %s\n", *grid, len(variants), *clients, *repeat, *dur)
	fmt.Fprintf(stdout, "answers: %s (slowest %s)\n", statuses, slowest.Round(time.Millisecond))
	fmt.Fprintf(stdout, "api: CPU %.1f s in the window; RSS %d MB before, peak (VmHWM) %d MB\n",
		after.cpu-before.cpu, before.rss>>20, after.hwm>>20)
	fmt.Fprintf(stdout, "worker: CPU %.1f s in the window; peak (VmHWM) %d MB\n", wAfter.cpu-wBefore.cpu, wAfter.hwm>>20)
	fmt.Fprintf(stdout, "/healthz: %d polls, max %s, p99 %s, over 100 ms: %d\n", len(lat), pct(lat, 1).Round(time.Millisecond),
		pct(lat, 0.99).Round(time.Millisecond), count(lat, 100*time.Millisecond))

	if *ready > 0 {
		step("waiting up to %s for every file", *ready)
		start := time.Now()
		left, err := waitReady(ctx, stack.APIBase, files, *ready)
		if err != nil {
			return err
		}
		w, _ := sample(workerPid)
		a, _ := sample(apiPid)
		fmt.Fprintf(stdout, "files: %d of %d made %s after the window (worker CPU %.1f s since publish, peak %d MB; api CPU %.1f s more)\n",
			len(files)-left, len(files), time.Since(start).Round(time.Second), w.cpu-wBefore.cpu, w.hwm>>20, a.cpu-after.cpu)
		usdz, commerce, err := sizes(ctx, stack.APIBase, files)
		if err == nil {
			fmt.Fprintf(stdout, "sizes: USDZ up to %.1f MB, commerce GLB up to %.1f MB\n", float64(usdz)/(1<<20), float64(commerce)/(1<<20))
		}
	}
	return nil
}

// database creates a throwaway database on -db's server, or starts a
// throwaway cluster; drop removes what it made.
func database(ctx context.Context, env *harness.Env, admin string) (string, func(), error) {
	if admin == "" {
		u, err := env.PG.Start(ctx, "channelload")
		return u, func() {}, err
	}
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return "", nil, err
	}
	name := fmt.Sprintf("channelload_%d", time.Now().UnixNano())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		conn.Close(ctx)
		return "", nil, err
	}
	u, err := url.Parse(admin)
	if err != nil {
		return "", nil, err
	}
	u.Path = "/" + name
	return u.String(), func() {
		c := context.WithoutCancel(ctx)
		_, _ = conn.Exec(c, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		conn.Close(c)
	}, nil
}

// product makes the review's product and publishes it: its slug and
// variant ids.
func product(ctx context.Context, m *harness.Merchant, grid, nVariants int) (string, []string, error) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, err := mw.CreateFormFile("file", "vase.png")
	if err != nil {
		return "", nil, err
	}
	if _, err := fw.Write(harness.Photo(1)); err != nil {
		return "", nil, err
	}
	if err := mw.Close(); err != nil {
		return "", nil, err
	}
	var up struct{ UploadID string }
	if err := m.Call(ctx, "POST", "/api/uploads/content", body.Bytes(), mw.FormDataContentType(), &up); err != nil {
		return "", nil, err
	}
	var p struct{ ID string }
	if err := m.Call(ctx, "POST", "/api/products", map[string]any{"name": "Big grid", "uploadId": up.UploadID}, "", &p); err != nil {
		return "", nil, err
	}
	body.Reset()
	mw = multipart.NewWriter(&body)
	if fw, err = mw.CreateFormFile("file", "big.glb"); err != nil {
		return "", nil, err
	}
	glb := glbtest.Grid(grid)
	if _, err := fw.Write(glb); err != nil {
		return "", nil, err
	}
	if err := mw.Close(); err != nil {
		return "", nil, err
	}
	fmt.Fprintf(os.Stderr, "   model %d bytes\n", len(glb))
	var sub struct{ ID, Status string }
	if err := m.Call(ctx, "POST", "/api/products/"+p.ID+"/model", body.Bytes(), mw.FormDataContentType(), &sub); err != nil {
		return "", nil, err
	}
	for sub.Status != "ready" {
		if sub.Status == "failed" {
			return "", nil, errors.New("the model was refused")
		}
		time.Sleep(250 * time.Millisecond)
		if err := m.Call(ctx, "GET", "/api/products/"+p.ID+"/model/"+sub.ID, nil, "", &sub); err != nil {
			return "", nil, err
		}
	}
	for i := 1; i < nVariants; i++ {
		if err := m.Call(ctx, "POST", "/api/products/"+p.ID+"/variants", map[string]any{"name": fmt.Sprintf("V%d", i), "material": "original"}, "", nil); err != nil {
			return "", nil, err
		}
	}
	var got struct{ Variants []struct{ ID string } }
	if err := m.Call(ctx, "GET", "/api/products/"+p.ID, nil, "", &got); err != nil {
		return "", nil, err
	}
	var pub struct{ Slug string }
	if err := m.Call(ctx, "POST", "/api/products/"+p.ID+"/publish", map[string]any{}, "", &pub); err != nil {
		return "", nil, err
	}
	var ids []string
	for _, v := range got.Variants {
		ids = append(ids, v.ID)
	}
	if len(ids) != nVariants {
		return "", nil, fmt.Errorf("the product has %d variants, not %d", len(ids), nVariants)
	}
	return pub.Slug, ids, nil
}

// attack has n anonymous clients ask for files, client c for files[c], once
// or (repeat) each time the next of its files, until d has passed (a request
// still unanswered then is cut). It returns once d has passed.
func attack(ctx context.Context, base string, files []string, n int, d time.Duration, repeat bool) (string, time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var mu sync.Mutex
	byStatus := map[string]int{}
	var slowest time.Duration
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n}}
	var wg sync.WaitGroup
	for c := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := c; ctx.Err() == nil; i += n {
				start := time.Now()
				status := "cut at the window's end"
				req, _ := http.NewRequestWithContext(ctx, "GET", base+files[i%len(files)], nil)
				if res, err := client.Do(req); err == nil {
					_, err = io.Copy(io.Discard, res.Body)
					res.Body.Close()
					if err == nil {
						status = strconv.Itoa(res.StatusCode)
					}
				}
				mu.Lock()
				byStatus[status]++
				if took := time.Since(start); status != "cut at the window's end" && took > slowest {
					slowest = took
				}
				mu.Unlock()
				if !repeat {
					break
				}
				select { // a client asks again after a short pause
				case <-ctx.Done():
				case <-time.After(50 * time.Millisecond):
				}
			}
		}()
	}
	wg.Wait()
	<-ctx.Done() // the window is the same whatever the answers took
	var parts []string
	for k, v := range byStatus {
		parts = append(parts, fmt.Sprintf("%s × %d", k, v))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", "), slowest
}

// pollHealth asks /healthz every 50 ms until ctx ends: each latency.
func pollHealth(ctx context.Context, u string) []time.Duration {
	client := &http.Client{Timeout: 30 * time.Second}
	var out []time.Duration
	for ctx.Err() == nil {
		start := time.Now()
		if res, err := client.Get(u); err == nil {
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
		out = append(out, time.Since(start))
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
	return out
}

// waitReady asks for every file every 2 s until all answer 200 (or a final
// refusal) or d passes: how many are still not made.
func waitReady(ctx context.Context, base string, files []string, d time.Duration) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	left := slices.Clone(files)
	client := &http.Client{Timeout: time.Minute}
	for len(left) > 0 && ctx.Err() == nil {
		var still []string
		for _, f := range left {
			req, _ := http.NewRequestWithContext(ctx, "HEAD", base+f, nil)
			res, err := client.Do(req)
			if err != nil {
				still = append(still, f)
				continue
			}
			res.Body.Close()
			if res.StatusCode == http.StatusServiceUnavailable {
				still = append(still, f)
			}
		}
		left = still
		if len(left) > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(2 * time.Second):
			}
		}
	}
	return len(left), nil
}

// sizes is the largest USDZ and commerce GLB among files.
func sizes(ctx context.Context, base string, files []string) (usdz, commerce int64, err error) {
	for _, f := range files {
		req, _ := http.NewRequestWithContext(ctx, "HEAD", base+f, nil)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, 0, err
		}
		res.Body.Close()
		switch {
		case res.StatusCode != http.StatusOK:
		case strings.HasSuffix(f, ".usdz"):
			usdz = max(usdz, res.ContentLength)
		case strings.HasSuffix(f, ".commerce.glb"):
			commerce = max(commerce, res.ContentLength)
		}
	}
	return usdz, commerce, nil
}

// usage is a process's CPU time and memory as /proc reports them.
type usage struct {
	cpu      float64 // utime+stime, seconds
	rss, hwm int64   // VmRSS, VmHWM, bytes
}

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's times (100 on Linux).
const clockTicks = 100

func sample(pid int) (usage, error) {
	if pid == 0 {
		return usage{}, errors.New("process not running")
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return usage{}, err
	}
	// The command name may hold spaces: fields start after its ')'.
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	u := usage{cpu: (ut + st) / clockTicks}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return usage{}, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		switch k {
		case "VmRSS":
			u.rss = kb << 10
		case "VmHWM":
			u.hwm = kb << 10
		}
	}
	return u, nil
}

// pct is the p-th quantile of ds (1: the largest).
func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

func count(ds []time.Duration, over time.Duration) int {
	n := 0
	for _, d := range ds {
		if d > over {
			n++
		}
	}
	return n
}
