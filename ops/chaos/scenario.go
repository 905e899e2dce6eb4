package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/photo3d/photo3d/ops/internal/harness"
)

// chaosRun is what the scenarios share with the main run: the stack (api,
// workers being killed, the SMTP relay), the cluster, the options, and the
// moments of the Postgres outage.
type chaosRun struct {
	st       *harness.Stack
	pg       *harness.Postgres
	o        options
	bin, tmp string
	log      io.Writer

	// pgStopped is closed once Postgres has been stopped, pgStarted once it
	// has been started again. Neither closes when the run has no outage
	// (-pg-restart-at 0 or past -chaos): a scenario waiting on them must
	// also watch its context.
	pgStopped, pgStarted chan struct{}

	// cleanups run when the run ends (extra processes a scenario started).
	cleanups []func()
}

// onStop registers f to run when the chaos run ends, last registered first.
func (c *chaosRun) onStop(f func()) { c.cleanups = append(c.cleanups, f) }

func (c *chaosRun) stop() {
	for i := len(c.cleanups) - 1; i >= 0; i-- {
		c.cleanups[i]()
	}
	c.cleanups = nil
}

// scenario is one more thing that happens while workers die and Postgres
// restarts, beside the reconstruction jobs every run makes.
type scenario interface {
	name() string
	// setup runs before the chaos window, with the workers running.
	setup(ctx context.Context, c *chaosRun) error
	// during runs in the chaos window; ctx ends with the window. It returns
	// once its requests are in (or ctx ended).
	during(ctx context.Context, c *chaosRun) error
	// check runs after the reconstruction jobs have settled, with the
	// workers still supervised: it waits (within ctx) for the scenario's own
	// work to finish, then returns a line for the report, or what went
	// wrong.
	check(ctx context.Context, c *chaosRun) (string, error)
}

// scenarios are the known ones, by name, in the order they run.
var scenarios = []struct {
	name, help string
	make       func() scenario
}{
	{"erasure", "merchants export their data and delete their accounts", func() scenario { return &erasureScenario{} }},
	{"billing", "Stripe webhooks (stripe-mock) delivered twice and out of order across the Postgres restart", func() scenario { return &billingScenario{} }},
	{"mail", "account mail queued while the SMTP relay is down", func() scenario { return &mailScenario{} }},
}

func scenarioHelp() string {
	var parts []string
	for _, s := range scenarios {
		parts = append(parts, s.name+" ("+s.help+")")
	}
	return strings.Join(parts, ", ")
}

// pickScenarios turns -scenarios into scenarios, in the table's order.
func pickScenarios(list string) ([]scenario, error) {
	var names []string
	for _, n := range strings.Split(list, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	var out []scenario
	for _, s := range scenarios {
		if i := slices.Index(names, s.name); i >= 0 {
			out = append(out, s.make())
			names = slices.Delete(names, i, i+1)
		}
	}
	if len(names) > 0 {
		return nil, fmt.Errorf("-scenarios: unknown %q (known: %s)", names, scenarioHelp())
	}
	return out, nil
}
