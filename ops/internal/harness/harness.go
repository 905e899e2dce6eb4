// Package harness runs Photo3D as real processes on this machine for the
// scale and chaos runs (ops/scaletest, ops/chaos): a throwaway Postgres
// cluster started with ops/postgres.sh, the api and any number of worker
// processes built from this checkout, a merchant driving the public API, and
// the checks that every job finished exactly once, read from the event log.
//
// Everything listens on 127.0.0.1 and every run is bounded in time; the
// processes it starts are its own and are stopped by their pid.
package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Root finds the repository root (where go.mod is) from the working directory.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run from inside the repository (no go.mod found)")
		}
		dir = parent
	}
}

// Build compiles api and worker from root into dir (niced: this machine is
// shared). The api embeds web/dist; an unbuilt app only means its pages say
// so, which these runs never open.
func Build(ctx context.Context, root, dir string, log io.Writer) error {
	if err := os.MkdirAll(filepath.Join(root, "web", "dist"), 0o755); err != nil {
		return err
	}
	keep := filepath.Join(root, "web", "dist", ".keep")
	if _, err := os.Stat(keep); err != nil {
		if err := os.WriteFile(keep, nil, 0o644); err != nil {
			return err
		}
	}
	for _, name := range []string{"api", "worker"} {
		fmt.Fprintf(log, "building %s\n", name)
		cmd := exec.CommandContext(ctx, "nice", "-n", "19", "go", "build", "-o", filepath.Join(dir, name), "./cmd/"+name)
		cmd.Dir, cmd.Stdout, cmd.Stderr = root, log, log
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("build %s: %w", name, err)
		}
	}
	return nil
}

// FreePort asks the kernel for a free loopback port.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// Postgres is a throwaway cluster in its own directory (ops/postgres.sh).
type Postgres struct {
	Root, Dir string
	Port      int
	Log       io.Writer
}

// Start initialises (first time) and starts the cluster; it returns the URL
// of database db.
func (p *Postgres) Start(ctx context.Context, db string) (string, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(p.Root, "ops", "postgres.sh"), "start", p.Dir, strconv.Itoa(p.Port), db)
	cmd.Env = append(os.Environ(), "PG_EXTRA_OPTS=-c fsync=off -c synchronous_commit=off -c full_page_writes=off")
	cmd.Stderr = p.Log
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("start postgres: %w", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1], nil
}

// Stop shuts the cluster down (fast mode: open connections are cut).
func (p *Postgres) Stop(ctx context.Context) error {
	cmd := exec.CommandContext(ctx, filepath.Join(p.Root, "ops", "postgres.sh"), "stop", p.Dir)
	cmd.Stdout, cmd.Stderr = p.Log, p.Log
	return cmd.Run()
}

// Proc is one api or worker process that can be stopped, killed and
// restarted with the same command line.
type Proc struct {
	Name string
	Path string
	Args []string
	Env  []string
	Log  io.Writer

	mu    sync.Mutex
	cmd   *exec.Cmd
	done  chan struct{}
	Kills int
	Runs  int
}

// Start launches the process; it is an error if it is already running.
func (p *Proc) Start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil {
		select {
		case <-p.done:
		default:
			return fmt.Errorf("%s is already running", p.Name)
		}
	}
	cmd := exec.Command(p.Path, p.Args...)
	cmd.Env = append(os.Environ(), p.Env...)
	cmd.Stdout, cmd.Stderr = p.Log, p.Log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // never outlive the harness
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", p.Name, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	p.cmd, p.done = cmd, done
	p.Runs++
	return nil
}

// Running reports whether the process is alive.
func (p *Proc) Running() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return false
	}
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// Pid is the running process's id (0 when it is not running): measurements
// read its CPU time and memory from /proc.
func (p *Proc) Pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil || p.cmd.Process == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// Kill sends SIGKILL (kill -9: no shutdown code runs) and waits for the exit.
func (p *Proc) Kill() {
	p.signal(syscall.SIGKILL, 5*time.Second)
	p.mu.Lock()
	p.Kills++
	p.mu.Unlock()
}

// Stop sends SIGTERM and waits up to grace, then kills.
func (p *Proc) Stop(grace time.Duration) {
	if !p.signal(syscall.SIGTERM, grace) {
		p.signal(syscall.SIGKILL, 5*time.Second)
	}
}

func (p *Proc) signal(sig syscall.Signal, wait time.Duration) bool {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.mu.Unlock()
	if cmd == nil {
		return true
	}
	select {
	case <-done:
		return true
	default:
	}
	_ = cmd.Process.Signal(sig)
	select {
	case <-done:
		return true
	case <-time.After(wait):
		return false
	}
}

// WaitHTTP polls url until it answers 200 or ctx ends.
func WaitHTTP(ctx context.Context, url string) error {
	c := &http.Client{Timeout: time.Second}
	for {
		res, err := c.Get(url)
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s did not answer 200: %w", url, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Run runs a command to completion (migrations).
func Run(ctx context.Context, log io.Writer, env []string, path string, args ...string) error {
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w", filepath.Base(path), strings.Join(args, " "), err)
	}
	return nil
}

// Main runs a command's body with a context that SIGINT/SIGTERM cancel, and
// exits 1 with the error, if any.
func Main(name string, body func(ctx context.Context, args []string, stdout io.Writer) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := body(ctx, os.Args[1:], os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}

// Env is a checkout's binaries and a throwaway Postgres cluster (started by
// Postgres.Start) in a temporary directory that Close removes.
type Env struct {
	Root, Tmp, Bin string
	PG             *Postgres
}

// Prepare builds api and worker into a temporary directory unless bin names
// prebuilt ones, and picks a port for the cluster.
func Prepare(ctx context.Context, prefix, bin string) (*Env, error) {
	root, err := Root()
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", prefix)
	if err != nil {
		return nil, err
	}
	e := &Env{Root: root, Tmp: tmp, Bin: bin}
	if e.Bin == "" {
		e.Bin = filepath.Join(tmp, "bin")
		if err := Build(ctx, root, e.Bin, os.Stderr); err != nil {
			e.Close(ctx)
			return nil, err
		}
	}
	port, err := FreePort()
	if err != nil {
		e.Close(ctx)
		return nil, err
	}
	e.PG = &Postgres{Root: root, Dir: filepath.Join(tmp, "pg"), Port: port, Log: os.Stderr}
	return e, nil
}

// Close stops the cluster and removes the temporary directory.
func (e *Env) Close(ctx context.Context) {
	if e.PG != nil {
		_ = e.PG.Stop(context.WithoutCancel(ctx))
	}
	_ = os.RemoveAll(e.Tmp)
}
