package harness

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Stack is one api and its workers on one database of a Postgres cluster,
// sharing one DATA_DIR (the file blob store) as pods share a volume.
type Stack struct {
	Bin     string
	DBURL   string
	DataDir string
	APIBase string
	API     *Proc
	Workers []*Proc
	Pool    *pgxpool.Pool
	Log     io.Writer
	// WorkerEnv is added to every worker's environment.
	WorkerEnv []string
}

// StartStack migrates the database at dbURL and starts the api.
func StartStack(ctx context.Context, bin, dbURL, dataDir string, log io.Writer) (*Stack, error) {
	s := &Stack{Bin: bin, DBURL: dbURL, DataDir: dataDir, Log: log}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	s.APIBase = "http://127.0.0.1:" + strconv.Itoa(port)
	if err := Run(ctx, log, s.env(), filepath.Join(bin, "worker"), "migrate"); err != nil {
		return nil, err
	}
	s.API = &Proc{Name: "api", Path: filepath.Join(bin, "api"), Log: log,
		Env: append(s.env(), "PORT="+strconv.Itoa(port), "HOST=127.0.0.1")}
	if err := s.API.Start(); err != nil {
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := WaitHTTP(wctx, s.APIBase+"/readyz"); err != nil {
		s.Stop()
		return nil, err
	}
	s.Pool, err = pgxpool.New(ctx, dbURL)
	if err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// env is what both binaries share: the database, the data directory (file
// blob store, generated secrets) and the base URL signed URLs point at.
func (s *Stack) env() []string {
	return []string{"DATABASE_URL=" + s.DBURL, "DATA_DIR=" + s.DataDir, "PUBLIC_BASE_URL=" + s.APIBase,
		"LOG_LEVEL=warn", "BILLING_PROVIDER=test-mode", "DEV_MODE=false"}
}

// AddWorkers starts n more worker processes and waits until each serves
// /healthz (River and the projections started).
func (s *Stack) AddWorkers(ctx context.Context, n int) error {
	for range n {
		port, err := FreePort()
		if err != nil {
			return err
		}
		addr := "127.0.0.1:" + strconv.Itoa(port)
		w := &Proc{Name: fmt.Sprintf("worker-%d", len(s.Workers)+1), Path: filepath.Join(s.Bin, "worker"), Log: s.Log,
			Args: []string{"run"}, Env: append(append(s.env(), "WORKER_METRICS_ADDR="+addr), s.WorkerEnv...)}
		if err := w.Start(); err != nil {
			return err
		}
		s.Workers = append(s.Workers, w)
		wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		err = WaitHTTP(wctx, "http://"+addr+"/healthz")
		cancel()
		if err != nil {
			return fmt.Errorf("%s: %w", w.Name, err)
		}
	}
	return nil
}

// Stop stops the workers and the api gracefully (SIGTERM, then SIGKILL).
func (s *Stack) Stop() {
	for _, w := range s.Workers {
		w.Stop(30 * time.Second)
	}
	if s.API != nil {
		s.API.Stop(30 * time.Second)
	}
	if s.Pool != nil {
		s.Pool.Close()
	}
}
