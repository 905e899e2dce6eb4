package publish_test

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/publish"
)

// Security review 3, L7: a publication snapshot (stored in
// publication.versioned.v1, shaped like publish.Snapshot with the product's
// catalog.Config) classifies every string for the account erasure, so a
// field added to the snapshot or the configuration cannot keep a merchant's
// text after erasure.
func TestSnapshotStringsAreClassifiedForErasure(t *testing.T) {
	t.Parallel()
	require.Empty(t, events.Unclassified(reflect.TypeOf(publish.Snapshot{})),
		"tag each field erase:\"text\" or erase:\"keep\" (events/erase.go)")
}
