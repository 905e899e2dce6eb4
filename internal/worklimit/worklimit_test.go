package worklimit_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/worklimit"
)

// Past its slots and its short queue the limiter refuses at once instead of
// queueing: at most n jobs ever run together, and the rest get ErrBusy.
func TestLimiterBoundsConcurrencyAndRefusesPastItsQueue(t *testing.T) {
	t.Parallel()
	l := worklimit.New(2).WithWait(50 * time.Millisecond)
	release := make(chan struct{})
	var running, most atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- l.Do(context.Background(), func() error {
				n := running.Add(1)
				for {
					m := most.Load()
					if n <= m || most.CompareAndSwap(m, n) {
						break
					}
				}
				<-release
				running.Add(-1)
				return nil
			})
		}()
	}
	time.Sleep(200 * time.Millisecond) // every waiter has given up by now
	close(release)
	wg.Wait()
	close(errs)
	busy, ok := 0, 0
	for err := range errs {
		if err == nil {
			ok++
		} else {
			require.ErrorIs(t, err, worklimit.ErrBusy)
			busy++
		}
	}
	require.Equal(t, int64(2), most.Load(), "never more than the slots at once")
	require.Equal(t, 2, ok)
	require.Equal(t, 18, busy)
	require.Equal(t, int64(18), l.Refused())

	// Free slots: work runs at once; a nil limiter runs everything.
	require.NoError(t, l.Do(context.Background(), func() error { return nil }))
	var nilLimiter *worklimit.Limiter
	require.NoError(t, nilLimiter.Do(context.Background(), func() error { return nil }))
}
