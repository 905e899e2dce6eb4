package events

import "time"

// Publication events: the "Link" of Photo → 3D → Link. A publication-{id}
// stream holds a share link's life: created, new immutable versions, locks and
// unpublishing.

// PublicationCreated makes a blueprint public behind an unguessable slug.
type PublicationCreated struct {
	PublicationID string    `json:"publicationId"`
	UserID        string    `json:"userId"`
	BlueprintID   string    `json:"blueprintId"`
	Slug          string    `json:"slug"`
	At            time.Time `json:"at"`
}

// EventType implements Event.
func (PublicationCreated) EventType() string { return "publication.created.v1" }

// PublicationVersioned snapshots the current state as an immutable version.
type PublicationVersioned struct {
	PublicationID string         `json:"publicationId"`
	Version       int            `json:"version"`
	Snapshot      map[string]any `json:"snapshot"`
	At            time.Time      `json:"at"`
}

// EventType implements Event.
func (PublicationVersioned) EventType() string { return "publication.versioned.v1" }

// PublicationLocked pins the public link to one version (0 unlocks).
type PublicationLocked struct {
	PublicationID string `json:"publicationId"`
	Version       int    `json:"version"`
}

// EventType implements Event.
func (PublicationLocked) EventType() string { return "publication.locked.v1" }

// PublicationUnpublished stops the link at once.
type PublicationUnpublished struct {
	PublicationID string    `json:"publicationId"`
	At            time.Time `json:"at"`
}

// EventType implements Event.
func (PublicationUnpublished) EventType() string { return "publication.unpublished.v1" }

// PublicViewsExhausted records that a public page could not be served because
// the owner's public-view balance ran out; appended once per exhaustion so the
// owner is told once, not on every refused view.
type PublicViewsExhausted struct {
	UserID        string    `json:"userId"`
	PublicationID string    `json:"publicationId"`
	At            time.Time `json:"at"`
}

// EventType implements Event.
func (PublicViewsExhausted) EventType() string { return "publication.views_exhausted.v1" }

// PublicationEmbedOriginsSet names the sites allowed to frame the
// publication's embed page (its frame-ancestors); empty allows any site.
// Origins are normalised (lower case, scheme://host[:port], a leading "*."
// for subdomains) before the event is written.
type PublicationEmbedOriginsSet struct {
	PublicationID string   `json:"publicationId"`
	Origins       []string `json:"origins"`
}

// EventType implements Event.
func (PublicationEmbedOriginsSet) EventType() string { return "publication.embed_origins_set.v1" }

func publicationEvents() []Event {
	return []Event{PublicationCreated{}, PublicationVersioned{}, PublicationLocked{}, PublicationUnpublished{},
		PublicViewsExhausted{}, PublicationEmbedOriginsSet{}}
}
