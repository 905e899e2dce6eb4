// Package worklimit bounds the CPU- and memory-heavy work an api process
// still does inside requests (building a product's configurator GLB from its
// model), so that many such requests at once cannot pin every core or run
// the process out of memory while /healthz and every other request wait
// behind them (security review 3, item H1). The heavy derived files a
// shopper can ask for (AR GLBs, commerce GLBs, USDZ) are never built in a
// request: the worker builds them (internal/publish, channel_files).
package worklimit

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/photo3d/photo3d/internal/fault"
)

// ErrBusy is the answer while every slot is taken and the short wait for
// one ran out, or too many requests already wait: 503 with Retry-After.
var ErrBusy = fault.New(fault.Unavailable, "server_busy", "The server is busy right now. Please try again in a few seconds.")

// RetryAfter is what a busy answer tells the client to wait, in seconds.
const RetryAfter = "5"

// DefaultWait is how long a request waits for a slot before ErrBusy.
const DefaultWait = 2 * time.Second

// Limiter is a process-wide set of slots for heavy work. Requests beyond
// the slots wait a little, in a bounded queue (WaitersPerSlot per slot), and
// are then refused rather than queued without end. The zero value and a nil
// *Limiter run everything at once (tests, the worker).
type Limiter struct {
	slots      chan struct{}
	wait       time.Duration
	waiting    atomic.Int64
	maxWaiting int64
	refused    atomic.Int64
}

// WaitersPerSlot bounds the queue of requests waiting for a slot.
const WaitersPerSlot = 4

// New returns a limiter of n slots (at least 1); n is typically
// runtime.GOMAXPROCS(0), so heavy work can take every core but never more.
func New(n int) *Limiter {
	n = max(n, 1)
	return &Limiter{slots: make(chan struct{}, n), wait: DefaultWait, maxWaiting: int64(n * WaitersPerSlot)}
}

// WithWait sets how long a request waits for a slot (tests shorten it).
func (l *Limiter) WithWait(d time.Duration) *Limiter {
	l.wait = d
	return l
}

// Do runs f in a slot, or returns ErrBusy without running it.
func (l *Limiter) Do(ctx context.Context, f func() error) error {
	if l == nil || l.slots == nil {
		return f()
	}
	select {
	case l.slots <- struct{}{}:
	default:
		if l.waiting.Add(1) > l.maxWaiting {
			l.waiting.Add(-1)
			l.refused.Add(1)
			return ErrBusy
		}
		t := time.NewTimer(l.wait)
		select {
		case l.slots <- struct{}{}:
			t.Stop()
			l.waiting.Add(-1)
		case <-t.C:
			l.waiting.Add(-1)
			l.refused.Add(1)
			return ErrBusy
		case <-ctx.Done():
			t.Stop()
			l.waiting.Add(-1)
			return ctx.Err()
		}
	}
	defer func() { <-l.slots }()
	return f()
}

// Refused counts the requests answered ErrBusy so far (tests, metrics).
func (l *Limiter) Refused() int64 {
	if l == nil {
		return 0
	}
	return l.refused.Load()
}
