package analytics

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"time"
)

// ProtocolVersion is the beacon protocol this server speaks (README, "Beacon
// protocol"). A batch with another version is refused whole.
const ProtocolVersion = 1

// Limits of one batch.
const (
	MaxBatchBytes   = 16 << 10 // bigger bodies are refused (413)
	MaxBatchEvents  = 50       // what the viewer script sends at most (security review 2, item 5: was 100)
	MaxVisibleMs    = 120_000  // one heartbeat never reports more than two minutes
	MaxEventAge     = 24 * time.Hour
	MaxClockAhead   = 5 * time.Minute
	maxLabelLength  = 64
	maxTimeZoneName = 64
)

// Beacon event kinds sent by the viewer; KindClick and KindLead are recorded
// by the server (buy-link redirect, email gate).
const (
	KindView       = "view"
	KindInteract   = "interact"
	KindVisible    = "visible"
	KindHotspot    = "hotspot"
	KindVariant    = "variant"
	KindAR         = "ar"
	KindFullscreen = "fullscreen"
	KindClick      = "click"
	KindLead       = "lead"
)

// AR modes as model-viewer names them.
var arModes = map[string]bool{"webxr": true, "scene-viewer": true, "quick-look": true}

// Batch is one POST /t body.
type Batch struct {
	V      int    `json:"v"`
	Slug   string `json:"slug"`
	Viewer string `json:"viewer"`
	TZ     string `json:"tz,omitempty"`  // the browser's IANA time zone (region fallback)
	Ref    string `json:"ref,omitempty"` // document.referrer: the referring or embedding page
	UTM    string `json:"utm,omitempty"` // utm_source of the page URL
	// Token is the page's view token (<meta name="p3d-view-token">,
	// internal/publish/pagetoken.go); the collector refuses a batch without
	// a valid one (403).
	Token string `json:"token"`
	// Arm is the experiment arm the page names (<meta name="p3d-arm">; issue
	// 52). The collector records the arm the server assigns this viewer
	// (Publications.Arm), never this one: a claim that differs is ignored.
	Arm    string   `json:"arm,omitempty"`
	Events []Beacon `json:"events"`
}

// Beacon is one event of a batch.
type Beacon struct {
	T       string `json:"t"`
	At      int64  `json:"at"` // epoch milliseconds
	Ms      int64  `json:"ms,omitempty"`
	Hotspot string `json:"hotspot,omitempty"`
	Variant string `json:"variant,omitempty"`
	Mode    string `json:"mode,omitempty"`
}

var (
	validSlug   = regexp.MustCompile(`^[A-Za-z0-9_-]{16,64}$`)
	validViewer = regexp.MustCompile(`^[A-Za-z0-9_-]{16,64}$`)
	validID     = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,64}$`)
	validZone   = regexp.MustCompile(`^[A-Za-z0-9_+/-]{1,64}$`)
)

// ErrBatch is wrapped by every validation failure of ParseBatch.
var ErrBatch = errors.New("invalid beacon batch")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBatch, fmt.Sprintf(format, args...))
}

// ParseBatch decodes and validates one batch. Any bad event refuses the batch
// whole: a client that sends garbage learns nothing from partial acceptance,
// and the stored rows are never a mix of what it meant and what we guessed.
func ParseBatch(body []byte, now time.Time) (Batch, error) {
	var b Batch
	if len(body) > MaxBatchBytes {
		return b, invalid("body over %d bytes", MaxBatchBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return b, invalid("not a JSON batch: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return b, invalid("trailing data after the batch")
	}
	if b.V != ProtocolVersion {
		return b, invalid("protocol version %d (want %d)", b.V, ProtocolVersion)
	}
	if !validSlug.MatchString(b.Slug) {
		return b, invalid("bad slug")
	}
	if !validViewer.MatchString(b.Viewer) {
		return b, invalid("bad viewer id")
	}
	if len(b.TZ) > maxTimeZoneName || (b.TZ != "" && !validZone.MatchString(b.TZ)) {
		return b, invalid("bad time zone")
	}
	if len(b.Ref) > 2048 || len(b.UTM) > 256 || len(b.Token) > 64 {
		return b, invalid("referrer or utm_source too long")
	}
	if b.Arm != "" && !validID.MatchString(b.Arm) {
		return b, invalid("bad arm")
	}
	if len(b.Events) == 0 || len(b.Events) > MaxBatchEvents {
		return b, invalid("a batch holds 1 to %d events", MaxBatchEvents)
	}
	oldest, newest := now.Add(-MaxEventAge).UnixMilli(), now.Add(MaxClockAhead).UnixMilli()
	for i, e := range b.Events {
		if e.At < oldest || e.At > newest {
			return b, invalid("event %d: timestamp out of range", i)
		}
		if e.Ms != 0 && e.T != KindVisible {
			return b, invalid("event %d: ms only on visible", i)
		}
		if e.Hotspot != "" && e.T != KindHotspot || e.Variant != "" && e.T != KindVariant && e.T != KindView || e.Mode != "" && e.T != KindAR {
			return b, invalid("event %d: field not allowed on %q", i, e.T)
		}
		switch e.T {
		case KindView, KindInteract, KindFullscreen:
			if e.Variant != "" && !validID.MatchString(e.Variant) {
				return b, invalid("event %d: bad variant", i)
			}
		case KindVisible:
			if e.Ms <= 0 || e.Ms > MaxVisibleMs {
				return b, invalid("event %d: visible ms must be 1..%d", i, MaxVisibleMs)
			}
		case KindHotspot:
			if !validID.MatchString(e.Hotspot) {
				return b, invalid("event %d: bad hotspot", i)
			}
		case KindVariant:
			if !validID.MatchString(e.Variant) {
				return b, invalid("event %d: bad variant", i)
			}
		case KindAR:
			if !arModes[e.Mode] {
				return b, invalid("event %d: bad AR mode", i)
			}
		default:
			return b, invalid("event %d: unknown type %q", i, e.T)
		}
	}
	return b, nil
}
