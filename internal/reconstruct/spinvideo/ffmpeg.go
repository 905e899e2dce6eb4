package spinvideo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"io"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/photo3d/photo3d/internal/videocheck"
)

// ffmpeg and ffprobe run with fixed argument lists (never a shell), read only
// the one local file (-protocol_whitelist file, a file: URL, so a name cannot
// become a protocol or an option) through the demuxer its first bytes named
// (-f, so a playlist or concat script cannot open other files), and for at most
// MaxSeconds plus a second of it (-t), whatever its header claims.

// Time limits of the ffmpeg runs: far above what a 60-second 4K video takes on
// one core, so they only stop a decoder that hangs.
const (
	probeTimeout  = 30 * time.Second
	decodeTimeout = 5 * time.Minute
)

// analysisWidth is the width of the grey stream the turn and the sharpness are
// measured on: enough to tell a sharp frame from a blurred one.
const analysisWidth = 640

// maxRate caps the decoded frame rate: frames 1/30 s apart are as alike as
// frames 1/60 s apart are, at half the decoding.
const maxRate = 30.0

// videoInfo is what ffprobe says about the video stream, rotation applied.
type videoInfo struct {
	w, h     int
	fps      float64
	rateArg  string // the frame rate for ffmpeg's fps filter
	duration float64
}

// sniff names the demuxer for the file's first bytes, as the upload check
// reads them (videocheck.Sniff): ISO BMFF (MP4, MOV) or Matroska with the
// WebM doc type. Anything else is refused before ffmpeg sees it.
func sniff(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("spinvideo: %w", err)
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	switch format, _ := videocheck.Sniff(head[:n]); format {
	case videocheck.FormatMP4, videocheck.FormatMOV:
		return "mov", nil
	case videocheck.FormatWebM:
		return "matroska", nil
	}
	return "", refuse(ErrNotVideo, "")
}

// tail keeps the last bytes written to it: ffmpeg's last error lines.
type tail struct{ b []byte }

func (t *tail) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 2048 {
		t.b = t.b[len(t.b)-2048:]
	}
	return len(p), nil
}

func (t *tail) String() string { return strings.TrimSpace(string(t.b)) }

// inputArgs are the arguments that open the video, shared by every run.
func inputArgs(path, demuxer string) []string {
	return []string{"-protocol_whitelist", "file", "-f", demuxer, "-t", strconv.Itoa(MaxSeconds + 1), "-i", "file:" + path}
}

// NeedFFmpeg says what to install when ffmpeg or ffprobe is missing.
func NeedFFmpeg() error {
	for _, tool := range []string{"ffmpeg", "ffprobe"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("spinvideo: %s is not installed (Debian: apt-get install -y ffmpeg; or ops/lib.sh need_ffmpeg)", tool)
		}
	}
	return nil
}

// probe reads the container's description of its first video stream.
func probe(ctx context.Context, path, demuxer string) (videoInfo, error) {
	if err := NeedFFmpeg(); err != nil {
		return videoInfo{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	args := append([]string{"-v", "error", "-protocol_whitelist", "file", "-f", demuxer, "-select_streams", "v:0",
		"-show_streams", "-show_format", "-of", "json"}, "file:"+path)
	cmd := exec.CommandContext(ctx, "ffprobe", args...)
	var errb tail
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return videoInfo{}, ctx.Err()
	}
	if err != nil || len(out) > 1<<20 {
		return videoInfo{}, refuse(ErrNotVideo, "")
	}
	var p struct {
		Streams []struct {
			CodecType    string            `json:"codec_type"`
			Width        int               `json:"width"`
			Height       int               `json:"height"`
			AvgFrameRate string            `json:"avg_frame_rate"`
			RFrameRate   string            `json:"r_frame_rate"`
			Duration     string            `json:"duration"`
			Tags         map[string]string `json:"tags"`
			SideData     []struct {
				Rotation float64 `json:"rotation"`
			} `json:"side_data_list"`
		} `json:"streams"`
		Format struct {
			Duration string `json:"duration"`
		} `json:"format"`
	}
	if json.Unmarshal(out, &p) != nil || len(p.Streams) == 0 || p.Streams[0].CodecType != "video" || p.Streams[0].Width <= 0 || p.Streams[0].Height <= 0 {
		return videoInfo{}, refuse(ErrNotVideo, "")
	}
	s := p.Streams[0]
	info := videoInfo{w: s.Width, h: s.Height}
	rot := 0.0
	if r, err := strconv.ParseFloat(s.Tags["rotate"], 64); err == nil {
		rot = r
	}
	for _, sd := range s.SideData {
		if sd.Rotation != 0 {
			rot = sd.Rotation
		}
	}
	if int(math.Abs(math.Round(rot)))%180 == 90 {
		info.w, info.h = info.h, info.w // ffmpeg turns the frames upright
	}
	for _, d := range []string{s.Duration, p.Format.Duration} {
		if v, err := strconv.ParseFloat(d, 64); err == nil && v > 0 {
			info.duration = v
			break
		}
	}
	info.fps, info.rateArg = parseRate(s.AvgFrameRate)
	if !(info.fps > 0) {
		info.fps, info.rateArg = parseRate(s.RFrameRate)
	}
	if !(info.fps > 0) || info.duration == 0 {
		return videoInfo{}, refuse(ErrNotVideo, "")
	}
	if info.fps > maxRate {
		info.rateArg = strconv.Itoa(maxRate)
	}
	return info, nil
}

// parseRate reads an ffprobe frame rate such as 30000/1001.
func parseRate(s string) (float64, string) {
	num, den, ok := strings.Cut(s, "/")
	n, err1 := strconv.Atoi(num)
	d := 1
	var err2 error
	if ok {
		d, err2 = strconv.Atoi(den)
	}
	if err1 != nil || err2 != nil || n <= 0 || d <= 0 || n/d > 1000 {
		return 0, ""
	}
	return float64(n) / float64(d), strconv.Itoa(n) + "/" + strconv.Itoa(d)
}

// stream is the video as analysed: the grey working frames' sharpness and the
// small thumbnails the turn is found on.
type stream struct {
	rate    float64 // decoded frames per second (constant)
	rateArg string
	sharp   []float64 // per decoded frame
	step    int       // a thumbnail every step decoded frames
	tw, th  int
	thumbs  [][]float32
}

// thumbWidth is the thumbnails' width: about 1° of a turn per column for a
// product filling half the frame.
const thumbWidth = 160

// even rounds x to an even number of at least 2 (what the encoders want).
func even(x float64) int { return max(2, 2*int(math.Round(x/2))) }

// decodeAnalysis decodes the whole video once, grey at analysisWidth, at a
// constant frame rate, keeping each frame's sharpness and every step-th frame
// as a thumbnail.
func decodeAnalysis(ctx context.Context, path, demuxer string, info videoInfo) (*stream, error) {
	ww := min(analysisWidth, even(float64(info.w)))
	wh := even(float64(ww) * float64(info.h) / float64(info.w))
	rate, _ := parseRateArg(info.rateArg)
	st := &stream{rate: rate, rateArg: info.rateArg, step: max(1, int(math.Round(rate/12)))}
	f := max(1, ww/thumbWidth)
	st.tw, st.th = ww/f, wh/f
	ctx, cancel := context.WithTimeout(ctx, decodeTimeout)
	defer cancel()
	args := append([]string{"-nostdin", "-hide_banner", "-loglevel", "error"}, inputArgs(path, demuxer)...)
	args = append(args, "-map", "0:v:0", "-an", "-sn", "-dn",
		"-vf", fmt.Sprintf("fps=%s,scale=%d:%d:flags=area,format=gray", info.rateArg, ww, wh),
		"-f", "rawvideo", "-pix_fmt", "gray", "pipe:1")
	cmd, r, _, err := startRaw(ctx, args)
	if err != nil {
		return nil, err
	}
	frame := make([]byte, ww*wh)
	maxFrames := int((MaxSeconds+1)*rate) + 2
	for n := 0; ; n++ {
		if _, err := io.ReadFull(r, frame); err != nil {
			break
		}
		if n >= maxFrames {
			break
		}
		st.sharp = append(st.sharp, laplacianVariance(frame, ww, wh))
		if n%st.step == 0 {
			st.thumbs = append(st.thumbs, boxDown(frame, ww, f, st.tw, st.th))
		}
	}
	_, _ = io.Copy(io.Discard, r)
	err = cmd.Wait()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("spinvideo: decode: %w", ctx.Err())
	}
	if err != nil && len(st.sharp) == 0 {
		return nil, refuse(ErrNotVideo, "")
	}
	if len(st.sharp) == 0 {
		return nil, refuse(ErrNotVideo, "no frame could be decoded")
	}
	return st, nil
}

func parseRateArg(s string) (float64, bool) {
	if v, _ := parseRate(s); v > 0 {
		return v, true
	}
	return 0, false
}

// laplacianVariance is the variance of the 4-neighbour Laplacian: a sharp frame
// has strong second differences at its edges, a blurred one does not.
func laplacianVariance(g []byte, w, h int) float64 {
	var s, s2 float64
	n := 0
	for y := 1; y < h-1; y++ {
		row := y * w
		for x := 1; x < w-1; x++ {
			i := row + x
			l := float64(int(g[i-1]) + int(g[i+1]) + int(g[i-w]) + int(g[i+w]) - 4*int(g[i]))
			s += l
			s2 += l * l
			n++
		}
	}
	if n == 0 {
		return 0
	}
	m := s / float64(n)
	return s2/float64(n) - m*m
}

// boxDown averages f×f blocks of the w-wide grey frame into a tw×th thumbnail.
func boxDown(g []byte, w, f, tw, th int) []float32 {
	out := make([]float32, tw*th)
	inv := 1 / float32(f*f)
	for ty := range th {
		for tx := range tw {
			var s int
			for dy := range f {
				row := (ty*f + dy) * w
				for dx := range f {
					s += int(g[row+tx*f+dx])
				}
			}
			out[ty*tw+tx] = float32(s) * inv
		}
	}
	return out
}

// jpegQuality of the extracted frames: the phone's own JPEGs' quality, so a
// frame carries the detail a photo of the same moment would.
const jpegQuality = 92

// extractFrames decodes the chosen frames (indices into the constant-rate
// stream, increasing) at full size, long side at most MaxLongSide, as JPEG.
func extractFrames(ctx context.Context, path, demuxer string, info videoInfo, idx []int) ([][]byte, error) {
	w, h := info.w, info.h
	if long := max(w, h); long > MaxLongSide {
		k := float64(MaxLongSide) / float64(long)
		w, h = even(float64(w)*k), even(float64(h)*k)
	} else {
		w, h = even(float64(w)), even(float64(h))
	}
	terms := make([]string, len(idx))
	for i, n := range idx {
		terms[i] = fmt.Sprintf(`eq(n\,%d)`, n)
	}
	ctx, cancel := context.WithTimeout(ctx, decodeTimeout)
	defer cancel()
	args := append([]string{"-nostdin", "-hide_banner", "-loglevel", "error"}, inputArgs(path, demuxer)...)
	args = append(args, "-map", "0:v:0", "-an", "-sn", "-dn",
		"-vf", fmt.Sprintf("fps=%s,select='%s',scale=%d:%d:flags=lanczos,format=rgb24", info.rateArg, strings.Join(terms, "+"), w, h),
		"-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:1")
	cmd, r, errb, err := startRaw(ctx, args)
	if err != nil {
		return nil, err
	}
	raw := make([]byte, w*h*3)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	var jpegs [][]byte
	for len(jpegs) < len(idx) {
		if _, err := io.ReadFull(r, raw); err != nil {
			break
		}
		for i, j := 0, 0; i < len(raw); i, j = i+3, j+4 {
			img.Pix[j], img.Pix[j+1], img.Pix[j+2], img.Pix[j+3] = raw[i], raw[i+1], raw[i+2], 255
		}
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: jpegQuality}); err != nil {
			return nil, err
		}
		jpegs = append(jpegs, buf.Bytes())
	}
	_, _ = io.Copy(io.Discard, r)
	werr := cmd.Wait()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("spinvideo: extract: %w", ctx.Err())
	}
	if len(jpegs) != len(idx) {
		return nil, fmt.Errorf("spinvideo: ffmpeg gave %d of %d frames (%v: %s)", len(jpegs), len(idx), werr, errb.String())
	}
	return jpegs, nil
}

// startRaw starts ffmpeg with args writing raw frames to its stdout, and returns
// a buffered reader of them and the tail of its stderr for the error message.
func startRaw(ctx context.Context, args []string) (*exec.Cmd, *bufio.Reader, *tail, error) {
	cmd := exec.CommandContext(ctx, "ffmpeg", args...)
	errb := &tail{}
	cmd.Stderr = errb
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, nil, fmt.Errorf("spinvideo: start ffmpeg: %w", err)
	}
	return cmd, bufio.NewReaderSize(out, 1<<20), errb, nil
}
