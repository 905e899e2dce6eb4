package events

import "time"

// Publication events: the "Link" of Photo → 3D → Link. A publication-{id}
// stream holds a share link's life: created, new immutable versions, locks and
// unpublishing.

// PublicationCreated makes a blueprint public behind an unguessable slug.
type PublicationCreated struct {
	PublicationID string `json:"publicationId"`
	UserID        string `json:"userId"`
	BlueprintID   string `json:"blueprintId"`
	// ProductID is set (and BlueprintID empty) when the subject is a product.
	ProductID string `json:"productId,omitempty"`
	// GalleryID is set (and the other two empty) when the subject is a
	// gallery: its public page /g/{slug} (issue 29 item 14).
	GalleryID string    `json:"galleryId,omitempty"`
	Slug      string    `json:"slug" erase:"keep"` // generated
	At        time.Time `json:"at"`
}

// EventType implements Event.
func (PublicationCreated) EventType() string { return "publication.created.v1" }

// PublicationVersioned snapshots the current state as an immutable version.
type PublicationVersioned struct {
	PublicationID string         `json:"publicationId"`
	Version       int            `json:"version"`
	Snapshot      map[string]any `json:"snapshot" erase:"owner"` // publish.Snapshot
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
	Origins       []string `json:"origins" erase:"text"` // the merchant's sites
}

// EventType implements Event.
func (PublicationEmbedOriginsSet) EventType() string { return "publication.embed_origins_set.v1" }

// PublicationSettingsChanged sets a product page's publish toggles: the
// email gate and whether ?variant= deep links open a variant.
type PublicationSettingsChanged struct {
	PublicationID  string    `json:"publicationId"`
	RequireEmail   bool      `json:"requireEmail"`
	AllowDeepLinks bool      `json:"allowDeepLinks"`
	At             time.Time `json:"at"`
}

// EventType implements Event.
func (PublicationSettingsChanged) EventType() string { return "publication.settings_changed.v1" }

// ProductLeadCaptured records that a shopper left an email at a product
// page's gate. The address itself is personal data and stays in the leads
// table, never in the log. It is appended on the publication's stream so a
// busy page never contends with the merchant's edits of the product.
type ProductLeadCaptured struct {
	ProductID     string    `json:"productId"`
	PublicationID string    `json:"publicationId"`
	LeadID        string    `json:"leadId"`
	VariantID     string    `json:"variantId,omitempty"`
	At            time.Time `json:"at"`
}

// EventType implements Event.
func (ProductLeadCaptured) EventType() string { return "product.lead_captured.v1" }

func publicationEvents() []Event {
	return []Event{PublicationCreated{}, PublicationVersioned{}, PublicationLocked{}, PublicationUnpublished{},
		PublicViewsExhausted{}, PublicationEmbedOriginsSet{}, PublicationSettingsChanged{}, ProductLeadCaptured{}}
}
