// Package catalog is the merchant's catalogue: catalogs, products and
// galleries (spec creation-and-catalogue.md §2–§6, §9).
//
// Each is its own event stream (catalog-{id}, product-{id}, gallery-{id}).
// The read models (catalogs, products, galleries) are inline projections:
// after every relevant event the aggregate is re-folded from the log with the
// pure Fold functions of fold.go and upserted, so the API reads its own
// writes at once and a rebuild from the log gives exactly the same rows.
//
// A product owns its build history. Its status is derived from its current
// job: the job's completion or failure (appended by the worker on the job's
// stream) re-folds every product built by that job in the SAME transaction,
// because this projection is registered inline in the worker's event store
// too. No second copy of "build completed" is written, and a product is never
// stale after its job ends.
//
// All writes of one merchant's catalogue are serialised by a transaction-level
// advisory lock on the merchant, which makes the plan limits exact under
// concurrency (20 parallel creates on Free leave exactly 2 products) and lets
// appends use eventstore.AnyVersion safely.
package catalog

import (
	"time"

	"github.com/photo3d/photo3d/events"
)

// Product statuses (spec §3, §4) and their list labels.
const (
	StatusProcessing = "processing"
	StatusReady      = "ready"
	StatusError      = "error"
	// StatusDraft: made from a photo with "Save as draft"; no build yet.
	StatusDraft = "draft"
)

// StatusLabel is the card label of spec §4: "3D ready — Configure",
// "Processing 3D…", "Failed".
func StatusLabel(status string) string {
	switch status {
	case StatusReady:
		return "3D ready — Configure"
	case StatusError:
		return "Failed"
	case StatusDraft:
		return "Draft"
	}
	return "Processing 3D…"
}

// DefaultCatalogName names the catalog created with a merchant's first product.
const DefaultCatalogName = "Default catalog"

// Catalog is one row of the catalogs read model.
type Catalog struct {
	ID           string
	UserID       string
	Name         string
	Description  string
	IsDefault    bool
	ProductCount int
	CreatedAt    time.Time
	UpdatedAt    time.Time
	DeletedAt    *time.Time
}

// Build is one build in a product's history: a job attached to it.
type Build struct {
	JobID      string
	Status     string // processing | ready | error
	Reason     string
	StartedAt  time.Time
	FinishedAt *time.Time
}

// Product is one row of the products read model.
type Product struct {
	ID            string
	UserID        string
	CatalogID     string
	Name          string
	Description   string
	ProductURL    string
	Tags          []string
	Source        string
	JobID         string
	Status        string
	FailureReason string
	ModelKey      string
	ThumbnailKey  string
	CreatedAt     time.Time
	UpdatedAt     time.Time
	DeletedAt     *time.Time
	// Config holds variants, hotspots, links and presets (issue 13).
	Config Config
	// The photo a product is made from and its cutout options (wizard).
	PhotoUploadID string
	PhotoKey      string
	CleanEdges    bool
	KeepShadow    bool
	// Live: the product's own public page is published (read from the
	// publications table for lists and the detail; false when folded from the log).
	Live bool
	// Builds is the build history, oldest first (filled by Fold, not stored).
	Builds []Build
}

// Gallery is one row of the galleries read model.
type Gallery struct {
	ID             string
	UserID         string
	Name           string
	Description    string
	ProductIDs     []string
	CoverProductID string
	// Tags are the gallery's own (spec §3 Gallery.tags), not its products'.
	Tags []string
	// ThumbnailColor is the merchant's tile colour, "" until one is chosen
	// (readers show GalleryColor(ID, "") then).
	ThumbnailColor string
	CreatedAt      time.Time
	UpdatedAt      time.Time
	DeletedAt      *time.Time
	// Derived when read: status from its live products, cover thumbnail key,
	// how many live products it holds and how many of them have a 3D model.
	Status       string
	CoverKey     string
	ProductCount int
	AssetCount   int
}

func catalogStream(id string) events.Stream { return events.Stream{Type: events.StreamCatalog, ID: id} }
func productStream(id string) events.Stream { return events.Stream{Type: events.StreamProduct, ID: id} }
func galleryStream(id string) events.Stream { return events.Stream{Type: events.StreamGallery, ID: id} }
