package periodic

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A failed flush is logged under its name and the next tick tries again;
// Run returns once ctx ends.
func TestRunRetriesAfterAFailedFlushAndStopsWithCtx(t *testing.T) {
	// Read only after Run returned (done closed), so a plain buffer is safe.
	var logged bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	ctx, cancel := context.WithCancel(context.Background())
	calls := make(chan int, 100)
	n := 0
	done := make(chan struct{})
	go func() {
		Run(ctx, time.Millisecond, log, "flush test rows", func(context.Context) error {
			n++
			select {
			case calls <- n:
			default: // the test has seen enough; never block the loop
			}
			if n == 1 {
				return errors.New("database unreachable")
			}
			return nil
		})
		close(done)
	}()
	require.Equal(t, 1, <-calls)
	require.Equal(t, 2, <-calls, "the flush after a failure runs")
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after ctx ended")
	}
	require.Contains(t, logged.String(), "flush test rows")
	require.Contains(t, logged.String(), "database unreachable")
	require.Equal(t, 1, bytes.Count(logged.Bytes(), []byte("\n")), "only the failed flush is logged")
}

// A flush in flight when ctx ends (the process stopping mid-write) is not
// cancelled: it finishes with a live context, so a write the database has
// committed is never reported failed and written again, and Run returns
// after it.
func TestRunLetsAFlushInFlightFinishWhenCtxEnds(t *testing.T) {
	var logged bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	ctx, cancel := context.WithCancel(context.Background())
	inFlight, release := make(chan struct{}), make(chan struct{})
	var flushErr error
	done := make(chan struct{})
	go func() {
		first := true
		Run(ctx, time.Millisecond, log, "flush test rows", func(fctx context.Context) error {
			if !first {
				return nil
			}
			first = false
			close(inFlight)
			<-release
			flushErr = fctx.Err()
			return flushErr
		})
		close(done)
	}()
	<-inFlight
	cancel()
	select {
	case <-done:
		t.Fatal("Run returned while a flush was in flight")
	default:
	}
	close(release)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after the flush in flight finished")
	}
	require.NoError(t, flushErr, "the flush in flight kept a live context")
	require.Empty(t, logged.String())
}
