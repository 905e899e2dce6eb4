package events

import "time"

// Catalog events: catalog-{id} streams. Every merchant has one default
// catalog, created with their first product; it can be renamed but never
// deleted, and products of a deleted catalog move to it.

// CatalogCreated starts a catalog-{id} stream.
type CatalogCreated struct {
	CatalogID   string    `json:"catalogId"`
	UserID      string    `json:"userId"`
	Name        string    `json:"name" erase:"text"`
	Description string    `json:"description,omitempty" erase:"text"`
	IsDefault   bool      `json:"isDefault,omitempty"`
	At          time.Time `json:"at"`
}

// EventType implements Event.
func (CatalogCreated) EventType() string { return "catalog.created.v1" }

// CatalogRenamed gives a catalog a new name.
type CatalogRenamed struct {
	CatalogID string    `json:"catalogId"`
	Name      string    `json:"name" erase:"text"`
	At        time.Time `json:"at"`
}

// EventType implements Event.
func (CatalogRenamed) EventType() string { return "catalog.renamed.v1" }

// CatalogDescriptionChanged replaces a catalog's description.
type CatalogDescriptionChanged struct {
	CatalogID   string    `json:"catalogId"`
	Description string    `json:"description" erase:"text"`
	At          time.Time `json:"at"`
}

// EventType implements Event.
func (CatalogDescriptionChanged) EventType() string { return "catalog.description_changed.v1" }

// CatalogDeleted removes a (non-default) catalog; its products were moved
// to the default catalog by ProductMoved events in the same transaction.
type CatalogDeleted struct {
	CatalogID string    `json:"catalogId"`
	At        time.Time `json:"at"`
}

// EventType implements Event.
func (CatalogDeleted) EventType() string { return "catalog.deleted.v1" }

func catalogEvents() []Event {
	return []Event{CatalogCreated{}, CatalogRenamed{}, CatalogDescriptionChanged{}, CatalogDeleted{}}
}
