package events

import "time"

// Gallery events: gallery-{id} streams. A gallery is an ordered set of the
// merchant's products with a cover (a Pro feature).

// GalleryCreated starts a gallery-{id} stream.
type GalleryCreated struct {
	GalleryID   string `json:"galleryId"`
	UserID      string `json:"userId"`
	Name        string `json:"name" erase:"text"`
	Description string `json:"description,omitempty" erase:"text"`
	// Tags and ThumbnailColor were added by issue 50; older events lack
	// them (no tags, the default colour derived from the id).
	Tags           []string  `json:"tags,omitempty" erase:"text"`
	ThumbnailColor string    `json:"thumbnailColor,omitempty" erase:"keep"`
	At             time.Time `json:"at"`
}

// EventType implements Event.
func (GalleryCreated) EventType() string { return "gallery.created.v1" }

// GalleryRenamed gives a gallery a new name.
type GalleryRenamed struct {
	GalleryID string    `json:"galleryId"`
	Name      string    `json:"name" erase:"text"`
	At        time.Time `json:"at"`
}

// EventType implements Event.
func (GalleryRenamed) EventType() string { return "gallery.renamed.v1" }

// GalleryDescribed replaces a gallery's description.
type GalleryDescribed struct {
	GalleryID   string    `json:"galleryId"`
	Description string    `json:"description" erase:"text"`
	At          time.Time `json:"at"`
}

// EventType implements Event.
func (GalleryDescribed) EventType() string { return "gallery.described.v1" }

// GalleryProductsSet replaces the gallery's products, in display order.
type GalleryProductsSet struct {
	GalleryID  string    `json:"galleryId"`
	ProductIDs []string  `json:"productIds"`
	At         time.Time `json:"at"`
}

// EventType implements Event.
func (GalleryProductsSet) EventType() string { return "gallery.products_set.v1" }

// GalleryCoverChosen picks the product whose thumbnail is the cover ("" clears it).
type GalleryCoverChosen struct {
	GalleryID string    `json:"galleryId"`
	ProductID string    `json:"productId"`
	At        time.Time `json:"at"`
}

// EventType implements Event.
func (GalleryCoverChosen) EventType() string { return "gallery.cover_chosen.v1" }

// GalleryTagged replaces a gallery's own tags (not its products').
type GalleryTagged struct {
	GalleryID string    `json:"galleryId"`
	Tags      []string  `json:"tags" erase:"text"`
	At        time.Time `json:"at"`
}

// EventType implements Event.
func (GalleryTagged) EventType() string { return "gallery.tagged.v1" }

// GalleryColorChosen sets the colour of the gallery's tile ("#RRGGBB"),
// shown behind its cover and wherever it has none.
type GalleryColorChosen struct {
	GalleryID string    `json:"galleryId"`
	Color     string    `json:"color" erase:"keep"`
	At        time.Time `json:"at"`
}

// EventType implements Event.
func (GalleryColorChosen) EventType() string { return "gallery.color_chosen.v1" }

// GalleryDeleted removes a gallery (its products are untouched).
type GalleryDeleted struct {
	GalleryID string    `json:"galleryId"`
	At        time.Time `json:"at"`
}

// EventType implements Event.
func (GalleryDeleted) EventType() string { return "gallery.deleted.v1" }

func galleryEvents() []Event {
	return []Event{GalleryCreated{}, GalleryRenamed{}, GalleryDescribed{}, GalleryProductsSet{},
		GalleryCoverChosen{}, GalleryTagged{}, GalleryColorChosen{}, GalleryDeleted{}}
}
