package catalog

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/blobstore"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/job"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/subscription"
	"github.com/photo3d/photo3d/internal/upload"
)

// Plans answers the catalogue's plan limits (nil = unlimited). It reads in
// the caller's transaction, after the merchant's catalogue lock.
type Plans interface {
	Limits(ctx context.Context, q pgdb.Querier, userID string) (products, galleries *int64, err error)
	// PartTypeOption: may the merchant configure materials per part (spec §6)?
	PartTypeOption(ctx context.Context, q pgdb.Querier, userID string) (bool, error)
}

// SubscriptionPlans reads the limits of the effective plan (a running trial
// counts as Pro) from internal/subscription.
type SubscriptionPlans struct{ Subscriptions *subscription.Service }

// Limits implements Plans.
func (p SubscriptionPlans) Limits(ctx context.Context, q pgdb.Querier, userID string) (*int64, *int64, error) {
	v, err := p.Subscriptions.Get(ctx, q, userID)
	if err != nil {
		return nil, nil, err
	}
	return v.ProductLimit, v.GalleryLimit, nil
}

// PartTypeOption implements Plans: any non-free effective plan (a running
// trial counts as Pro).
func (p SubscriptionPlans) PartTypeOption(ctx context.Context, q pgdb.Querier, userID string) (bool, error) {
	v, err := p.Subscriptions.Get(ctx, q, userID)
	if err != nil {
		return false, err
	}
	return v.HasPartTypeOption, nil
}

// Service is the api side of the catalogue.
type Service struct {
	db    *pgxpool.Pool
	store *eventstore.Store
	jobs  *job.Service
	plans Plans
	now   func() time.Time
	// Own models and the preview checks (WithModels).
	blobs       *blobstore.Store
	modelHeight float64
	checks      *checksCache // shared by copies (WithClock)
	river       *river.Client[pgx.Tx]
	quota       upload.QuotaFunc
	modelWait   time.Duration // 0: ModelWait
}

// NewService builds the service; store must have Projection registered
// inline, and jobs must share it (rebuilds append on both streams in one tx).
func NewService(db *pgxpool.Pool, store *eventstore.Store, jobs *job.Service, plans Plans) *Service {
	return &Service{db: db, store: store, jobs: jobs, plans: plans, now: time.Now, checks: newChecksCache()}
}

// WithClock returns a copy of the service reading time from now (tests
// seed products created on chosen days).
func (s *Service) WithClock(now func() time.Time) *Service {
	c := *s
	c.now = now
	return &c
}

func (s *Service) at() time.Time { return s.now().UTC() }

func newID() (string, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return "", fmt.Errorf("new id: %w", err)
	}
	return id.String(), nil
}

// write runs fn in a transaction holding the merchant's catalogue lock.
func (s *Service) write(ctx context.Context, userID string, fn func(tx pgx.Tx) error) error {
	return pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		if err := lockMerchant(ctx, tx, userID); err != nil {
			return err
		}
		return fn(tx)
	})
}

// writeThenRead is write, answering read from inside the same transaction.
// Every write that answers what it wrote reads it before the COMMIT, never
// after: a read after it can fail (the database restarting, the client
// going away) and answer an error for a change that was made, and a client
// that retries that error makes it twice (a product, a build and its
// credits: see job.Service.startBuild).
func writeThenRead[T any](ctx context.Context, s *Service, userID string, fn func(tx pgx.Tx) error, read func(tx pgx.Tx) (T, error)) (T, error) {
	var out T
	err := s.write(ctx, userID, func(tx pgx.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		var err error
		out, err = read(tx)
		return err
	})
	if err != nil {
		var none T
		return none, err
	}
	return out, nil
}

// writeProduct is writeThenRead answering the product, with its configuration.
func (s *Service) writeProduct(ctx context.Context, userID, id string, fn func(tx pgx.Tx) error) (Product, error) {
	return writeThenRead(ctx, s, userID, fn, func(tx pgx.Tx) (Product, error) { return getProductConfig(ctx, tx, userID, id) })
}

// writeCatalog is writeThenRead answering the catalog.
func (s *Service) writeCatalog(ctx context.Context, userID, id string, fn func(tx pgx.Tx) error) (Catalog, error) {
	return writeThenRead(ctx, s, userID, fn, func(tx pgx.Tx) (Catalog, error) { return getCatalog(ctx, tx, userID, id) })
}

// writeGallery is writeThenRead answering the gallery and its products.
func (s *Service) writeGallery(ctx context.Context, userID, id string, fn func(tx pgx.Tx) error) (Gallery, []Product, error) {
	type answer struct {
		g  Gallery
		ps []Product
	}
	a, err := writeThenRead(ctx, s, userID, fn, func(tx pgx.Tx) (answer, error) {
		g, err := getGallery(ctx, tx, userID, id)
		if err != nil {
			return answer{}, err
		}
		ps, err := productsByIDs(ctx, tx, userID, g.ProductIDs)
		return answer{g, ps}, err
	})
	return a.g, a.ps, err
}

// SignedURL signs a blob key for the JSON answers (as jobs do).
func (s *Service) SignedURL(ctx context.Context, key string) (string, error) {
	return s.jobs.SignedURL(ctx, key)
}

// Usage counts the merchant's live products and galleries (GET /subscription).
func (s *Service) Usage(ctx context.Context, userID string) (products, galleries int, err error) {
	if products, err = countProducts(ctx, s.db, userID); err != nil {
		return 0, 0, err
	}
	galleries, err = countGalleries(ctx, s.db, userID)
	return products, galleries, err
}

// ensureDefault returns the merchant's default catalog, creating it with
// the first product.
func (s *Service) ensureDefault(ctx context.Context, tx pgx.Tx, userID string) (string, error) {
	c, ok, err := defaultCatalog(ctx, tx, userID)
	if err != nil || ok {
		return c.ID, err
	}
	id, err := newID()
	if err != nil {
		return "", err
	}
	_, err = s.store.Append(ctx, tx, catalogStream(id), 0, events.CatalogCreated{CatalogID: id, UserID: userID,
		Name: DefaultCatalogName, IsDefault: true, At: s.at()})
	return id, err
}

// patchEvents validates a PATCH of name and description (nil = unchanged)
// against the current values and returns the events for what changes:
// renamed for a new name, described for a new description (catalogs and
// galleries each have their own pair).
func patchEvents(what string, name, desc *string, maxDesc int, curName, curDesc string,
	renamed, described func(string) events.Event) ([]events.Event, error) {
	var evs []events.Event
	if name != nil {
		n, err := CleanName(what, *name)
		if err != nil {
			return nil, err
		}
		if n != curName {
			evs = append(evs, renamed(n))
		}
	}
	if desc != nil {
		d, err := CleanDescription(*desc, maxDesc)
		if err != nil {
			return nil, err
		}
		if d != curDesc {
			evs = append(evs, described(d))
		}
	}
	return evs, nil
}

// --- catalogs -------------------------------------------------------------

// Catalogs lists the merchant's catalogs (default first) and the number of
// live products in all of them.
func (s *Service) Catalogs(ctx context.Context, userID string) ([]Catalog, int, error) {
	cs, err := listCatalogs(ctx, s.db, userID)
	if err != nil {
		return nil, 0, err
	}
	n, err := countProducts(ctx, s.db, userID)
	return cs, n, err
}

// Catalog returns one of the merchant's catalogs.
func (s *Service) Catalog(ctx context.Context, userID, id string) (Catalog, error) {
	return getCatalog(ctx, s.db, userID, id)
}

// CreateCatalog creates a (non-default) catalog.
func (s *Service) CreateCatalog(ctx context.Context, userID, name, description string) (Catalog, error) {
	name, err := CleanName("catalog", name)
	if err != nil {
		return Catalog{}, err
	}
	if description, err = CleanDescription(description, MaxCatalogDescLength); err != nil {
		return Catalog{}, err
	}
	id, err := newID()
	if err != nil {
		return Catalog{}, err
	}
	return s.writeCatalog(ctx, userID, id, func(tx pgx.Tx) error {
		_, err := s.store.Append(ctx, tx, catalogStream(id), 0, events.CatalogCreated{CatalogID: id, UserID: userID,
			Name: name, Description: description, At: s.at()})
		return err
	})
}

// UpdateCatalog renames and/or re-describes a catalog (nil = unchanged).
func (s *Service) UpdateCatalog(ctx context.Context, userID, id string, name, description *string) (Catalog, error) {
	return s.writeCatalog(ctx, userID, id, func(tx pgx.Tx) error {
		c, err := getCatalog(ctx, tx, userID, id)
		if err != nil {
			return err
		}
		evs, err := patchEvents("catalog", name, description, MaxCatalogDescLength, c.Name, c.Description,
			func(n string) events.Event { return events.CatalogRenamed{CatalogID: id, Name: n, At: s.at()} },
			func(d string) events.Event {
				return events.CatalogDescriptionChanged{CatalogID: id, Description: d, At: s.at()}
			})
		if err != nil {
			return err
		}
		_, err = s.store.Append(ctx, tx, catalogStream(id), eventstore.AnyVersion, evs...)
		return err
	})
}

// DeleteCatalog deletes a non-default catalog and moves its products to the
// default catalog, in one transaction.
func (s *Service) DeleteCatalog(ctx context.Context, userID, id string) error {
	return s.write(ctx, userID, func(tx pgx.Tx) error {
		c, err := getCatalog(ctx, tx, userID, id)
		if err != nil {
			return err
		}
		if c.IsDefault {
			return ErrDefaultCatalog
		}
		ids, err := productIDsInCatalog(ctx, tx, id)
		if err != nil {
			return err
		}
		if len(ids) > 0 {
			def, err := s.ensureDefault(ctx, tx, userID)
			if err != nil {
				return err
			}
			for _, pid := range ids {
				if _, err := s.store.Append(ctx, tx, productStream(pid), eventstore.AnyVersion,
					events.ProductMoved{ProductID: pid, CatalogID: def, FromCatalogID: id, At: s.at()}); err != nil {
					return err
				}
			}
		}
		_, err = s.store.Append(ctx, tx, catalogStream(id), eventstore.AnyVersion, events.CatalogDeleted{CatalogID: id, At: s.at()})
		return err
	})
}

// CatalogProducts pages the products of one catalog.
func (s *Service) CatalogProducts(ctx context.Context, userID, id string, p ListParams) ([]Product, int, error) {
	if _, err := getCatalog(ctx, s.db, userID, id); err != nil {
		return nil, 0, err
	}
	p.CatalogID = id
	return listProducts(ctx, s.db, userID, p)
}

// --- products -------------------------------------------------------------

// NewProduct is POST /products.
type NewProduct struct {
	Name        string
	CatalogID   string
	BlueprintID string
	// From a new photo (photo_products.go): the upload, whether to build now,
	// and the cutout options chosen in the wizard.
	UploadID               string
	Generate               bool
	CleanEdges, KeepShadow bool
	// MoreImages are further angles of the product (issue 34 §3), checked
	// like POST /jobs's; only with Generate.
	MoreImages []job.MoreImage
	// OwnModel: neither a build nor a photo; the merchant's own .glb/.gltf
	// follows through POST /products/{id}/model (the wizard's "I have a
	// .glb/.gltf", issue 50 item 11). The product is a draft until then.
	OwnModel bool
}

// Products pages the merchant's products. Under a plan with a product limit
// the list is cut to that many (spec §6 "Free: the products list is cut to
// productLimit entries"): the oldest ones, which the plan covered first, so a
// downgrade keeps the products the merchant started with in view and the
// newer ones come back on an upgrade. Nothing is deleted.
func (s *Service) Products(ctx context.Context, userID string, p ListParams) ([]Product, int, error) {
	limit, _, err := s.plans.Limits(ctx, s.db, userID)
	if err != nil {
		return nil, 0, err
	}
	p.within = limit
	return listProducts(ctx, s.db, userID, p)
}

// ProductsBeyondPlan counts the products the plan's limit leaves out of the
// list (0 without a limit or within it), for the list's notice.
func (s *Service) ProductsBeyondPlan(ctx context.Context, userID string) (int, error) {
	limit, _, err := s.plans.Limits(ctx, s.db, userID)
	if err != nil || limit == nil {
		return 0, err
	}
	used, err := countProducts(ctx, s.db, userID)
	if err != nil {
		return 0, err
	}
	return max(used-int(*limit), 0), nil
}

// Product returns one product with its build history.
func (s *Service) Product(ctx context.Context, userID, id string) (Product, error) {
	return getProduct(ctx, s.db, userID, id)
}

// CreateProduct creates a product from one of the merchant's blueprints, in
// the chosen catalog or the default one (created with the first product),
// within the plan's product limit.
func (s *Service) CreateProduct(ctx context.Context, userID string, in NewProduct) (Product, error) {
	if in.BlueprintID == "" && in.UploadID == "" && !in.OwnModel {
		return Product{}, ErrBlueprintRequired
	}
	id, err := newID()
	if err != nil {
		return Product{}, err
	}
	return s.writeProduct(ctx, userID, id, func(tx pgx.Tx) error {
		limit, _, err := s.plans.Limits(ctx, tx, userID)
		if err != nil {
			return err
		}
		used, err := countProducts(ctx, tx, userID)
		if err != nil {
			return err
		}
		if err := CheckProductLimit(limit, used); err != nil {
			return err
		}
		if in.BlueprintID == "" && in.UploadID == "" {
			name, err := CleanName("product", in.Name)
			if err != nil {
				return err
			}
			catalogID, err := s.chooseCatalog(ctx, tx, userID, in.CatalogID)
			if err != nil {
				return err
			}
			_, err = s.store.Append(ctx, tx, productStream(id), 0, events.ProductCreated{ProductID: id, UserID: userID,
				CatalogID: catalogID, Name: name, Source: events.ProductSourceUpload, At: s.at()})
			return err
		}
		if in.BlueprintID == "" {
			catalogID, err := s.chooseCatalog(ctx, tx, userID, in.CatalogID)
			if err != nil {
				return err
			}
			return s.createFromPhoto(ctx, tx, userID, id, catalogID, in)
		}
		bp, err := job.Lookup(ctx, tx, userID, in.BlueprintID)
		if err != nil {
			return err
		}
		name := in.Name
		if strings.TrimSpace(name) == "" {
			name = bp.Name
		}
		if name, err = CleanName("product", name); err != nil {
			return err
		}
		catalogID, err := s.chooseCatalog(ctx, tx, userID, in.CatalogID)
		if err != nil {
			return err
		}
		at := s.at()
		_, err = s.store.Append(ctx, tx, productStream(id), 0,
			events.ProductCreated{ProductID: id, UserID: userID, CatalogID: catalogID, Name: name,
				Source: events.ProductSourceBlueprint, At: at},
			events.ProductModelAttached{ProductID: id, JobID: bp.ID, Source: events.ProductSourceBlueprint, At: at})
		return err
	})
}

// ProductPatch is PATCH /products/{id}; nil fields are unchanged.
type ProductPatch struct {
	Name        *string
	Description *string
	ProductURL  *string
	Tags        *[]string
	CatalogID   *string
}

// UpdateProduct applies a patch: rename, details (description, URL, tags)
// and the catalog, each its own event, appended only when something changed.
func (s *Service) UpdateProduct(ctx context.Context, userID, id string, patch ProductPatch) (Product, error) {
	return s.writeProduct(ctx, userID, id, func(tx pgx.Tx) error {
		p, err := getProduct(ctx, tx, userID, id)
		if err != nil {
			return err
		}
		at := s.at()
		var evs []events.Event
		if patch.Name != nil {
			n, err := CleanName("product", *patch.Name)
			if err != nil {
				return err
			}
			if n != p.Name {
				// Its builds first: they lock job rows, which must come
				// before this product's row (see job.FollowProductName).
				if err := s.renameBuilds(ctx, tx, p, n); err != nil {
					return err
				}
				evs = append(evs, events.ProductRenamed{ProductID: id, Name: n, At: at})
			}
		}
		d := events.ProductDetailsEdited{ProductID: id, Description: p.Description, ProductURL: p.ProductURL, Tags: p.Tags, At: at}
		if patch.Description != nil {
			if d.Description, err = CleanDescription(*patch.Description, MaxDescriptionLength); err != nil {
				return err
			}
		}
		if patch.ProductURL != nil {
			if d.ProductURL, err = CleanProductURL(*patch.ProductURL); err != nil {
				return err
			}
		}
		if patch.Tags != nil {
			if d.Tags, err = CleanTags(*patch.Tags); err != nil {
				return err
			}
		}
		if d.Description != p.Description || d.ProductURL != p.ProductURL || !slices.Equal(d.Tags, p.Tags) {
			evs = append(evs, d)
		}
		if patch.CatalogID != nil && *patch.CatalogID != p.CatalogID {
			if _, err := getCatalog(ctx, tx, userID, *patch.CatalogID); err != nil {
				return err
			}
			evs = append(evs, events.ProductMoved{ProductID: id, CatalogID: *patch.CatalogID, FromCatalogID: p.CatalogID, At: at})
		}
		_, err = s.store.Append(ctx, tx, productStream(id), eventstore.AnyVersion, evs...)
		return err
	})
}

// renameBuilds gives the product's builds that still carry its old name
// the new one (issue 50 item 14), except a build another live product has
// as its model: that one names both, so it keeps its name.
func (s *Service) renameBuilds(ctx context.Context, tx pgx.Tx, p Product, name string) error {
	jobIDs, err := ownBuilds(ctx, tx, p.ID)
	if err != nil || len(jobIDs) == 0 {
		return err
	}
	return s.jobs.FollowProductName(ctx, tx, p.UserID, jobIDs, p.Name, name)
}

// DeleteProduct deletes a product; its builds stay as blueprints and the
// galleries that held it stop showing it.
func (s *Service) DeleteProduct(ctx context.Context, userID, id string) error {
	return s.write(ctx, userID, func(tx pgx.Tx) error {
		if _, err := getProduct(ctx, tx, userID, id); err != nil {
			return err
		}
		_, err := s.store.Append(ctx, tx, productStream(id), eventstore.AnyVersion, events.ProductDeleted{ProductID: id, At: s.at()})
		return err
	})
}

// RebuildProduct starts a new build of the product's photo through
// internal/job (one credit per photo reserved, JobQueued and the River job), and
// records it on the product, all in one transaction.
func (s *Service) RebuildProduct(ctx context.Context, userID, id string) (Product, error) {
	return s.writeProduct(ctx, userID, id, func(tx pgx.Tx) error {
		p, err := getProduct(ctx, tx, userID, id)
		if err != nil {
			return err
		}
		if p.Status == StatusProcessing {
			return ErrStillBuilding
		}
		var jobID string
		switch {
		case p.PhotoUploadID != "": // a draft's "Generate 3D now", a photo product's "Retry build"
			var more []events.JobView
			if more, err = lastViews(ctx, tx, p); err == nil {
				jobID, err = s.buildFromPhoto(ctx, tx, p, more)
			}
		case p.JobID != "":
			jobID, err = s.jobs.Requeue(ctx, tx, userID, p.JobID, p.Name)
		default:
			return ErrNoBuild
		}
		if err != nil {
			return err
		}
		_, err = s.store.Append(ctx, tx, productStream(id), eventstore.AnyVersion,
			events.ProductBuildStarted{ProductID: id, JobID: jobID, At: s.at()})
		return err
	})
}

// LoadProduct folds a product from the log whoever owns it (ok=false when
// the stream does not exist). Publishing reads products this way so that it
// depends on the event contract, as it does for blueprints, and a public page
// needs no owner to look one up.
func LoadProduct(ctx context.Context, q pgdb.Querier, id string) (Product, bool, error) {
	if _, err := uuid.Parse(id); err != nil {
		return Product{}, false, nil
	}
	les, err := productHistory(ctx, q, id, false)
	if err != nil {
		return Product{}, false, err
	}
	p, ok := FoldProduct(plain(les))
	return p, ok, nil
}

// ProductHistory returns the product with its build history and timeline.
func (s *Service) ProductHistory(ctx context.Context, userID, id string) (Product, []TimelineEntry, error) {
	p, err := getProduct(ctx, s.db, userID, id)
	if err != nil {
		return Product{}, nil, err
	}
	les, err := productHistory(ctx, s.db, id, true)
	if err != nil {
		return Product{}, nil, err
	}
	folded, _ := FoldProduct(plain(les))
	p.Builds, p.Config = folded.Builds, folded.Config
	jobIDs := make([]string, len(p.Builds))
	for i, b := range p.Builds {
		jobIDs[i] = b.JobID
	}
	pubs, err := publicationsOf(ctx, s.db, userID, id, jobIDs)
	if err != nil {
		return Product{}, nil, err
	}
	return p, Timeline(les, pubs), nil
}

// --- galleries ------------------------------------------------------------

// NewGallery is POST /galleries.
type NewGallery struct {
	Name, Description string
	ProductIDs        []string
	CoverProductID    string
	// Tags are the gallery's own; ThumbnailColor "" keeps the default tile colour.
	Tags           []string
	ThumbnailColor string
}

// GalleryPatch is PATCH /galleries/{id}: nil fields stay as they are.
type GalleryPatch struct {
	Name, Description *string
	Tags              *[]string
	ThumbnailColor    *string
}

// Galleries pages the merchant's galleries (readable on every plan: nothing
// is hidden when a trial ends).
func (s *Service) Galleries(ctx context.Context, userID string, p ListParams) ([]Gallery, int, error) {
	return listGalleries(ctx, s.db, userID, p)
}

// Gallery returns a gallery and its live products in order.
func (s *Service) Gallery(ctx context.Context, userID, id string) (Gallery, []Product, error) {
	g, err := getGallery(ctx, s.db, userID, id)
	if err != nil {
		return Gallery{}, nil, err
	}
	ps, err := productsByIDs(ctx, s.db, userID, g.ProductIDs)
	return g, ps, err
}

// galleriesAllowed refuses gallery changes on a plan without galleries.
func (s *Service) galleriesAllowed(ctx context.Context, tx pgx.Tx, userID string) (*int64, error) {
	_, limit, err := s.plans.Limits(ctx, tx, userID)
	if err != nil {
		return nil, err
	}
	if limit != nil && *limit == 0 {
		return nil, ErrGalleriesPro
	}
	return limit, nil
}

// checkProducts validates a product list and that every id is the owner's
// live product (another merchant's product is "not found").
func checkProducts(ctx context.Context, tx pgx.Tx, userID string, ids []string, cover string) ([]string, error) {
	ids, err := CleanProductIDs(ids, cover)
	if err != nil {
		return nil, err
	}
	owned, err := ownedLiveProducts(ctx, tx, userID, ids)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if !owned[id] {
			return nil, ErrProductNotFound
		}
	}
	return ids, nil
}

// CreateGallery creates a gallery within the plan's gallery limit.
func (s *Service) CreateGallery(ctx context.Context, userID string, in NewGallery) (Gallery, []Product, error) {
	id, err := newID()
	if err != nil {
		return Gallery{}, nil, err
	}
	return s.writeGallery(ctx, userID, id, func(tx pgx.Tx) error {
		limit, err := s.galleriesAllowed(ctx, tx, userID)
		if err != nil {
			return err
		}
		used, err := countGalleries(ctx, tx, userID)
		if err != nil {
			return err
		}
		if err := CheckGalleryLimit(limit, used); err != nil {
			return err
		}
		name, err := CleanName("gallery", in.Name)
		if err != nil {
			return err
		}
		desc, err := CleanDescription(in.Description, MaxDescriptionLength)
		if err != nil {
			return err
		}
		ids, err := checkProducts(ctx, tx, userID, in.ProductIDs, in.CoverProductID)
		if err != nil {
			return err
		}
		tags, err := CleanGalleryTags(in.Tags)
		if err != nil {
			return err
		}
		color, err := CleanGalleryColor(in.ThumbnailColor)
		if err != nil {
			return err
		}
		at := s.at()
		evs := []events.Event{events.GalleryCreated{GalleryID: id, UserID: userID, Name: name, Description: desc,
			Tags: tags, ThumbnailColor: color, At: at}}
		if len(ids) > 0 {
			evs = append(evs, events.GalleryProductsSet{GalleryID: id, ProductIDs: ids, At: at})
		}
		if in.CoverProductID != "" {
			evs = append(evs, events.GalleryCoverChosen{GalleryID: id, ProductID: in.CoverProductID, At: at})
		}
		_, err = s.store.Append(ctx, tx, galleryStream(id), 0, evs...)
		return err
	})
}

// UpdateGallery renames, re-describes, re-tags and/or re-colours a gallery
// (nil = unchanged; only real changes are appended).
func (s *Service) UpdateGallery(ctx context.Context, userID, id string, in GalleryPatch) (Gallery, []Product, error) {
	return s.writeGallery(ctx, userID, id, func(tx pgx.Tx) error {
		g, err := getGallery(ctx, tx, userID, id)
		if err != nil {
			return err
		}
		if _, err := s.galleriesAllowed(ctx, tx, userID); err != nil {
			return err
		}
		evs, err := patchEvents("gallery", in.Name, in.Description, MaxDescriptionLength, g.Name, g.Description,
			func(n string) events.Event { return events.GalleryRenamed{GalleryID: id, Name: n, At: s.at()} },
			func(d string) events.Event { return events.GalleryDescribed{GalleryID: id, Description: d, At: s.at()} })
		if err != nil {
			return err
		}
		if in.Tags != nil {
			tags, err := CleanGalleryTags(*in.Tags)
			if err != nil {
				return err
			}
			if !slices.Equal(tags, g.Tags) {
				evs = append(evs, events.GalleryTagged{GalleryID: id, Tags: tags, At: s.at()})
			}
		}
		if in.ThumbnailColor != nil {
			color, err := CleanGalleryColor(*in.ThumbnailColor)
			if err != nil {
				return err
			}
			if color != g.ThumbnailColor {
				evs = append(evs, events.GalleryColorChosen{GalleryID: id, Color: color, At: s.at()})
			}
		}
		_, err = s.store.Append(ctx, tx, galleryStream(id), eventstore.AnyVersion, evs...)
		return err
	})
}

// SetGalleryProducts replaces the gallery's products (in order) and, when
// cover is non-nil, its cover ("" clears it). A cover not among the new
// products is cleared.
func (s *Service) SetGalleryProducts(ctx context.Context, userID, id string, productIDs []string, cover *string) (Gallery, []Product, error) {
	return s.writeGallery(ctx, userID, id, func(tx pgx.Tx) error {
		g, err := getGallery(ctx, tx, userID, id)
		if err != nil {
			return err
		}
		if _, err := s.galleriesAllowed(ctx, tx, userID); err != nil {
			return err
		}
		c := ""
		if cover != nil {
			c = *cover
		}
		ids, err := checkProducts(ctx, tx, userID, productIDs, c)
		if err != nil {
			return err
		}
		at := s.at()
		var evs []events.Event
		if !slices.Equal(ids, g.ProductIDs) {
			evs = append(evs, events.GalleryProductsSet{GalleryID: id, ProductIDs: ids, At: at})
		}
		if cover != nil && c != g.CoverProductID {
			evs = append(evs, events.GalleryCoverChosen{GalleryID: id, ProductID: c, At: at})
		}
		_, err = s.store.Append(ctx, tx, galleryStream(id), eventstore.AnyVersion, evs...)
		return err
	})
}

// DeleteGallery deletes a gallery (allowed on every plan).
func (s *Service) DeleteGallery(ctx context.Context, userID, id string) error {
	return s.write(ctx, userID, func(tx pgx.Tx) error {
		if _, err := getGallery(ctx, tx, userID, id); err != nil {
			return err
		}
		_, err := s.store.Append(ctx, tx, galleryStream(id), eventstore.AnyVersion, events.GalleryDeleted{GalleryID: id, At: s.at()})
		return err
	})
}
