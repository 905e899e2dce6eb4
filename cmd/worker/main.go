// Command worker runs Photo3D's background work: River workers (photo → 3D
// reconstruction, notifications, periodic clean-ups) and the async
// projections tailing the event log. Any number of worker processes may run
// against one Postgres; a GPU pool is simply workers started with
// `-queues reconstruct -reconstructor remote`.
//
// Subcommands:
//
//	worker [flags]                 run workers and projections (default)
//	worker migrate                 apply database migrations (ours, then River's)
//	worker replay NAME             rebuild one async read model from position 0
//	worker export [-after X:P]     the event log as NDJSON for analysts (resumable)
//	worker events schema           JSON Schema of every event type (events/schema.json)
//	worker convert IMAGE [MORE…] OUT.glb  run the photo(s) → 3D pipeline offline (-azimuths 0,90,180,270)
//	worker invite create EMAIL     make a single-use signup invite (SIGNUP_MODE=invite)
//	worker samples [-out DIR]      regenerate the procedural demo models
//	worker migrate-pii             move personal fields of old user events to user_pii (safe to re-run)
//	worker erase-shopper EMAIL     delete a shopper's leads at every merchant
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := dispatch(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// dispatch picks the subcommand; each returns a process exit code.
func dispatch(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	sub, rest := "run", args
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		sub, rest = args[0], args[1:]
	}
	var err error
	switch sub {
	case "run":
		err = run(ctx, rest, getenv, stdout, stderr)
	case "migrate":
		err = migrateCmd(ctx, rest, getenv, stdout, stderr)
	case "replay":
		err = replayCmd(ctx, rest, getenv, stdout, stderr)
	case "export":
		err = exportCmd(ctx, rest, getenv, stdout, stderr)
	case "events":
		err = eventsCmd(rest, stdout)
	case "convert":
		return runConvert(ctx, rest, stdout, stderr)
	case "samples":
		return samplesCmd(ctx, rest, stdout, stderr)
	case "invite":
		err = inviteCmd(ctx, rest, getenv, stdout, stderr)
	case "migrate-pii":
		err = migratePIICmd(ctx, rest, getenv, stdout, stderr)
	case "erase-shopper":
		err = eraseShopperCmd(ctx, rest, getenv, stdout, stderr)
	default:
		fmt.Fprintf(stderr, "worker: unknown command %q (run, migrate, replay, export, events, convert, invite, samples, migrate-pii, erase-shopper)\n", sub)
		return 2
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "worker:", err)
		return 1
	}
	return 0
}
