package videocheck

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"
)

// The files in testdata were encoded with Debian's ffmpeg 7 from its test
// pattern (see the commit that added them): 320×240, 3 s at 10 fps unless the
// name says otherwise. ok.mp4 has its header (moov) after the frames, as a
// phone writes it; faststart.mp4 before them, as a web export does; live.webm
// is what a browser's MediaRecorder makes: no length, sizes unknown.

func read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestAcceptedVideosReachTheWriterWholeWithTheirHeader(t *testing.T) {
	cases := []struct {
		file     string
		format   Format
		ct       string
		w, h     int
		duration float64
	}{
		{"ok.mp4", FormatMP4, "video/mp4", 320, 240, 3},
		{"faststart.mp4", FormatMP4, "video/mp4", 320, 240, 3},
		{"ok.mov", FormatMOV, "video/quicktime", 320, 240, 3},
		{"ok.webm", FormatWebM, "video/webm", 320, 240, 3},
		{"live.webm", FormatWebM, "video/webm", 320, 240, 0},
		{"portrait.mp4", FormatMP4, "video/mp4", 240, 320, 3},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			data := read(t, c.file)
			var out bytes.Buffer
			info, err := CheckReader(bytes.NewReader(data), &out)
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if info.Format != c.format || info.ContentType != c.ct || info.Width != c.w || info.Height != c.h {
				t.Fatalf("info = %+v, want %s %s %d×%d", info, c.format, c.ct, c.w, c.h)
			}
			if d := info.DurationSec - c.duration; d < -0.05 || d > 0.05 {
				t.Fatalf("duration = %.3f s, want %.1f", info.DurationSec, c.duration)
			}
			if info.Bytes != int64(len(data)) || !bytes.Equal(out.Bytes(), data) {
				t.Fatalf("writer got %d of %d bytes (info.Bytes %d): the stored file must be the upload, whole", out.Len(), len(data), info.Bytes)
			}
		})
	}
}

func TestRefusalsSayWhatToChange(t *testing.T) {
	mp4 := read(t, "ok.mp4")
	heif := append(box("ftyp", []byte("mif1\x00\x00\x00\x00mif1heic")), box("meta", make([]byte, 40))...)
	cases := []struct {
		name string
		data []byte
		want error
	}{
		{"a JPEG photo", append([]byte{0xFF, 0xD8, 0xFF, 0xE0}, make([]byte, 200)...), ErrInvalidType},
		{"a HEIC photo (ISO BMFF with no movie)", heif, ErrInvalidType},
		{"a Matroska file that is not WebM", append(append([]byte{}, magicEBML...), []byte("\x9f\x42\x82\x88matroska")...), ErrInvalidType},
		{"160×120", read(t, "small.mp4"), ErrDimensions},
		{"1 second", read(t, "short.mp4"), ErrDuration},
		{"62 seconds", read(t, "long.mp4"), ErrDuration},
		{"an MP4 cut short in its frames", mp4[:len(mp4)/2], ErrUnreadable},
		{"an MP4 cut short in its header", mp4[:len(mp4)-10], ErrUnreadable},
		{"an MP4 with a box of impossible size", append(box("ftyp", []byte("isom\x00\x00\x02\x00isom")), 0, 0, 0, 4, 'm', 'd', 'a', 't'), ErrUnreadable},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := CheckReader(bytes.NewReader(c.data), io.Discard)
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			if err.Error() != c.want.Error() {
				t.Fatalf("the merchant would read %q, not the sentence %q", err.Error(), c.want.Error())
			}
		})
	}
}

// A video over MaxBytes is refused as too large however its header looks,
// after reading at most one byte more than the limit.
func TestOverTheSizeLimitIsTooLarge(t *testing.T) {
	mp4 := read(t, "faststart.mp4") // header first, then frames
	big := io.MultiReader(bytes.NewReader(mp4), zeros{})
	var n countingWriter
	_, err := CheckReader(big, &n)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	if n > MaxBytes+1 {
		t.Fatalf("read %d bytes, more than the limit + 1", n)
	}
}

// An upload that stops arriving (a dropped connection) is the reader's
// failure, not an unreadable video: the merchant is asked to send it again,
// not to export it again.
func TestAReadFailureIsNotABadVideo(t *testing.T) {
	mp4 := read(t, "ok.mp4")
	dropped := errors.New("connection reset by peer")
	_, err := CheckReader(io.MultiReader(bytes.NewReader(mp4[:len(mp4)/2]), iotest.ErrReader(dropped)), io.Discard)
	var re *ReadError
	require.ErrorAs(t, err, &re)
	require.ErrorIs(t, err, dropped)
	require.NotErrorIs(t, err, ErrUnreadable)
}

func TestSniffTellsVideosFromPhotos(t *testing.T) {
	for name, want := range map[string]Format{"ok.mp4": FormatMP4, "ok.mov": FormatMOV, "ok.webm": FormatWebM} {
		if f, ok := Sniff(read(t, name)[:SniffLen]); !ok || f != want {
			t.Errorf("%s sniffed as %q %v", name, f, ok)
		}
	}
	png := []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n', 0, 0, 0, 13}
	if _, ok := Sniff(png); ok {
		t.Error("a PNG sniffed as a video")
	}
}

func box(typ string, payload []byte) []byte {
	b := make([]byte, 8, 8+len(payload))
	binary.BigEndian.PutUint32(b, uint32(8+len(payload)))
	copy(b[4:], typ)
	return append(b, payload...)
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

type countingWriter int64

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}

// BenchmarkCheckReader streams a 100 MB video (a real header, then frames)
// through the check, as an upload does on its way to the store: the bytes
// per second and, per upload, the memory held (the header box and a 64 KB
// buffer, however large the video).
func BenchmarkCheckReader(b *testing.B) {
	head, err := os.ReadFile(filepath.Join("testdata", "faststart.mp4"))
	if err != nil {
		b.Fatal(err)
	}
	const size = 100 << 20
	mdat := box("mdat", nil)
	binary.BigEndian.PutUint32(mdat, uint32(size))
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		r := io.MultiReader(bytes.NewReader(head), bytes.NewReader(mdat), io.LimitReader(zeros{}, size-8))
		if _, err := CheckReader(r, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
