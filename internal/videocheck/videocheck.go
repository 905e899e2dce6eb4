// Package videocheck validates an uploaded turntable video (issue 48: one
// video per camera height becomes one ring of a spin set) the way
// internal/imagecheck validates a photo: once, in one place, before anything
// else sees the bytes, and without decoding a single frame.
//
// The format comes from the magic bytes (ISO BMFF: MP4 and QuickTime MOV; the
// WebM profile of Matroska), never from the name or the declared type. The
// picture size and the length come from the container's own header (the
// video track's tkhd and the movie's mvhd boxes; WebM's Tracks and Info
// elements), read while the bytes stream through to the blob store, so a
// 150 MB upload is never held in memory: only the header box (moov, at most
// MaxHeaderBytes) is. The worker decodes the video later with ffmpeg, under
// its own limits (internal/reconstruct/spinvideo); what this package refuses
// never reaches it.
package videocheck

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// Limits of an uploaded video.
const (
	// MaxBytes is the largest video accepted: a 60-second 1080p phone video
	// (H.264 at about 17 Mbit/s is 130 MB) with room to spare; a turn on a
	// turntable takes 10 to 20 seconds.
	MaxBytes = 150 << 20
	// MaxSide bounds either side of the picture: 4K (DCI 4096).
	MaxSide = 4096
	// MinShortSide: below it the silhouettes are too coarse to carve
	// (spinvideo.MinShortSide).
	MinShortSide = 240
	// MaxSeconds is the longest video; a second over is tolerated for the
	// container's rounding (spinvideo.MaxSeconds reads no further).
	MaxSeconds = 60
	// MinSeconds is the shortest: no turntable turns in less.
	MinSeconds = 2
	// MaxHeaderBytes bounds the header box read into memory (an MP4's moov:
	// about 1 KB per second of 30 fps video, so 60 seconds need under 100 KB).
	MaxHeaderBytes = 16 << 20
	// webmHeadBytes is how much of a WebM file is searched for its Tracks and
	// Info elements, which come before the first frame.
	webmHeadBytes = 1 << 20
)

// The refusals, each the sentence a merchant reads (errors.Is matches them
// through the technical cause kept for the logs).
var (
	ErrInvalidType = errors.New("Invalid file type. Please select an MP4, MOV or WebM video.")                                            //nolint:staticcheck // user-facing message
	ErrTooLarge    = errors.New("Videos must be under 150 MB: film one turn of 10 to 20 seconds at 1080p.")                               //nolint:staticcheck // user-facing message
	ErrDimensions  = errors.New("The video's picture must be between 240 and 4,096 px per side: film at 720p, 1080p or 4K.")              //nolint:staticcheck // user-facing message
	ErrDuration    = errors.New("The video must be 2 to 60 seconds long: film one full turn of the turntable, 10 to 20 seconds is best.") //nolint:staticcheck // user-facing message
	ErrUnreadable  = errors.New("Unable to read this video. Please export it again as an MP4 (H.264) and upload it.")                     //nolint:staticcheck // user-facing message
)

// ReadError is a failure to read the upload itself (a dropped connection, a
// timeout, a store that stopped taking the bytes), not a fault of the video:
// CheckReader returns it, wrapping the reader's error, instead of calling
// the video unreadable.
type ReadError struct{ Err error }

func (e *ReadError) Error() string { return "read the upload: " + e.Err.Error() }
func (e *ReadError) Unwrap() error { return e.Err }

type checkError struct{ user, cause error }

func (e *checkError) Error() string   { return e.user.Error() }
func (e *checkError) Unwrap() []error { return []error{e.user, e.cause} }

func refuse(user error, format string, args ...any) error {
	return &checkError{user: user, cause: fmt.Errorf(format, args...)}
}

// Format is an accepted container, detected from magic bytes.
type Format string

// The accepted containers.
const (
	FormatMP4  Format = "mp4"
	FormatMOV  Format = "mov"
	FormatWebM Format = "webm"
)

// ContentType is the MIME type the video is stored and served with.
func (f Format) ContentType() string {
	switch f {
	case FormatMP4:
		return "video/mp4"
	case FormatMOV:
		return "video/quicktime"
	case FormatWebM:
		return "video/webm"
	}
	return "application/octet-stream"
}

// Extension is the storage key's file extension, with its dot.
func (f Format) Extension() string {
	switch f {
	case FormatMP4, FormatMOV, FormatWebM:
		return "." + string(f)
	}
	return ""
}

// SniffLen is how many leading bytes Sniff needs.
const SniffLen = 64

var magicEBML = []byte{0x1a, 0x45, 0xdf, 0xa3}

// Sniff names the container of a file from its first bytes (SniffLen of
// them): an ISO BMFF file starts with a box whose type is ftyp (or, in old
// QuickTime files, moov, mdat, wide, free or skip); a WebM file with the EBML
// magic and the doc type "webm". ok is false for anything else, photos
// included (a HEIC photo is ISO BMFF too, but its ftyp brand says heic or
// mif1 and it has no movie: Check refuses it).
func Sniff(head []byte) (Format, bool) {
	if len(head) >= 12 {
		switch string(head[4:8]) {
		case "ftyp":
			if string(head[8:12]) == "qt  " {
				return FormatMOV, true
			}
			return FormatMP4, true
		case "moov", "mdat", "wide", "free", "skip":
			return FormatMOV, true
		}
	}
	if bytes.HasPrefix(head, magicEBML) && bytes.Contains(head, []byte("webm")) {
		return FormatWebM, true
	}
	return "", false
}

// Info describes a video that passed the checks; no frame was decoded.
type Info struct {
	Format      Format
	ContentType string
	Width       int
	Height      int
	// DurationSec is the container's length; 0 when a WebM recording (a
	// browser's MediaRecorder) does not say it, which the worker then measures.
	DurationSec float64
	Bytes       int64
}

// CheckReader reads the whole video from r (at most MaxBytes), writing every
// byte it reads to w as it goes (the blob store's writer: the caller aborts
// that write when an error comes back), and checks it: magic bytes, the
// picture size and length the header declares, and that the file is whole
// (an ISO BMFF file whose last box is cut short is refused, not stored).
func CheckReader(r io.Reader, w io.Writer) (Info, error) {
	counted := &countingReader{r: io.TeeReader(io.LimitReader(r, MaxBytes+1), w)}
	br := bufio.NewReaderSize(counted, 64<<10)
	head, _ := br.Peek(SniffLen)
	format, ok := Sniff(head)
	if !ok {
		return Info{}, ErrInvalidType
	}
	var info Info
	var err error
	if format == FormatWebM {
		info, err = checkWebM(br)
	} else {
		info, err = checkBMFF(br)
	}
	if counted.n > MaxBytes {
		return Info{}, ErrTooLarge
	}
	if counted.err != nil {
		return Info{}, &ReadError{Err: counted.err}
	}
	if err != nil {
		return Info{}, err
	}
	info.Format, info.ContentType, info.Bytes = format, format.ContentType(), counted.n
	if err := checkLimits(info); err != nil {
		return Info{}, err
	}
	return info, nil
}

func checkLimits(info Info) error {
	short, long := min(info.Width, info.Height), max(info.Width, info.Height)
	if short < MinShortSide || long > MaxSide {
		return refuse(ErrDimensions, "picture %d×%d", info.Width, info.Height)
	}
	if info.DurationSec != 0 && (info.DurationSec < MinSeconds || info.DurationSec > MaxSeconds+1) {
		return refuse(ErrDuration, "duration %.2f s", info.DurationSec)
	}
	return nil
}

type countingReader struct {
	r   io.Reader
	n   int64
	err error // the first failure other than the end
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if err != nil && err != io.EOF && c.err == nil {
		c.err = err
	}
	return n, err
}

// drain reads r to its end (so every byte reaches the writer and is counted).
func drain(r io.Reader) error {
	_, err := io.Copy(io.Discard, r)
	return err
}

// ---- ISO BMFF (MP4, MOV) ----

// checkBMFF walks the top-level boxes: the moov box (the header) is read and
// parsed, every other box (mdat: the frames) only streamed through.
func checkBMFF(r *bufio.Reader) (Info, error) {
	var info Info
	var sawMoov bool
	for {
		var hdr [8]byte
		n, err := io.ReadFull(r, hdr[:])
		if err == io.EOF {
			break
		}
		if err != nil {
			return Info{}, refuse(ErrUnreadable, "box header cut short after %d bytes", n)
		}
		size := int64(binary.BigEndian.Uint32(hdr[:4]))
		typ := string(hdr[4:8])
		headerLen := int64(8)
		switch size {
		case 1:
			var ext [8]byte
			if _, err := io.ReadFull(r, ext[:]); err != nil {
				return Info{}, refuse(ErrUnreadable, "large box size cut short")
			}
			size = int64(binary.BigEndian.Uint64(ext[:]))
			headerLen = 16
		case 0: // the box runs to the end of the file
			if typ == "moov" {
				return Info{}, refuse(ErrUnreadable, "moov box without a size")
			}
			if err := drain(r); err != nil {
				return Info{}, err
			}
			size = -1
		}
		if size != -1 && (size < headerLen || size > MaxBytes) {
			return Info{}, refuse(ErrUnreadable, "box %q of impossible size %d", typ, size)
		}
		if size == -1 {
			break
		}
		payload := size - headerLen
		if typ == "moov" {
			if sawMoov {
				return Info{}, refuse(ErrUnreadable, "two moov boxes")
			}
			if payload > MaxHeaderBytes {
				return Info{}, refuse(ErrUnreadable, "moov box of %d bytes", payload)
			}
			body := make([]byte, payload)
			if _, err := io.ReadFull(r, body); err != nil {
				return Info{}, refuse(ErrUnreadable, "moov box cut short")
			}
			if err := parseMoov(body, &info); err != nil {
				return Info{}, err
			}
			sawMoov = true
			continue
		}
		copied, err := io.CopyN(io.Discard, r, payload)
		if err != nil {
			return Info{}, refuse(ErrUnreadable, "box %q cut short: %d of %d bytes", typ, copied, payload)
		}
	}
	if !sawMoov {
		return Info{}, refuse(ErrInvalidType, "no moov box: not a movie")
	}
	return info, nil
}

// boxes iterates over the child boxes of a box body held in memory.
func boxes(body []byte, visit func(typ string, payload []byte) error) error {
	for len(body) > 0 {
		if len(body) < 8 {
			return refuse(ErrUnreadable, "trailing %d bytes in a box", len(body))
		}
		size := uint64(binary.BigEndian.Uint32(body[:4]))
		typ := string(body[4:8])
		hl := uint64(8)
		if size == 1 {
			if len(body) < 16 {
				return refuse(ErrUnreadable, "large box cut short")
			}
			size, hl = binary.BigEndian.Uint64(body[8:16]), 16
		} else if size == 0 {
			size = uint64(len(body))
		}
		if size < hl || size > uint64(len(body)) {
			return refuse(ErrUnreadable, "box %q of size %d in %d bytes", typ, size, len(body))
		}
		if err := visit(typ, body[hl:size]); err != nil {
			return err
		}
		body = body[size:]
	}
	return nil
}

// parseMoov reads the movie's length (mvhd) and the first video track's
// picture size (its tkhd; the handler box hdlr says "vide").
func parseMoov(moov []byte, info *Info) error {
	found := false
	err := boxes(moov, func(typ string, p []byte) error {
		switch typ {
		case "mvhd":
			d, err := mvhdDuration(p)
			if err != nil {
				return err
			}
			info.DurationSec = d
		case "trak":
			if found {
				return nil
			}
			w, h, video, err := parseTrak(p)
			if err != nil {
				return err
			}
			if video {
				info.Width, info.Height, found = w, h, true
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if !found {
		return refuse(ErrInvalidType, "no video track")
	}
	if info.DurationSec == 0 {
		return refuse(ErrUnreadable, "the movie header gives no length")
	}
	return nil
}

func mvhdDuration(p []byte) (float64, error) {
	if len(p) < 1 {
		return 0, refuse(ErrUnreadable, "empty mvhd")
	}
	var timescale, duration uint64
	switch p[0] {
	case 0:
		if len(p) < 20 {
			return 0, refuse(ErrUnreadable, "mvhd cut short")
		}
		timescale, duration = uint64(binary.BigEndian.Uint32(p[12:16])), uint64(binary.BigEndian.Uint32(p[16:20]))
	case 1:
		if len(p) < 32 {
			return 0, refuse(ErrUnreadable, "mvhd cut short")
		}
		timescale, duration = uint64(binary.BigEndian.Uint32(p[20:24])), binary.BigEndian.Uint64(p[24:32])
	default:
		return 0, refuse(ErrUnreadable, "mvhd version %d", p[0])
	}
	if timescale == 0 {
		return 0, refuse(ErrUnreadable, "mvhd timescale 0")
	}
	return float64(duration) / float64(timescale), nil
}

// parseTrak returns a track's picture size from its tkhd (16.16 fixed point
// at the box's end) and whether its media handler is video.
func parseTrak(trak []byte) (w, h int, video bool, err error) {
	err = boxes(trak, func(typ string, p []byte) error {
		switch typ {
		case "tkhd":
			if len(p) < 8 {
				return refuse(ErrUnreadable, "tkhd cut short")
			}
			tail := p[len(p)-8:]
			w = int(binary.BigEndian.Uint32(tail[0:4]) >> 16)
			h = int(binary.BigEndian.Uint32(tail[4:8]) >> 16)
		case "mdia":
			return boxes(p, func(typ string, p []byte) error {
				// hdlr: version+flags (4), pre_defined (4), handler_type (4).
				if typ == "hdlr" && len(p) >= 12 && string(p[8:12]) == "vide" {
					video = true
				}
				return nil
			})
		}
		return nil
	})
	return w, h, video, err
}

// ---- WebM (Matroska) ----

// EBML element ids used here.
const (
	idEBML          = 0x1A45DFA3
	idDocType       = 0x4282
	idSegment       = 0x18538067
	idInfo          = 0x1549A966
	idTimecodeScale = 0x2AD7B1
	idDuration      = 0x4489
	idTracks        = 0x1654AE6B
	idTrackEntry    = 0xAE
	idTrackType     = 0x83
	idVideo         = 0xE0
	idPixelWidth    = 0xB0
	idPixelHeight   = 0xBA
	idCluster       = 0x1F43B675
)

// checkWebM reads the header (the EBML header, then the Segment's elements
// up to the first Cluster, all within webmHeadBytes), then streams the rest.
func checkWebM(r *bufio.Reader) (Info, error) {
	head := make([]byte, webmHeadBytes)
	n, err := io.ReadFull(r, head)
	if err != nil && err != io.ErrUnexpectedEOF {
		return Info{}, refuse(ErrUnreadable, "read WebM header: %v", err)
	}
	head = head[:n]
	info, err := parseWebMHead(head)
	if err != nil {
		return Info{}, err
	}
	if err := drain(r); err != nil {
		return Info{}, err
	}
	return info, nil
}

type ebml struct {
	b   []byte
	pos int
}

// vint reads an EBML variable-length integer; keepMarker keeps the length
// marker bit (element ids keep it, sizes do not). unknown is an all-ones size.
func (e *ebml) vint(keepMarker bool) (v uint64, unknown bool, err error) {
	if e.pos >= len(e.b) {
		return 0, false, io.ErrUnexpectedEOF
	}
	first := e.b[e.pos]
	if first == 0 {
		return 0, false, refuse(ErrUnreadable, "EBML number over 8 bytes")
	}
	length := 1
	for mask := byte(0x80); first&mask == 0; mask >>= 1 {
		length++
	}
	if e.pos+length > len(e.b) {
		return 0, false, io.ErrUnexpectedEOF
	}
	v = uint64(first)
	if !keepMarker {
		v &= uint64(0xFF >> length)
	}
	allOnes := v == uint64(0xFF>>length)
	for i := 1; i < length; i++ {
		b := e.b[e.pos+i]
		v = v<<8 | uint64(b)
		allOnes = allOnes && b == 0xFF
	}
	e.pos += length
	return v, !keepMarker && allOnes, nil
}

// element reads an element's id and size; size is -1 when unknown.
func (e *ebml) element() (id uint64, size int64, err error) {
	id, _, err = e.vint(true)
	if err != nil {
		return 0, 0, err
	}
	s, unknown, err := e.vint(false)
	if err != nil {
		return 0, 0, err
	}
	if unknown {
		return id, -1, nil
	}
	if s > uint64(MaxBytes) {
		return 0, 0, refuse(ErrUnreadable, "EBML element of %d bytes", s)
	}
	return id, int64(s), nil
}

func parseWebMHead(b []byte) (Info, error) {
	e := &ebml{b: b}
	id, size, err := e.element()
	if err != nil || id != idEBML || size < 0 || e.pos+int(size) > len(b) {
		return Info{}, refuse(ErrInvalidType, "no EBML header")
	}
	docType := ""
	if err := children(b[e.pos:e.pos+int(size)], func(id uint64, p []byte) error {
		if id == idDocType {
			docType = string(p)
		}
		return nil
	}); err != nil {
		return Info{}, err
	}
	if docType != "webm" {
		return Info{}, refuse(ErrInvalidType, "doc type %q", docType)
	}
	e.pos += int(size)
	id, _, err = e.element()
	if err != nil || id != idSegment {
		return Info{}, refuse(ErrUnreadable, "no Segment after the EBML header")
	}
	var info Info
	timecodeScale := uint64(1_000_000)
	var duration float64
	var haveTracks bool
	for e.pos < len(e.b) && !haveTracks {
		id, size, err := e.element()
		if err != nil {
			break
		}
		if id == idCluster {
			break // frames: Info and Tracks come before them
		}
		if size < 0 || e.pos+int(size) > len(e.b) {
			break
		}
		body := e.b[e.pos : e.pos+int(size)]
		e.pos += int(size)
		switch id {
		case idInfo:
			err = children(body, func(id uint64, p []byte) error {
				switch id {
				case idTimecodeScale:
					timecodeScale = beUint(p)
				case idDuration:
					duration = beFloat(p)
				}
				return nil
			})
		case idTracks:
			err = children(body, func(id uint64, p []byte) error {
				if id != idTrackEntry || info.Width != 0 {
					return nil
				}
				var trackType uint64
				var w, h int
				if err := children(p, func(id uint64, p []byte) error {
					switch id {
					case idTrackType:
						trackType = beUint(p)
					case idVideo:
						return children(p, func(id uint64, p []byte) error {
							switch id {
							case idPixelWidth:
								w = int(min(beUint(p), math.MaxInt32))
							case idPixelHeight:
								h = int(min(beUint(p), math.MaxInt32))
							}
							return nil
						})
					}
					return nil
				}); err != nil {
					return err
				}
				if trackType == 1 {
					info.Width, info.Height = w, h
				}
				return nil
			})
			haveTracks = true
		}
		if err != nil {
			return Info{}, err
		}
	}
	if info.Width == 0 || info.Height == 0 {
		return Info{}, refuse(ErrInvalidType, "no video track in the WebM header")
	}
	if duration > 0 && timecodeScale > 0 {
		info.DurationSec = duration * float64(timecodeScale) / 1e9
	}
	return info, nil
}

// children visits the child elements of an element body held in memory.
func children(b []byte, visit func(id uint64, payload []byte) error) error {
	e := &ebml{b: b}
	for e.pos < len(b) {
		id, size, err := e.element()
		if err != nil || size < 0 || e.pos+int(size) > len(b) {
			return refuse(ErrUnreadable, "malformed WebM element")
		}
		if err := visit(id, b[e.pos:e.pos+int(size)]); err != nil {
			return err
		}
		e.pos += int(size)
	}
	return nil
}

func beUint(p []byte) uint64 {
	var v uint64
	for _, b := range p[:min(len(p), 8)] {
		v = v<<8 | uint64(b)
	}
	return v
}

func beFloat(p []byte) float64 {
	switch len(p) {
	case 4:
		return float64(math.Float32frombits(binary.BigEndian.Uint32(p)))
	case 8:
		return math.Float64frombits(binary.BigEndian.Uint64(p))
	}
	return 0
}
