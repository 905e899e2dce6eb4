package multiview

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync/atomic"

	"github.com/photo3d/photo3d/internal/reconstruct/geom"
)

// A spin set's two halves (agreement.go) are searched and carved on a
// goroutine of their own, beside the whole set's search: on a solid product
// they are 40 % of a build's work (a box of 24 photos of 12 MP: 33 of 83 CPU-s),
// and issue 48's target, 24 × 12 MP photos → GLB in 60 s on two cores, was out
// of reach with them after the search on one core (84 s). They start as soon as
// the whole set's search knows which way the photos go round (SearchTurntable's
// turned), the one thing they take from it. They share nothing with it that
// either writes: each half searches its own copies of the views (SplitSpin),
// and the photos, masks and coverage grids both read are not written after
// NewView. So a model and its score are the same, bit for bit, whichever runs
// first.
//
// The shape packages start goroutines here and in reconstruct/prepare.go (a
// set's photos decoded and segmented two at a time) only. ops/test.sh builds
// them without the race detector (they are CPU-bound and otherwise
// single-threaded), and so runs both files' tests with it
// (TestSpinHalvesBesideTheSearchBuildTheSameModel here).

// SpinHalvesBeside runs the halves beside the whole set's search; false runs
// them on the caller's goroutine when Agreement asks, after the search, as a
// test compares.
var SpinHalvesBeside = true

// halvesRunning counts the halves' works under way (HalvesRunning).
var halvesRunning atomic.Int32

// HalvesRunning is how many builds' halves are being searched or carved: 0
// once every build has returned, which a test of a cancelled build checks (a
// goroutine dump can still show a work that has finished on its way out).
func HalvesRunning() int { return int(halvesRunning.Load()) }

// spinHalvesCarved is the halves' hulls and how their work is going.
type spinHalvesCarved struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when meshes and errs are written
	run    func()        // the work, not yet begun (SpinHalvesBeside false)
	meshes [2]*geom.Mesh // each half's hull
	errs   [2]error      // why a half found no hull
	panic  any           // a panic of the work, raised again in Agreement
}

// Start tells the halves which way the photos go round (see setTurn) and
// begins searching and carving them beside the caller. Call Stop when the
// build ends, whatever its outcome. A second Start does nothing.
func (h *SpinHalves) Start(ctx context.Context, t SpinTurn) {
	c := &h.carved
	if c.done != nil {
		return
	}
	h.setTurn(t)
	c.done = make(chan struct{})
	ctx, c.cancel = context.WithCancel(ctx)
	work := func() {
		defer close(c.done)
		halvesRunning.Add(1)
		defer halvesRunning.Add(-1) // before done is closed: Stop's return sees it
		defer func() {
			if r := recover(); r != nil {
				c.panic = fmt.Sprintf("spin set halves: %v\n%s", r, debug.Stack())
			}
		}()
		for half, rings := range h.sets {
			c.meshes[half], c.errs[half] = h.carve(ctx, rings)
		}
	}
	if SpinHalvesBeside {
		go work()
	} else {
		c.run = work
	}
}

// Stop cancels the halves' work if it is under way and waits for it to end,
// so a build that fails or is cancelled leaves nothing running.
func (h *SpinHalves) Stop() {
	c := &h.carved
	if c.done == nil {
		return
	}
	c.cancel()
	if c.run == nil { // begun: wait for it
		<-c.done
	}
}

// wait returns the halves' hulls once their work is done (Start not called:
// started here, each half finding its own turn), or ctx's error.
func (h *SpinHalves) wait(ctx context.Context) ([2]*geom.Mesh, [2]error, error) {
	c := &h.carved
	if c.done == nil {
		h.Start(ctx, TurnUnknown)
	}
	if run := c.run; run != nil {
		c.run = nil
		run()
	}
	select {
	case <-c.done:
	case <-ctx.Done():
		return [2]*geom.Mesh{}, [2]error{}, ctx.Err() // the work may still be writing
	}
	if c.panic != nil {
		panic(c.panic)
	}
	return c.meshes, c.errs, ctx.Err()
}
