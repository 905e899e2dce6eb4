package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/eventlog"
)

// exportCmd is `worker export`: the event log for analysts as NDJSON or
// Parquet, in commit-safe order, resumable with the cursor it prints.
// Settings (the database) come from the environment, as for every subcommand.
func exportCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("worker export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	after := fs.String("after", "", "resume after this cursor (XID:POSITION, printed by the previous export)")
	streamTypes := fs.String("stream-type", "", "only these stream types, comma-separated (job,subscription,…)")
	types := fs.String("type", "", "only these event types, comma-separated (job.completed.v1,…)")
	out := fs.String("out", "-", "file to write (- for stdout); written whole or not at all")
	format := fs.String("format", "ndjson", "ndjson (one JSON event per line) or parquet (columns of the same names)")
	limit := fs.Int64("limit", 0, "stop after this many events (0: all)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the export to this file (ops/eventlog-bench.sh PROFILE=1)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	outFormat, err := eventlog.ParseFormat(*format)
	if err != nil {
		return err
	}
	cur, err := eventlog.ParseCursor(*after)
	if err != nil {
		return err
	}
	d, err := open(ctx, "worker export", nil, getenv, io.Discard, stderr)
	if err != nil {
		return err
	}
	defer d.pool.Close()

	if *cpuprofile != "" {
		pf, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	w, finish := stdout, func(ok bool) error { return nil }
	if *out != "-" {
		f, err := os.Create(*out + ".partial")
		if err != nil {
			return err
		}
		w, finish = f, func(ok bool) error {
			if err := f.Close(); err != nil || !ok {
				_ = os.Remove(f.Name())
				return err
			}
			return os.Rename(f.Name(), *out)
		}
	}
	start := time.Now()
	res, err := eventlog.Export(ctx, d.pool, w, eventlog.Options{After: cur, StreamTypes: splitFlag(*streamTypes),
		Types: splitFlag(*types), Limit: *limit, Format: outFormat})
	if ferr := finish(err == nil); err == nil {
		err = ferr
	}
	if err != nil {
		return errors.Join(err, fmt.Errorf("exported %d events before the error; resume with -after %s", res.Events, res.Next))
	}
	fmt.Fprintf(stderr, "exported %d events in %s; resume with -after %s\n", res.Events, time.Since(start).Round(time.Millisecond), res.Next)
	return nil
}

func splitFlag(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// eventsCmd is `worker events schema`: the JSON Schema of every registered
// event type's data (the same document as events/schema.json).
func eventsCmd(args []string, stdout io.Writer) error {
	if len(args) != 1 || args[0] != "schema" {
		return errors.New("usage: worker events schema")
	}
	b, err := events.Domain().Schema()
	if err != nil {
		return err
	}
	_, err = stdout.Write(b)
	return err
}
