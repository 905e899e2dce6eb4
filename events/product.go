package events

import "time"

// Product events: product-{id} streams. A product is what a merchant sells;
// it owns its build history: every model it ever had is a job linked here by
// ProductModelAttached (an existing blueprint) or ProductBuildStarted (a new
// build for this product). Whether a build completed or failed is recorded
// once, on the job's own stream (job.completed.v1 / job.failed.v1); the
// product's status is derived from its current job, never copied.

// Product sources: where the product's first model came from.
const (
	ProductSourceBlueprint = "blueprint"
	ProductSourcePhoto     = "photo"
	ProductSourceUpload    = "upload"
)

// ProductCreated starts a product-{id} stream.
type ProductCreated struct {
	ProductID string    `json:"productId"`
	UserID    string    `json:"userId"`
	CatalogID string    `json:"catalogId"`
	Name      string    `json:"name" erase:"text"`
	Source    string    `json:"source" erase:"keep"`
	At        time.Time `json:"at"`
}

// EventType implements Event.
func (ProductCreated) EventType() string { return "product.created.v1" }

// ProductModelAttached makes an existing build (a blueprint) the product's
// current model.
type ProductModelAttached struct {
	ProductID string    `json:"productId"`
	JobID     string    `json:"jobId"`
	Source    string    `json:"source" erase:"keep"`
	At        time.Time `json:"at"`
}

// EventType implements Event.
func (ProductModelAttached) EventType() string { return "product.model_attached.v1" }

// ProductBuildStarted records a new build (rebuild or new photo) for the
// product; the job's queued event and River job are in the same transaction.
type ProductBuildStarted struct {
	ProductID string    `json:"productId"`
	JobID     string    `json:"jobId"`
	At        time.Time `json:"at"`
}

// EventType implements Event.
func (ProductBuildStarted) EventType() string { return "product.build_started.v1" }

// ProductRenamed gives a product a new name.
type ProductRenamed struct {
	ProductID string    `json:"productId"`
	Name      string    `json:"name" erase:"text"`
	At        time.Time `json:"at"`
}

// EventType implements Event.
func (ProductRenamed) EventType() string { return "product.renamed.v1" }

// ProductDetailsEdited replaces the product's description, product URL and tags.
type ProductDetailsEdited struct {
	ProductID   string    `json:"productId"`
	Description string    `json:"description" erase:"text"`
	ProductURL  string    `json:"productUrl" erase:"text"`
	Tags        []string  `json:"tags" erase:"text"`
	At          time.Time `json:"at"`
}

// EventType implements Event.
func (ProductDetailsEdited) EventType() string { return "product.details_edited.v1" }

// ProductMoved moves a product to another catalog of the same merchant.
type ProductMoved struct {
	ProductID     string    `json:"productId"`
	CatalogID     string    `json:"catalogId"`
	FromCatalogID string    `json:"fromCatalogId"`
	At            time.Time `json:"at"`
}

// EventType implements Event.
func (ProductMoved) EventType() string { return "product.moved.v1" }

// ProductDeleted removes a product; its builds (jobs, files) stay as blueprints.
type ProductDeleted struct {
	ProductID string    `json:"productId"`
	At        time.Time `json:"at"`
}

// EventType implements Event.
func (ProductDeleted) EventType() string { return "product.deleted.v1" }

// ProductPhotoAttached keeps the photo a product is made from (the
// add-product wizard) and the cutout options the merchant chose for it, so
// a draft can be built later and every rebuild uses the same cutout.
type ProductPhotoAttached struct {
	ProductID  string    `json:"productId"`
	UploadID   string    `json:"uploadId"`
	PhotoKey   string    `json:"photoKey"` // the original photo's blob key
	CleanEdges bool      `json:"cleanEdges"`
	KeepShadow bool      `json:"keepShadow"`
	At         time.Time `json:"at"`
}

// EventType implements Event.
func (ProductPhotoAttached) EventType() string { return "product.photo_attached.v1" }

// ProductModelUploaded makes a merchant's own model (a validated,
// normalised GLB and its rendered thumbnail) the product's current model.
type ProductModelUploaded struct {
	ProductID    string    `json:"productId"`
	ModelKey     string    `json:"modelKey"`
	ThumbnailKey string    `json:"thumbnailKey"`
	Filename     string    `json:"filename" erase:"text"`
	Bytes        int       `json:"bytes"`
	Triangles    int       `json:"triangles"`
	At           time.Time `json:"at"`
}

// EventType implements Event.
func (ProductModelUploaded) EventType() string { return "product.model_uploaded.v1" }

// ProductModelSubmitted records that a merchant sent their own model files;
// the worker prepares them (validates, normalises, thumbnails) and, when
// they are usable, appends ProductModelUploaded. Bytes is what was sent.
type ProductModelSubmitted struct {
	ProductID    string    `json:"productId"`
	SubmissionID string    `json:"submissionId"`
	Filename     string    `json:"filename" erase:"text"`
	Bytes        int64     `json:"bytes"`
	At           time.Time `json:"at"`
}

// EventType implements Event.
func (ProductModelSubmitted) EventType() string { return "product.model_submitted.v1" }

func productEvents() []Event {
	return []Event{ProductCreated{}, ProductModelAttached{}, ProductBuildStarted{}, ProductRenamed{},
		ProductDetailsEdited{}, ProductMoved{}, ProductDeleted{},
		ProductPhotoAttached{}, ProductModelUploaded{}, ProductModelSubmitted{}}
}
