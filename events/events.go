// Package events holds the typed domain events of Photo3D and the registry that
// maps their stable, versioned type strings to Go types.
//
// Stored events outlive the Go code that wrote them, so every event carries an
// explicit type string such as "job.completed.v1" that never changes once it has
// been written: renaming a Go struct must not orphan events already in the log.
// The package depends on the standard library only so that any binary or tool
// (analytics replays, migrations) can decode the log without pulling in the
// application.
package events

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
)

// Event is implemented by every domain event. EventType returns the stable,
// versioned type string under which the event is stored.
type Event interface {
	EventType() string
}

// Stream names one aggregate's event stream, for example user-7c3…; streams are
// kept small (one per aggregate) so that optimistic concurrency conflicts are rare.
type Stream struct {
	Type string
	ID   string
}

// String renders the stream id as stored in the events table ("type-id").
func (s Stream) String() string { return s.Type + "-" + s.ID }

// Well-known stream types, one per aggregate.
const (
	StreamUser         = "user"
	StreamSubscription = "subscription"
	StreamUpload       = "upload"
	StreamJob          = "job"
	StreamProduct      = "product"
	StreamCatalog      = "catalog"
	StreamGallery      = "gallery"
	StreamPublication  = "publication"
	StreamAPIKey       = "apikey"
	StreamWebhook      = "webhook"
	StreamExperiment   = "experiment"
)

// Registry maps type strings to Go types. It is built once by NewRegistry and is
// read-only afterwards, so it is safe for concurrent use without locks.
type Registry struct {
	types map[string]reflect.Type
}

// NewRegistry builds a registry from prototype values. Registering the same type
// string twice is a programming error and panics at start-up rather than
// silently letting one Go type shadow another.
func NewRegistry(prototypes ...Event) *Registry {
	r := &Registry{types: make(map[string]reflect.Type, len(prototypes))}
	for _, p := range prototypes {
		name := p.EventType()
		if name == "" {
			panic(fmt.Sprintf("events: %T has an empty type string", p))
		}
		t := reflect.TypeOf(p)
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if prev, dup := r.types[name]; dup {
			panic(fmt.Sprintf("events: type %q registered twice (%s and %s)", name, prev, t))
		}
		r.types[name] = t
	}
	return r
}

// ErrUnknownType is returned (wrapped) when a stored event's type string is not
// registered; callers decide whether to stop or skip, but never panic.
var ErrUnknownType = fmt.Errorf("unknown event type")

// Decode turns stored JSON into the registered Go value (the struct, not a pointer).
func (r *Registry) Decode(eventType string, data []byte) (Event, error) {
	t, ok := r.types[eventType]
	if !ok {
		return nil, fmt.Errorf("decode %q: %w", eventType, ErrUnknownType)
	}
	v := reflect.New(t)
	if err := json.Unmarshal(data, v.Interface()); err != nil {
		return nil, fmt.Errorf("decode %q: %w", eventType, err)
	}
	// Events are values (value receivers), so Append's envelopes and decoded
	// ones look alike to type switches.
	ev, ok := v.Elem().Interface().(Event)
	if !ok {
		return nil, fmt.Errorf("decode %q: %s does not implement Event with a value receiver", eventType, t)
	}
	return ev, nil
}

// Known reports whether a type string is registered.
func (r *Registry) Known(eventType string) bool {
	_, ok := r.types[eventType]
	return ok
}

// Types lists the registered type strings in sorted order (for docs and metrics).
func (r *Registry) Types() []string {
	out := make([]string, 0, len(r.types))
	for k := range r.types {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
