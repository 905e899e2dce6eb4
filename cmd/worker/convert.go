package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/photo3d/photo3d/internal/imagecheck"
	"github.com/photo3d/photo3d/internal/job"
	"github.com/photo3d/photo3d/internal/reconstruct"
	"github.com/photo3d/photo3d/internal/reconstruct/spinvideo"
)

// convertStats is the one JSON line `worker convert` prints, small enough to compare
// across runs and machines (benchmarks, support tickets, CI smoke tests).
type convertStats struct {
	Ms        convertMillis `json:"ms"`
	Triangles int           `json:"triangles"`
	Parts     int           `json:"parts"`
	Bytes     int           `json:"bytes"`
	Shape     string        `json:"shape"`
	// Fidelity is the model's fidelity score (0–100, reconstruct/fidelity.go).
	Fidelity *int `json:"fidelity"`
	// Views is how many photos the model was built from.
	Views int `json:"views"`
	// Spin is the turntable fit of a spin set (-rings, -video); absent otherwise.
	Spin *reconstruct.SpinReport `json:"spin,omitempty"`
	// Videos is what was read from each turntable video (-video), lowest first.
	Videos []spinvideo.Report `json:"videos,omitempty"`
	// Warnings are the builder's sentences about the model (the product runs
	// off an edge of a photo), also printed to stderr; absent when all is well.
	Warnings []string `json:"warnings,omitempty"`
}

// videoList is the repeatable -video flag.
type videoList []string

func (v *videoList) String() string { return strings.Join(*v, ",") }
func (v *videoList) Set(s string) error {
	*v = append(*v, s)
	return nil
}

type convertMillis struct {
	Analyze     int64 `json:"analyze"`
	Deconstruct int64 `json:"deconstruct"`
	Assemble    int64 `json:"assemble"`
	Finalize    int64 `json:"finalize"`
	Total       int64 `json:"total"`
	// Video is the time spent reading turntable videos into photos (-video),
	// before the build that Total measures.
	Video int64 `json:"video,omitempty"`
}

// genericFailure is the spec's message for a failed build; details follow it.
const genericFailure = "Failed to process image. Please try again."

// runConvert implements `worker convert [-height m] [-thumbnail path] [-azimuths
// 0,90,180,270 | -rings 12@0,12@30] IMAGE [MORE…] OUT.glb`: the built-in pipeline
// offline, with the same validation and messages as the API, so a merchant's problem
// photo can be reproduced without a database or queue. Photos after the first are
// further angles of the same product (reconstruct/multiview.go); -azimuths states
// each photo's angle in degrees, else they are spaced evenly in the order given.
// -rings makes the photos a turntable spin set (reconstruct/turntable.go): N@E is N
// photos evenly spaced over one turn at a nominal elevation of E degrees, listed
// ring after ring; the output frame is the multi-view one. -video (once per camera
// height, lowest first, up to three) builds the spin set from turntable videos
// instead (reconstruct/video.go): -frames photos of one turn from each.
func runConvert(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("convert", flag.ContinueOnError)
	fs.SetOutput(stderr)
	height := fs.Float64("height", reconstruct.DefaultHeightMetres, "object height in metres")
	thumbnail := fs.String("thumbnail", "", "also write the PNG thumbnail cut-out to this path")
	azimuths := fs.String("azimuths", "", "comma-separated azimuth in degrees of each photo (first 0), e.g. 0,90,180,270")
	ringsFlag := fs.String("rings", "", "the photos are a turntable spin set: N@E per ring (N photos over one turn, camera E degrees above the product's centre), e.g. 12@0,12@30")
	var videos videoList
	fs.Var(&videos, "video", "a turntable video of one full turn (MP4, MOV or WebM), once per camera height, lowest first (at most 3); replaces the photos")
	frames := fs.Int("frames", spinvideo.DefaultFrames, "with -video: photos taken from each video's turn")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: worker convert [-height metres] [-thumbnail out.png] [-azimuths 0,90,180,270 | -rings 12@0,12@30] IMAGE [MORE…] OUT.glb")
		fmt.Fprintln(stderr, "       worker convert [-height metres] [-thumbnail out.png] [-frames 12] -video V1.mp4 [-video V2.mp4 …] OUT.glb")
		fs.PrintDefaults()
	}
	// Accept flags before or after the two paths.
	var paths []string
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return 0
			}
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		paths = append(paths, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if !(*height > 0) || *height > 100 {
		fmt.Fprintln(stderr, "convert: -height must be between 0 and 100 metres")
		return 2
	}
	if len(videos) > 0 {
		if len(paths) != 1 {
			fmt.Fprintln(stderr, "convert: with -video, name only the output: worker convert -video V1.mp4 [-video V2.mp4 …] OUT.glb")
			return 2
		}
		if *ringsFlag != "" || *azimuths != "" {
			fmt.Fprintln(stderr, "convert: -video cannot be used with -rings or -azimuths (each video is one ring, its photos evenly spaced)")
			return 2
		}
		return convertVideos(ctx, videos, *frames, paths[0], *height, *thumbnail, stdout, stderr)
	}
	maxPhotos := reconstruct.MaxViews
	if *ringsFlag != "" {
		maxPhotos = reconstruct.MaxSpinPhotos
	}
	if len(paths) < 2 || len(paths) > maxPhotos+1 {
		fs.Usage()
		return 2
	}
	ins, out := paths[:len(paths)-1], paths[len(paths)-1]
	var rings []reconstruct.RingSpec
	if *ringsFlag != "" {
		if *azimuths != "" {
			fmt.Fprintln(stderr, "convert: -rings and -azimuths cannot be used together (a spin set's azimuths are even)")
			return 2
		}
		var err error
		if rings, err = reconstruct.ParseRings(*ringsFlag); err != nil {
			fmt.Fprintf(stderr, "convert: -rings: %v\n", err)
			return 2
		}
	}
	az, err := parseAzimuths(*azimuths, len(ins))
	if err != nil {
		fmt.Fprintf(stderr, "convert: %v\n", err)
		return 2
	}
	views := make([]reconstruct.View, len(ins))
	for i, in := range ins {
		data, err := readUpload(in)
		if err != nil {
			fmt.Fprintln(stderr, userMessage(err))
			return 1
		}
		views[i] = reconstruct.View{Image: data, Azimuth: az[i]}
	}
	// The jobs' own options, so a merchant's photo fails here as it did there.
	var res *reconstruct.Result
	var spinReport *reconstruct.SpinReport
	if rings != nil {
		images := make([][]byte, len(views))
		for i, v := range views {
			images[i] = v.Image
		}
		spin, err := reconstruct.NewSpinSet(rings, images)
		if err == nil {
			var rep reconstruct.SpinReport
			res, rep, err = reconstruct.NewBuiltin().(reconstruct.SpinReconstructor).ReconstructSpin(ctx, spin, job.WorkerOptions(*height), nil)
			spinReport = &rep
		}
		if err != nil {
			fmt.Fprintln(stderr, userMessage(err))
			return 1
		}
	} else if len(views) == 1 {
		res, err = reconstruct.NewBuiltin().Reconstruct(ctx, views[0].Image, job.WorkerOptions(*height), nil)
	} else {
		res, err = reconstruct.NewBuiltin().(reconstruct.MultiViewReconstructor).ReconstructViews(ctx, views, job.WorkerOptions(*height), nil)
	}
	if err != nil {
		fmt.Fprintln(stderr, userMessage(err))
		return 1
	}
	return writeConvert(res, spinReport, nil, out, *thumbnail, stdout, stderr)
}

// convertVideos builds the model from turntable videos, one ring each.
func convertVideos(ctx context.Context, videos []string, frames int, out string, height float64, thumbnail string, stdout, stderr io.Writer) int {
	start := time.Now()
	spin, reports, err := reconstruct.SpinSetFromVideos(ctx, videos, frames)
	if err != nil {
		fmt.Fprintln(stderr, userMessage(err))
		return 1
	}
	read := time.Since(start).Milliseconds()
	res, rep, err := reconstruct.NewBuiltin().(reconstruct.SpinReconstructor).ReconstructSpin(ctx, spin, job.WorkerOptions(height), nil)
	if err != nil {
		fmt.Fprintln(stderr, userMessage(err))
		return 1
	}
	return writeConvert(res, &rep, &videoRead{reports, read}, out, thumbnail, stdout, stderr)
}

// videoRead is what reading the videos gave besides the photos.
type videoRead struct {
	reports []spinvideo.Report
	millis  int64
}

// writeConvert writes the model (and thumbnail) and prints the stats line.
func writeConvert(res *reconstruct.Result, spinReport *reconstruct.SpinReport, videos *videoRead, out, thumbnail string, stdout, stderr io.Writer) int {
	if err := os.WriteFile(out, res.GLB, 0o644); err != nil {
		fmt.Fprintf(stderr, "convert: write model: %v\n", err)
		return 1
	}
	if thumbnail != "" {
		if err := os.WriteFile(thumbnail, res.Thumbnail, 0o644); err != nil {
			fmt.Fprintf(stderr, "convert: write thumbnail: %v\n", err)
			return 1
		}
	}
	ms := res.Stats.StepMillis
	st := convertStats{
		Ms: convertMillis{
			Analyze: ms[reconstruct.StageAnalyze], Deconstruct: ms[reconstruct.StageDeconstruct],
			Assemble: ms[reconstruct.StageAssemble], Finalize: ms[reconstruct.StageFinalize],
			Total: res.Stats.TotalMillis,
		},
		Triangles: res.Stats.Triangles, Parts: res.Stats.Parts, Bytes: res.Stats.Bytes, Shape: res.Stats.ShapeKind,
		Fidelity: res.Stats.Fidelity, Views: max(1, res.Stats.Views), Spin: spinReport, Warnings: res.Warnings,
	}
	if videos != nil {
		st.Videos, st.Ms.Video = videos.reports, videos.millis
	}
	line, err := json.Marshal(st)
	if err != nil {
		fmt.Fprintf(stderr, "convert: encode stats: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, string(line))
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "convert: warning: %s\n", w)
	}
	if f := res.Stats.Fidelity; f != nil && *f < reconstruct.FidelityWarnBelow {
		advice := reconstruct.LowFidelityAdvice
		if spinReport != nil {
			advice = reconstruct.LowSpinFidelityAdvice
		}
		fmt.Fprintf(stderr, "convert: low fidelity %d (below %d): %s\n", *f, reconstruct.FidelityWarnBelow, advice)
	}
	return 0
}

// parseAzimuths reads -azimuths: empty (every azimuth unstated: NaN) or exactly one
// number of degrees per photo.
func parseAzimuths(s string, n int) ([]float64, error) {
	out := make([]float64, n)
	if s == "" {
		for i := range out {
			out[i] = math.NaN()
		}
		return out, nil
	}
	parts := strings.Split(s, ",")
	if len(parts) != n {
		return nil, fmt.Errorf("-azimuths has %d values for %d photos", len(parts), n)
	}
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("-azimuths: %q is not a number of degrees", p)
		}
		out[i] = v
	}
	return out, nil
}

// readUpload reads the photo like the upload endpoint does: never more than the
// limit plus one byte, so a huge file is rejected without loading it.
func readUpload(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open image: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, imagecheck.MaxUploadBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read image: %w", err)
	}
	if len(data) > imagecheck.MaxUploadBytes {
		return nil, imagecheck.ErrTooLarge
	}
	return data, nil
}

// userMessage maps an error to what the API would show: the spec's validation
// messages verbatim, otherwise the generic failure with the cause for operators.
func userMessage(err error) string {
	for _, e := range []error{imagecheck.ErrInvalidType, imagecheck.ErrTooLarge, imagecheck.ErrDimensions, imagecheck.ErrUnreadable, reconstruct.ErrSubjectNotSeparated, reconstruct.ErrViewCount} {
		if errors.Is(err, e) {
			return e.Error()
		}
	}
	if errors.Is(err, reconstruct.ErrSpinSet) || errors.Is(err, reconstruct.ErrSpinPhotos) || errors.Is(err, spinvideo.ErrVideo) {
		return err.Error() // the layout's, the photos' or the video's own reason: a retry would fail alike
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return "convert: interrupted"
	}
	return fmt.Sprintf("%s (%v)", genericFailure, err)
}
