package harness

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/photo3d/photo3d/internal/mail/smtptest"
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
	// Mail is the SMTP relay the api and workers send account mail through
	// (SMTP_ADDR): new merchants verify their address from it
	// (MailVerifier), and chaos runs take it down to test the outbox.
	Mail *smtptest.Server
	Log  io.Writer
	// WorkerEnv is added to every worker's environment.
	WorkerEnv []string

	extraEnv []string
}

// StartStack migrates the database at dbURL and starts the api. extraEnv
// (NAME=value) is added to the api's and every worker's environment, after
// the defaults, so it can override them (BILLING_PROVIDER=stripe …).
func StartStack(ctx context.Context, bin, dbURL, dataDir string, log io.Writer, extraEnv ...string) (*Stack, error) {
	s := &Stack{Bin: bin, DBURL: dbURL, DataDir: dataDir, Log: log, extraEnv: extraEnv}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	s.APIBase = "http://127.0.0.1:" + strconv.Itoa(port)
	if s.Mail, err = smtptest.New(); err != nil {
		return nil, err
	}
	if err := Run(ctx, log, s.env(), filepath.Join(bin, "worker"), "migrate"); err != nil {
		s.Stop()
		return nil, err
	}
	s.API = &Proc{Name: "api", Path: filepath.Join(bin, "api"), Log: log,
		Env: append(s.env(), "PORT="+strconv.Itoa(port), "HOST=127.0.0.1")}
	if err := s.API.Start(); err != nil {
		s.Stop()
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
// blob store, generated secrets), the base URL signed URLs point at, the
// SMTP relay, test-mode billing (acknowledged: these stacks run without
// DEV_MODE) and no cap on an account's waiting builds, then extraEnv.
func (s *Stack) env() []string {
	return append([]string{"DATABASE_URL=" + s.DBURL, "DATA_DIR=" + s.DataDir, "PUBLIC_BASE_URL=" + s.APIBase,
		"LOG_LEVEL=warn", "BILLING_PROVIDER=test-mode", "DEV_MODE=false", "ALLOW_UNSAFE_SETTINGS=true", "SMTP_ADDR=" + s.Mail.Addr(),
		// One merchant queues every job of a scale or chaos run at once.
		"MAX_WAITING_BUILDS=0"}, s.extraEnv...)
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
	if s.Mail != nil {
		s.Mail.Close()
	}
}

// Verifier proves new merchants' addresses from the stack's relay.
func (s *Stack) Verifier() Verifier { return MailVerifier(s.Mail) }
