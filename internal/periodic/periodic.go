// Package periodic runs the background flushes that buffer in memory and
// write in batches (shopper events, metered public views).
package periodic

import (
	"context"
	"log/slog"
	"time"
)

// Run calls flush every d until ctx ends. A failed flush is logged as what
// and not returned: the caller keeps what it could not write, so the next
// tick tries again. A failure after ctx ended is the shutdown itself and is
// not logged; the caller's Close writes what is left.
func Run(ctx context.Context, d time.Duration, log *slog.Logger, what string, flush func(context.Context) error) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := flush(ctx); err != nil && ctx.Err() == nil {
				log.Error(what, "err", err)
			}
		}
	}
}
