package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/dbtest"
)

// freePort asks the kernel for a loopback port that is free right now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// startAPI runs the real api binary's run() with env and returns its public
// and metrics base URLs; it stops when the test ends.
func startAPI(t *testing.T, env map[string]string) (public, internal string) {
	t.Helper()
	db := dbtest.New(t)
	port, mport := freePort(t), freePort(t)
	all := map[string]string{
		"DATABASE_URL": db.URL, "PORT": strconv.Itoa(port), "HOST": "127.0.0.1",
		"METRICS_ADDR": "127.0.0.1:" + strconv.Itoa(mport), "DATA_DIR": t.TempDir(), "LOG_LEVEL": "warn",
	}
	for k, v := range env {
		all[k] = v
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, nil, func(k string) string { return all[k] }, io.Discard, io.Discard) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("the api did not stop")
		}
	})
	public, internal = "http://127.0.0.1:"+strconv.Itoa(port), "http://127.0.0.1:"+strconv.Itoa(mport)
	require.Eventually(t, func() bool {
		resp, err := http.Get(public + "/healthz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, 30*time.Second, 50*time.Millisecond, "the api did not start")
	return public, internal
}

// Go's profiles tell how a server spends its CPU and what its goroutines are
// doing: an operator may turn them on (PPROF=true) on the internal metrics
// listener only. They are never on the public port, and off by default.
func TestSecurityProfilesOnlyOnTheInternalListenerWhenAsked(t *testing.T) {
	t.Parallel()
	const marker = "Types of profiles available"

	public, internal := startAPI(t, map[string]string{"PPROF": "true"})
	code, body := get(t, internal+"/debug/pprof/")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, marker, "PPROF=true serves the profiles on METRICS_ADDR")
	code, body = get(t, public+"/debug/pprof/")
	require.NotContains(t, body, marker, "the public port never serves profiles (status %d)", code)
	_, body = get(t, public+"/debug/pprof/goroutine?debug=2")
	require.False(t, strings.Contains(body, "goroutine ") && strings.Contains(body, "net/http"), "no goroutine dump on the public port")

	_, internalOff := startAPI(t, nil)
	code, body = get(t, internalOff+"/debug/pprof/")
	require.Equal(t, http.StatusNotFound, code, "profiles are off by default")
	require.NotContains(t, body, marker)
	code, _ = get(t, internalOff+"/metrics")
	require.Equal(t, http.StatusOK, code, "the metrics listener itself still works")
}
