package analytics

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestParseBatch(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	at := now.UnixMilli()
	slug, viewer := "AbCdEfGhIjKlMnOp1234", "viewer-0123456789abcdef"
	batch := func(events string, extra ...string) string {
		return fmt.Sprintf(`{"v":1,"slug":%q,"viewer":%q%s,"events":[%s]}`, slug, viewer, strings.Join(extra, ""), events)
	}
	ev := func(s string) string { return strings.ReplaceAll(s, "AT", fmt.Sprint(at)) }
	ok := []string{
		batch(ev(`{"t":"view","at":AT}`)),
		batch(ev(`{"t":"view","at":AT,"variant":"v2"},{"t":"interact","at":AT},{"t":"visible","at":AT,"ms":15000}`), `,"tz":"Asia/Kolkata","ref":"https://x.example/","utm":"mail"`),
		batch(ev(`{"t":"hotspot","at":AT,"hotspot":"h1"},{"t":"variant","at":AT,"variant":"v2"},{"t":"ar","at":AT,"mode":"quick-look"},{"t":"fullscreen","at":AT}`)),
	}
	for _, b := range ok {
		_, err := ParseBatch([]byte(b), now)
		require.NoError(t, err, b)
	}
	bad := map[string]string{
		"not JSON":               `{"v":1,`,
		"trailing bytes":         batch(ev(`{"t":"view","at":AT}`)) + `{}`,
		"unknown field":          batch(ev(`{"t":"view","at":AT}`), `,"ip":"1.2.3.4"`),
		"version 2":              strings.Replace(batch(ev(`{"t":"view","at":AT}`)), `"v":1`, `"v":2`, 1),
		"bad slug":               strings.Replace(batch(ev(`{"t":"view","at":AT}`)), slug, "../etc", 1),
		"short viewer id":        strings.Replace(batch(ev(`{"t":"view","at":AT}`)), viewer, "abc", 1),
		"no events":              batch(``),
		"unknown type":           batch(ev(`{"t":"purchase","at":AT}`)),
		"future timestamp":       batch(fmt.Sprintf(`{"t":"view","at":%d}`, now.Add(time.Hour).UnixMilli())),
		"day-old timestamp":      batch(fmt.Sprintf(`{"t":"view","at":%d}`, now.Add(-25*time.Hour).UnixMilli())),
		"visible without ms":     batch(ev(`{"t":"visible","at":AT}`)),
		"visible over two min":   batch(ev(`{"t":"visible","at":AT,"ms":120001}`)),
		"ms on a view":           batch(ev(`{"t":"view","at":AT,"ms":5}`)),
		"hotspot without id":     batch(ev(`{"t":"hotspot","at":AT}`)),
		"hotspot id with markup": batch(ev(`{"t":"hotspot","at":AT,"hotspot":"<b>"}`)),
		"ar without mode":        batch(ev(`{"t":"ar","at":AT}`)),
		"ar unknown mode":        batch(ev(`{"t":"ar","at":AT,"mode":"vr"}`)),
		"mode on a hotspot":      batch(ev(`{"t":"hotspot","at":AT,"hotspot":"h1","mode":"webxr"}`)),
		"one bad among good":     batch(ev(`{"t":"view","at":AT},{"t":"interact","at":AT},{"t":"visible","at":AT,"ms":-1}`)),
		"bad time zone":          batch(ev(`{"t":"view","at":AT}`), `,"tz":"Asia/Kolkata; DROP"`),
		"too many events":        batch(strings.TrimSuffix(strings.Repeat(ev(`{"t":"interact","at":AT},`), MaxBatchEvents+1), ",")),
		"over 16 KB":             batch(ev(`{"t":"view","at":AT}`), `,"ref":"`+strings.Repeat("a", MaxBatchBytes)+`"`),
	}
	for name, b := range bad {
		_, err := ParseBatch([]byte(b), now)
		require.ErrorIs(t, err, ErrBatch, name)
	}
}
