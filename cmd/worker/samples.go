package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/photo3d/photo3d/internal/samples"
)

// samplesCmd implements `worker samples [-out web/public/demo] [-base /demo]`: it
// regenerates the demo viewer's bundled models, reference images and index.json. The
// output is deterministic, and a test in internal/samples fails when the committed
// files differ from it, so run this after changing a sample and commit the result.
func samplesCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("samples", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "web/public/demo", "folder to write <id>/model.glb, <id>/reference.png and index.json into")
	base := fs.String("base", samples.DefaultBaseURL, "URL path the web app serves the output folder at")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: worker samples [-out folder] [-base url-path]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return 2
	}
	if err := ctx.Err(); err != nil {
		fmt.Fprintln(stderr, "worker samples:", err)
		return 1
	}
	stats, err := samples.Write(*out, *base)
	if err != nil {
		fmt.Fprintln(stderr, "worker samples:", err)
		return 1
	}
	for _, s := range stats {
		fmt.Fprintf(stdout, "%-13s %6d triangles  %7d B glb  %7d B png\n", s.ID, s.Triangles, s.MeshBytes, s.ImageBytes)
	}
	fmt.Fprintf(stdout, "wrote %d samples to %s\n", len(stats), *out)
	return 0
}
