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
// tick tries again; the caller's Close writes what is left.
//
// A flush is never cancelled by ctx: one in flight when ctx ends finishes
// (within InFlightLimit), and Run returns after it. Cancelling a write whose
// database side has already committed (a COPY of shopper events that the
// server finished while the api was stopping) reports an error for rows that
// were written; the caller would keep them and write them again, and a
// loaded api stopping mid-flush stored a second of shopper views twice
// (the load test's metering check: 1,886 views for 1,411 beacons).
func Run(ctx context.Context, d time.Duration, log *slog.Logger, what string, flush func(context.Context) error) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), InFlightLimit)
			err := flush(fctx)
			cancel()
			if err != nil {
				log.Error(what, "err", err)
			}
		}
	}
}

// InFlightLimit bounds one flush: a database that stopped answering holds a
// flush, and a stopping process, no longer than this.
const InFlightLimit = 30 * time.Second
