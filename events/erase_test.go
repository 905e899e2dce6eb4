package events_test

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
)

// Security review 3, L7: every string an event can hold is classified as
// merchant text (blanked at erasure), kept (ids, enums, hashes, our own
// messages) or owned by another package (a free-form map), so a field
// added later without a decision fails here instead of surviving erasure.
func TestEveryEventStringIsClassifiedForErasure(t *testing.T) {
	t.Parallel()
	r := events.Domain()
	for _, name := range r.Types() {
		ev, err := r.Decode(name, []byte(`{}`))
		require.NoError(t, err)
		require.Empty(t, events.Unclassified(reflect.TypeOf(ev)),
			"%s: tag each field erase:\"text\" (the merchant typed it) or erase:\"keep\" (the system chose it); see events/erase.go", name)
	}
}

type unclassifiedHappened struct {
	UserID  string                `json:"userId"`
	Label   string                `json:"label"`
	Notes   []string              `json:"notes"`
	Extra   map[string]string     `json:"extra"`
	Inner   struct{ Note string } `json:"inner"`
	Kind    string                `json:"kind" erase:"keep"`
	Counted int                   `json:"counted"`
}

func (unclassifiedHappened) EventType() string { return "unclassified.happened.v1" }

func TestUnclassifiedNamesEveryUntaggedString(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{"label (string)", "notes[] (string)", "extra (keys of map[string]string)", "inner.Note (string)"},
		events.Unclassified(reflect.TypeOf(unclassifiedHappened{})))
}

type snapshotShape struct {
	Name  string `json:"name" erase:"text"`
	Model string `json:"modelKey"`
}

type versioned struct {
	ID       string         `json:"pageId"`
	Snapshot map[string]any `json:"snapshot" erase:"owner"`
}

func (versioned) EventType() string { return "page.versioned.v1" }

func TestRedactorNeedsATypeForEveryFreeFormField(t *testing.T) {
	t.Parallel()
	r := events.NewRegistry(versioned{})
	_, err := events.NewRedactor(r, nil)
	require.ErrorContains(t, err, "page.versioned.v1 snapshot")
	_, err = events.NewRedactor(r, map[string]reflect.Type{"page.versioned.v1 snapshot": reflect.TypeOf(snapshotShape{}),
		"page.versioned.v1 other": reflect.TypeOf("")})
	require.Error(t, err)
	red, err := events.NewRedactor(r, map[string]reflect.Type{"page.versioned.v1 snapshot": reflect.TypeOf(snapshotShape{})})
	require.NoError(t, err)
	out, changed, err := red.Redact("page.versioned.v1", []byte(`{"pageId":"p1","snapshot":{"name":"Erika's vase","modelKey":"models/u/m.glb","later":"kept"}}`))
	require.NoError(t, err)
	require.True(t, changed)
	require.JSONEq(t, `{"pageId":"p1","snapshot":{"name":"","modelKey":"models/u/m.glb","later":"kept"}}`, string(out))
}

// Redact blanks merchant text (strings, lists, maps: embedded specs too),
// keeps ids, enums and numbers exactly, drops what the type no longer
// declares, and a second pass changes nothing.
func TestRedactBlanksMerchantTextOnly(t *testing.T) {
	t.Parallel()
	red, err := events.NewRedactor(events.Domain(), map[string]reflect.Type{"publication.versioned.v1 snapshot": reflect.TypeOf(snapshotShape{})})
	require.NoError(t, err)
	for _, c := range []struct{ typ, in, want string }{
		{"product.variant_added.v1",
			`{"productId":"p1","variantId":"v2","name":"Erika blue","material":"matte-black","parts":{"Erika's lid":"snow-white"},"sku":"ERIKA-1","price":12.50000000000000000001,"currency":"EUR","at":"2026-01-02T03:04:05Z"}`,
			`{"productId":"p1","variantId":"v2","name":"","material":"matte-black","parts":{},"sku":"","price":12.50000000000000000001,"currency":"EUR","at":"2026-01-02T03:04:05Z"}`},
		{"product.details_edited.v1",
			`{"productId":"p1","description":"Musterstr. 5","productUrl":"https://erika.example","tags":["erika"],"at":"2026-01-02T03:04:05Z"}`,
			`{"productId":"p1","description":"","productUrl":"","tags":[],"at":"2026-01-02T03:04:05Z"}`},
		{"user.registered.v1", // stored before issue 31: the address goes too
			`{"userId":"u1","method":"password","email":"erika@example.com","name":"Erika","at":"2026-01-02T03:04:05Z"}`,
			`{"userId":"u1","method":"password","at":"2026-01-02T03:04:05Z"}`},
		{"job.completed.v1",
			`{"jobId":"j1","parts":[{"id":"part-1","name":"Body","color":"#fff","share":1}],"stats":{"triangles":12},"at":"2026-01-02T03:04:05Z","assetId":"a","modelKey":"m","thumbnailKey":"t","bytes":3,"reconstructor":"builtin","version":"1"}`,
			""},
	} {
		out, changed, err := red.Redact(c.typ, []byte(c.in))
		require.NoError(t, err, c.typ)
		if c.want == "" {
			require.False(t, changed, c.typ)
			require.Equal(t, c.in, string(out))
			continue
		}
		require.True(t, changed, c.typ)
		require.JSONEq(t, c.want, string(out), c.typ)
		again, changed, err := red.Redact(c.typ, out)
		require.NoError(t, err)
		require.False(t, changed, "a second erasure changes nothing")
		require.Equal(t, string(out), string(again))
	}
	out, _, err := red.Redact("product.variant_added.v1", []byte(`{"price":12.50000000000000000001,"name":"x"}`))
	require.NoError(t, err)
	require.Contains(t, string(out), "12.50000000000000000001", "numbers are written back as stored")
	_, _, err = red.Redact("nope.v1", []byte(`{}`))
	require.ErrorIs(t, err, events.ErrUnknownType)
}
