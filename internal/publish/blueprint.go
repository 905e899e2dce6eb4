package publish

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// Snapshot is what a version freezes: everything a public page shows about
// the blueprint. It is stored in PublicationVersioned events, so its JSON
// names are a stored format and must only ever gain fields. Its strings
// are classified with erase tags (events/erase.go): the account erasure
// blanks the merchant's text in stored snapshots guided by this type.
type Snapshot struct {
	BlueprintID  string           `json:"blueprintId"`
	Name         string           `json:"name" erase:"text"`
	ModelKey     string           `json:"modelKey"`
	ThumbnailKey string           `json:"thumbnailKey"`
	Parts        []events.JobPart `json:"parts,omitempty"`
	// ProductID and Config are set for a product page: the configuration
	// (variants, hotspots, links, presets) as it was when versioned.
	ProductID string          `json:"productId,omitempty"`
	Config    *catalog.Config `json:"config,omitempty"`
}

// asMap converts the snapshot to the event's free-form map.
func (s Snapshot) asMap() (map[string]any, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode snapshot: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("encode snapshot: %w", err)
	}
	return m, nil
}

// sameSnapshot reports whether two snapshots show the same page. They are
// compared as JSON with empty collections dropped: a stored version and the
// live state may spell "none" differently (null, [] or {}) without anything
// a shopper sees being different. Zero values stay: a price of 0 is not the
// same as no price.
func sameSnapshot(a, b Snapshot) (bool, error) {
	am, err := a.asMap()
	if err != nil {
		return false, err
	}
	bm, err := b.asMap()
	if err != nil {
		return false, err
	}
	return reflect.DeepEqual(pruneEmpty(am), pruneEmpty(bm)), nil
}

// pruneEmpty drops nulls and empty arrays and objects, at any depth.
func pruneEmpty(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if e = pruneEmpty(e); e != nil {
				out[k] = e
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case []any:
		if len(x) == 0 {
			return nil
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = pruneEmpty(e) // kept in place: positions matter in a list
		}
		return out
	}
	return v
}

// blueprint is the publishing view of a job-{id} stream: who owns it, what it
// is called now and which model it produced last.
type blueprint struct {
	ID        string
	UserID    string
	Completed bool
	Deleted   bool
	Snapshot  Snapshot
}

// loadBlueprint folds a job stream. It reads the event log rather than the job
// team's read model so publishing depends only on the stable event contract.
// A stream with no JobQueued is reported as missing (exists=false).
func loadBlueprint(ctx context.Context, store *eventstore.Store, q pgdb.Querier, id string) (blueprint, bool, error) {
	envs, _, err := store.Load(ctx, q, events.Stream{Type: events.StreamJob, ID: id})
	if err != nil {
		return blueprint{}, false, fmt.Errorf("load blueprint %s: %w", id, err)
	}
	b := blueprint{ID: id, Snapshot: Snapshot{BlueprintID: id}}
	exists := false
	for _, e := range envs {
		switch ev := e.Data.(type) {
		case events.JobQueued:
			exists = true
			b.UserID = ev.UserID
			b.Snapshot.Name = ev.Name
		case events.JobCompleted:
			b.Completed = true
			b.Snapshot.ModelKey = ev.ModelKey
			b.Snapshot.ThumbnailKey = ev.ThumbnailKey
			b.Snapshot.Parts = ev.Parts
		case events.BlueprintRenamed:
			b.Snapshot.Name = ev.Name
		case events.BlueprintDeleted:
			b.Deleted = true
		}
	}
	return b, exists, nil
}
