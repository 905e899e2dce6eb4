package catalog_test

import (
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/job"
	"github.com/photo3d/photo3d/internal/reconstruct"
)

func TestFreePlanRaceLeavesExactlyTwoProducts(t *testing.T) {
	t.Parallel()
	s := setup(t)
	user := s.env.User(t)
	bp := s.blueprint(t, user, catalog.StatusReady)
	var wg sync.WaitGroup
	errs := make([]error, 20)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.svc.CreateProduct(ctx, user, catalog.NewProduct{Name: "Chair", BlueprintID: bp})
		}()
	}
	wg.Wait()
	ok, refused := 0, 0
	for _, err := range errs {
		if err == nil {
			ok++
			continue
		}
		fe, isFault := fault.As(err)
		require.True(t, isFault, "%v", err)
		require.Equal(t, fault.Forbidden, fe.Kind)
		require.Equal(t, "Free plan limited to 2 products. Upgrade to Pro for 50 listings.", fe.Message)
		refused++
	}
	require.Equal(t, 2, ok)
	require.Equal(t, 18, refused)
	used, _, err := s.svc.Usage(ctx, user)
	require.NoError(t, err)
	require.Equal(t, 2, used)
	cs, total, err := s.svc.Catalogs(ctx, user)
	require.NoError(t, err)
	require.Len(t, cs, 1, "one default catalog, created with the first product")
	require.True(t, cs[0].IsDefault)
	require.Equal(t, 2, cs[0].ProductCount)
	require.Equal(t, 2, total)
}

func TestProductFollowsItsBuilds(t *testing.T) {
	t.Parallel()
	s := setup(t)
	user := s.env.User(t)
	bp := s.blueprint(t, user, catalog.StatusError)
	p, err := s.svc.CreateProduct(ctx, user, catalog.NewProduct{Name: "  Red   vase ", BlueprintID: bp})
	require.NoError(t, err)
	require.Equal(t, "Red vase", p.Name)
	require.Equal(t, catalog.StatusError, p.Status)
	require.Equal(t, job.BuildFailedMessage, p.FailureReason)

	// A rebuild is a new job of the same photo attached to the same product:
	// one credit held, the product is processing until the worker ends it.
	p, err = s.svc.RebuildProduct(ctx, user, p.ID)
	require.NoError(t, err)
	require.Equal(t, catalog.StatusProcessing, p.Status)
	require.NotEqual(t, bp, p.JobID)
	var reserved int64
	require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT ai_credits_reserved FROM subscriptions WHERE user_id = $1`, user).Scan(&reserved))
	require.EqualValues(t, 2, reserved)
	var riverJobs int
	require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE args->>'job_id' = $1 OR args->>'jobId' = $1`, p.JobID).Scan(&riverJobs))
	require.Equal(t, 1, riverJobs, "the River job is inserted with the product's event")

	_, err = s.svc.RebuildProduct(ctx, user, p.ID)
	require.ErrorIs(t, err, catalog.ErrStillBuilding)

	s.finish(t, p.JobID, catalog.StatusReady)
	p, tl, err := s.svc.ProductHistory(ctx, user, p.ID)
	require.NoError(t, err)
	require.Equal(t, catalog.StatusReady, p.Status)
	require.Empty(t, p.FailureReason)
	require.Equal(t, "models/"+p.JobID+"/thumbnail.png", p.ThumbnailKey)
	require.Len(t, p.Builds, 2)
	require.Equal(t, catalog.StatusError, p.Builds[0].Status)
	require.Equal(t, catalog.StatusReady, p.Builds[1].Status)
	var kinds []string
	for _, e := range tl {
		kinds = append(kinds, e.Kind)
	}
	require.Equal(t, []string{catalog.TimelineUploaded, catalog.TimelineBuildFailed, catalog.TimelineCreated,
		catalog.TimelineModelAttached, catalog.TimelineUploaded, catalog.TimelineRebuild, catalog.TimelineMesh,
		catalog.TimelineMaterials}, kinds)
}

func TestDeletingACatalogMovesItsProductsToTheDefault(t *testing.T) {
	t.Parallel()
	s := setup(t)
	user := s.env.User(t)
	bp := s.blueprint(t, user, catalog.StatusReady)
	first, err := s.svc.CreateProduct(ctx, user, catalog.NewProduct{Name: "Lamp", BlueprintID: bp})
	require.NoError(t, err)
	summer, err := s.svc.CreateCatalog(ctx, user, "Summer", "Light things")
	require.NoError(t, err)
	second, err := s.svc.CreateProduct(ctx, user, catalog.NewProduct{Name: "Hat", BlueprintID: bp, CatalogID: summer.ID})
	require.NoError(t, err)
	require.Equal(t, summer.ID, second.CatalogID)

	require.ErrorIs(t, s.svc.DeleteCatalog(ctx, user, first.CatalogID), catalog.ErrDefaultCatalog)
	require.NoError(t, s.svc.DeleteCatalog(ctx, user, summer.ID))
	moved, err := s.svc.Product(ctx, user, second.ID)
	require.NoError(t, err)
	require.Equal(t, first.CatalogID, moved.CatalogID)
	_, err = s.svc.Catalog(ctx, user, summer.ID)
	require.ErrorIs(t, err, catalog.ErrCatalogNotFound)
}

func TestGalleriesFollowThePlan(t *testing.T) {
	t.Parallel()
	s := setup(t)
	user := s.env.User(t)
	_, _, err := s.svc.CreateGallery(ctx, user, catalog.NewGallery{Name: "Spring"})
	fe, ok := fault.As(err)
	require.True(t, ok, "%v", err)
	require.Equal(t, fault.Forbidden, fe.Kind)
	require.Equal(t, "Galleries are a Pro feature (Pro allows up to 10 galleries and public sharing of collections).", fe.Message)

	s.trial(t, user)
	for i := range 10 {
		_, _, err := s.svc.CreateGallery(ctx, user, catalog.NewGallery{Name: "G" + string(rune('a'+i))})
		require.NoError(t, err)
	}
	_, _, err = s.svc.CreateGallery(ctx, user, catalog.NewGallery{Name: "Eleventh"})
	require.True(t, fault.IsKind(err, fault.Forbidden), "%v", err)
}

func TestGalleryProductsAreOwnedAndOrdered(t *testing.T) {
	t.Parallel()
	s := setup(t)
	user, other := s.env.User(t), s.env.User(t)
	s.trial(t, user)
	ready := s.blueprint(t, user, catalog.StatusReady)
	failed := s.blueprint(t, user, catalog.StatusError)
	a, err := s.svc.CreateProduct(ctx, user, catalog.NewProduct{Name: "A", BlueprintID: ready})
	require.NoError(t, err)
	b, err := s.svc.CreateProduct(ctx, user, catalog.NewProduct{Name: "B", BlueprintID: failed})
	require.NoError(t, err)
	theirs, err := s.svc.CreateProduct(ctx, other, catalog.NewProduct{Name: "X", BlueprintID: s.blueprint(t, other, catalog.StatusReady)})
	require.NoError(t, err)

	_, _, err = s.svc.CreateGallery(ctx, user, catalog.NewGallery{Name: "Mine", ProductIDs: []string{a.ID, theirs.ID}})
	require.ErrorIs(t, err, catalog.ErrProductNotFound)

	g, ps, err := s.svc.CreateGallery(ctx, user, catalog.NewGallery{Name: "Mine", ProductIDs: []string{b.ID, a.ID}, CoverProductID: a.ID})
	require.NoError(t, err)
	require.Equal(t, []string{b.ID, a.ID}, []string{ps[0].ID, ps[1].ID})
	require.Equal(t, catalog.StatusError, g.Status, "a failed product needs attention")
	require.Equal(t, "models/"+ready+"/thumbnail.png", g.CoverKey)

	cover := ""
	g, _, err = s.svc.SetGalleryProducts(ctx, user, g.ID, []string{a.ID}, &cover)
	require.NoError(t, err)
	require.Equal(t, catalog.StatusReady, g.Status)
	require.Equal(t, "", g.CoverProductID)
	require.Equal(t, "models/"+ready+"/thumbnail.png", g.CoverKey, "without a chosen cover the first product's thumbnail is used")

	_, _, err = s.svc.Gallery(ctx, other, g.ID)
	require.ErrorIs(t, err, catalog.ErrGalleryNotFound)
}

// TestReplayEqualsIncremental rebuilds the three read models from the log
// after a history touching every event type and compares them row for row.
func TestReplayEqualsIncremental(t *testing.T) {
	t.Parallel()
	s := setup(t)
	user := s.env.User(t)
	s.trial(t, user)
	bp := s.blueprint(t, user, catalog.StatusReady)
	p1, err := s.svc.CreateProduct(ctx, user, catalog.NewProduct{Name: "One", BlueprintID: bp})
	require.NoError(t, err)
	p2, err := s.svc.CreateProduct(ctx, user, catalog.NewProduct{Name: "Two", BlueprintID: s.blueprint(t, user, catalog.StatusError)})
	require.NoError(t, err)
	name, desc, u, tags := "Uno", "A fine thing", "https://shop.example.com/one", []string{"red", "sale"}
	_, err = s.svc.UpdateProduct(ctx, user, p1.ID, catalog.ProductPatch{Name: &name, Description: &desc, ProductURL: &u, Tags: &tags})
	require.NoError(t, err)
	c, err := s.svc.CreateCatalog(ctx, user, "Extra", "")
	require.NoError(t, err)
	_, err = s.svc.UpdateCatalog(ctx, user, c.ID, &name, &desc)
	require.NoError(t, err)
	_, err = s.svc.UpdateProduct(ctx, user, p2.ID, catalog.ProductPatch{CatalogID: &c.ID})
	require.NoError(t, err)
	p2, err = s.svc.RebuildProduct(ctx, user, p2.ID)
	require.NoError(t, err)
	s.finish(t, p2.JobID, catalog.StatusReady)
	require.NoError(t, s.svc.DeleteCatalog(ctx, user, c.ID))
	g, _, err := s.svc.CreateGallery(ctx, user, catalog.NewGallery{Name: "G", ProductIDs: []string{p1.ID, p2.ID}, CoverProductID: p2.ID,
		Tags: []string{"spring"}, ThumbnailColor: "#112233"})
	require.NoError(t, err)
	gTags, gColor := []string{"summer", "sale"}, "#abcdef"
	_, _, err = s.svc.UpdateGallery(ctx, user, g.ID, catalog.GalleryPatch{Name: &name, Description: &desc, Tags: &gTags, ThumbnailColor: &gColor})
	require.NoError(t, err)
	_, _, err = s.svc.SetGalleryProducts(ctx, user, g.ID, []string{p2.ID, p1.ID}, nil)
	require.NoError(t, err)
	g2, _, err := s.svc.CreateGallery(ctx, user, catalog.NewGallery{Name: "Gone"})
	require.NoError(t, err)
	require.NoError(t, s.svc.DeleteGallery(ctx, user, g2.ID))
	require.NoError(t, s.svc.DeleteProduct(ctx, user, p1.ID))
	configure(t, s.svc, user, p2.ID)
	photoProducts(t, s, user) // three more products: draft, draft built later, generated and failed

	before := snapshot(t, s.env.DB.Pool)
	require.Len(t, before, 2+5+2)
	tx, err := s.env.DB.Pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	_, err = tx.Exec(ctx, `DELETE FROM products; DELETE FROM catalogs; DELETE FROM galleries`)
	require.NoError(t, err)
	require.NoError(t, catalog.Rebuild(ctx, tx))
	require.Equal(t, before, snapshot(t, tx))
	_ = pgx.ErrNoRows
}

// seeded is one product of the filter table with the values the oracle checks.
type seeded struct {
	id, name, status string
	created          time.Time
}

// TestListFiltersSortAndPagesInSQL checks GET /products parameters against
// an independent oracle over the seeded products.
func TestListFiltersSortAndPagesInSQL(t *testing.T) {
	t.Parallel()
	s := setup(t)
	user, other := s.env.User(t), s.env.User(t)
	s.trial(t, user)
	bps := map[string]string{
		catalog.StatusReady:      s.blueprint(t, user, catalog.StatusReady),
		catalog.StatusError:      s.blueprint(t, user, catalog.StatusError),
		catalog.StatusProcessing: s.blueprint(t, user, "processing"),
	}
	statuses := []string{catalog.StatusReady, catalog.StatusError, catalog.StatusProcessing}
	names := []string{"oak table", "Birch chair", "pine shelf", "Oak stool", "maple desk", "teak bench", "elm lamp",
		"ash cabinet", "cedar box", "walnut tray", "Cherry bowl", "beech frame"}
	base := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	var all []seeded
	for i, n := range names {
		created := base.Add(time.Duration(i) * 12 * time.Hour) // two per calendar day
		st := statuses[i%3]
		svc := s.svc.WithClock(func() time.Time { return created })
		p, err := svc.CreateProduct(ctx, user, catalog.NewProduct{Name: n, BlueprintID: bps[st]})
		require.NoError(t, err)
		all = append(all, seeded{p.ID, n, st, created})
	}
	_, err := s.svc.CreateProduct(ctx, other, catalog.NewProduct{Name: "oak other", BlueprintID: s.blueprint(t, other, catalog.StatusReady)})
	require.NoError(t, err)

	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	oracle := func(statuses []string, from, to, q, sortBy string) []string {
		var m []seeded
		for _, p := range all {
			if len(statuses) > 0 && !contains(statuses, p.status) {
				continue
			}
			if from != "" && p.created.Before(day(from)) {
				continue
			}
			if to != "" && !p.created.Before(day(to).AddDate(0, 0, 1)) {
				continue
			}
			if q != "" && !strings.Contains(strings.ToLower(p.name), strings.ToLower(q)) {
				continue
			}
			m = append(m, p)
		}
		sort.Slice(m, func(i, j int) bool {
			if sortBy == "name" {
				return strings.ToLower(m[i].name) < strings.ToLower(m[j].name)
			}
			return m[i].created.After(m[j].created)
		})
		ids := []string{}
		for _, p := range m {
			ids = append(ids, p.id)
		}
		return ids
	}
	page := func(ids []string, page, size int) []string {
		lo := min((page-1)*size, len(ids))
		return ids[lo:min(lo+size, len(ids))]
	}
	for _, c := range []struct {
		query               string
		statuses            []string
		from, to, q, sortBy string
		pageNo, pageSize    int
	}{
		{"", nil, "", "", "", "newest", 1, 10},
		{"page=2", nil, "", "", "", "newest", 2, 10},
		{"page=3", nil, "", "", "", "newest", 3, 10},
		{"sort=name&pageSize=20", nil, "", "", "", "name", 1, 20},
		{"status=ready", []string{"ready"}, "", "", "", "newest", 1, 10},
		{"status=ready,error&sort=name", []string{"ready", "error"}, "", "", "", "name", 1, 10},
		{"status=processing&pageSize=30", []string{"processing"}, "", "", "", "newest", 1, 30},
		{"from=2025-03-02&to=2025-03-03", nil, "2025-03-02", "2025-03-03", "", "newest", 1, 10},
		{"from=2025-03-04", nil, "2025-03-04", "", "", "newest", 1, 10},
		{"to=2025-03-01", nil, "", "2025-03-01", "", "newest", 1, 10},
		{"q=OAK", nil, "", "", "oak", "newest", 1, 10},
		{"q=e&status=error&from=2025-03-02&sort=name&pageSize=50", []string{"error"}, "2025-03-02", "", "e", "name", 1, 50},
		{"from=2025-04-01", nil, "2025-04-01", "", "", "newest", 1, 10},
	} {
		t.Run(c.query, func(t *testing.T) {
			vals, err := url.ParseQuery(c.query)
			require.NoError(t, err)
			p, err := catalog.ParseListParams(vals)
			require.NoError(t, err)
			items, total, err := s.svc.Products(ctx, user, p)
			require.NoError(t, err)
			want := oracle(c.statuses, c.from, c.to, c.q, c.sortBy)
			require.Equal(t, len(want), total)
			got := []string{}
			for _, it := range items {
				got = append(got, it.ID)
			}
			require.Equal(t, page(want, c.pageNo, c.pageSize), got)
		})
	}
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// TestRealWorkerCompletesTheProduct runs River with the real worker and the
// built-in reconstructor: the product learns its build finished in the
// worker's own completion transaction, with no poller in between.
func TestRealWorkerCompletesTheProduct(t *testing.T) {
	t.Parallel()
	s := setup(t)
	user := s.env.User(t)
	bp := s.blueprint(t, user, "processing")
	p, err := s.svc.CreateProduct(ctx, user, catalog.NewProduct{Name: "Vase", BlueprintID: bp})
	require.NoError(t, err)
	require.Equal(t, catalog.StatusProcessing, p.Status)
	s.env.StartWorker(t, reconstruct.NewBuiltin())
	j := s.env.WaitFor(t, user, bp, 90*time.Second, func(j job.Job) bool { return j.Terminal() })
	require.Equal(t, job.StatusCompleted, j.Status, j.Error)
	p, err = s.svc.Product(ctx, user, p.ID)
	require.NoError(t, err)
	require.Equal(t, catalog.StatusReady, p.Status)
	require.Equal(t, j.ThumbnailKey, p.ThumbnailKey)
	require.Equal(t, j.ModelKey, p.ModelKey)
}

// configure appends every configuration event type to a product (issue 13).
func configure(t *testing.T, svc *catalog.Service, user, id string) {
	t.Helper()
	mat, sku, cur, name, title := "leather-tan", "SKU-1", "INR", "Tan", "Toe"
	price := 1299.0
	_, v2, err := svc.AddVariant(ctx, user, id, catalog.VariantInput{Material: &mat, SKU: &sku, Price: &price, PriceSet: true, Currency: &cur})
	require.NoError(t, err)
	_, v3, err := svc.AddVariant(ctx, user, id, catalog.VariantInput{})
	require.NoError(t, err)
	_, err = svc.ChangeVariant(ctx, user, id, v2, catalog.VariantInput{Name: &name})
	require.NoError(t, err)
	pos, normal := [3]float64{0.1, 0.2, 0.3}, [3]float64{0, 0, 1}
	_, h1, err := svc.PlaceHotspot(ctx, user, id, catalog.HotspotInput{Position: &pos, Normal: &normal})
	require.NoError(t, err)
	_, h2, err := svc.PlaceHotspot(ctx, user, id, catalog.HotspotInput{Position: &pos, Normal: &normal})
	require.NoError(t, err)
	_, err = svc.MoveHotspot(ctx, user, id, h1, catalog.HotspotInput{Title: &title})
	require.NoError(t, err)
	_, err = svc.RemoveHotspot(ctx, user, id, h2)
	require.NoError(t, err)
	_, _, err = svc.AddLink(ctx, user, id, "amazon.in/dp/B0X", "")
	require.NoError(t, err)
	_, l2, err := svc.AddLink(ctx, user, id, "etsy.com/listing/1", v2)
	require.NoError(t, err)
	_, _, err = svc.AddLink(ctx, user, id, "flipkart.com/p/1", v3)
	require.NoError(t, err)
	_, err = svc.RemoveLink(ctx, user, id, l2)
	require.NoError(t, err)
	_, err = svc.RemoveVariant(ctx, user, id, v3)
	require.NoError(t, err)
	p, err := svc.SetPresets(ctx, user, id, catalog.Presets{Lighting: "Outdoor", Background: "Gradient", BackgroundColor: "#112233",
		CameraOrbit: "10deg 80deg 3m", Autospin: false})
	require.NoError(t, err)
	require.Len(t, p.Config.Variants, 2)
	require.Len(t, p.Config.Hotspots, 1)
	require.Len(t, p.Config.Links, 1, "v3's link went with it")
	require.Equal(t, "Outdoor", p.Config.Presets.Lighting)
}

// Issue 29 item 13: search covers the description and tags, and status=live
// lists the products whose public page is published (alone, or beside a
// ticked status).
func TestListSearchesDetailsAndFiltersLive(t *testing.T) {
	t.Parallel()
	s := setup(t)
	user := s.env.User(t)
	s.trial(t, user)
	bp := s.blueprint(t, user, catalog.StatusReady)
	mk := func(name, description string, tags []string) catalog.Product {
		p, err := s.svc.CreateProduct(ctx, user, catalog.NewProduct{Name: name, BlueprintID: bp})
		require.NoError(t, err)
		p, err = s.svc.UpdateProduct(ctx, user, p.ID, catalog.ProductPatch{Description: &description, Tags: &tags})
		require.NoError(t, err)
		return p
	}
	vase := mk("Vase", "Hand-glazed stoneware", []string{"ceramic"})
	lamp := mk("Lamp", "Brass and linen", []string{"lighting", "living-room"})
	names := func(query string) []string {
		ps, _, err := s.svc.Products(ctx, user, mustParams(t, query))
		require.NoError(t, err)
		out := []string{}
		for _, p := range ps {
			out = append(out, p.Name)
		}
		return out
	}
	require.Equal(t, []string{"Vase"}, names("q=stoneware"))
	require.Equal(t, []string{"Vase"}, names("q=CERAMIC"))
	require.Equal(t, []string{"Lamp"}, names("q=living"))
	require.Empty(t, names("status=live"))

	now := time.Now()
	_, err := s.env.DB.Pool.Exec(ctx, `INSERT INTO publications (id, user_id, blueprint_id, product_id, slug, created_at, updated_at)
		VALUES ('pub1', $1, '', $2, 'lamp', $3, $3)`, user, lamp.ID, now)
	require.NoError(t, err)
	require.Equal(t, []string{"Lamp"}, names("status=live"))
	require.ElementsMatch(t, []string{"Lamp", "Vase"}, names("status=live,ready"))
	got, err := s.svc.Product(ctx, user, lamp.ID)
	require.NoError(t, err)
	require.True(t, got.Live)
	got, err = s.svc.Product(ctx, user, vase.ID)
	require.NoError(t, err)
	require.False(t, got.Live)

	_, err = s.env.DB.Pool.Exec(ctx, `UPDATE publications SET unpublished_at = $1 WHERE id = 'pub1'`, now)
	require.NoError(t, err)
	require.Empty(t, names("status=live"))
}

// Issue 50 item 17: the products list's q matches the name, the
// description, any tag and the catalog's name, each on its own (a phrase
// spanning two fields is not a match), ignoring case, with the merchant's
// text taken literally (no LIKE wildcards, no SQL).
func TestListSearchesCatalogNameAndEachFieldAlone(t *testing.T) {
	t.Parallel()
	s := setup(t)
	user := s.env.User(t)
	s.trial(t, user)
	bp := s.blueprint(t, user, catalog.StatusReady)
	kitchen, err := s.svc.CreateCatalog(ctx, user, "Kitchen Collection", "")
	require.NoError(t, err)
	mk := func(name, description string, tags []string, catalogID string) {
		p, err := s.svc.CreateProduct(ctx, user, catalog.NewProduct{Name: name, BlueprintID: bp, CatalogID: catalogID})
		require.NoError(t, err)
		_, err = s.svc.UpdateProduct(ctx, user, p.ID, catalog.ProductPatch{Description: &description, Tags: &tags})
		require.NoError(t, err)
	}
	mk("Red Mug", "Stoneware, 300 ml", []string{"tableware", "50%_off"}, kitchen.ID)
	mk("Lamp", "Brass and linen", []string{"lighting"}, "")
	names := func(q string) []string {
		ps, total, err := s.svc.Products(ctx, user, mustParams(t, "q="+url.QueryEscape(q)))
		require.NoError(t, err)
		out := []string{}
		for _, p := range ps {
			out = append(out, p.Name)
		}
		require.Equal(t, len(out), total)
		return out
	}
	require.Equal(t, []string{"Red Mug"}, names("kitchen"), "catalog name")
	require.Equal(t, []string{"Red Mug"}, names("COLLECTION"), "catalog name, any case")
	require.Equal(t, []string{"Red Mug"}, names("tableware"), "tag")
	require.Equal(t, []string{"Red Mug"}, names("300 ML"), "description")
	require.Equal(t, []string{"Lamp"}, names("lamp"), "name")
	require.Empty(t, names("mug stoneware"), "name and description are not one string")
	require.Empty(t, names("linen lighting"), "description and tags are not one string")
	require.Equal(t, []string{"Red Mug"}, names("50%_"), "% and _ are literal")
	require.Empty(t, names("5_%"), "no wildcards")
	require.Empty(t, names("' OR 1=1 --"), "parameterised")

	// The catalog's name is read live: renaming it changes what matches.
	pantry := "Pantry"
	_, err = s.svc.UpdateCatalog(ctx, user, kitchen.ID, &pantry, nil)
	require.NoError(t, err)
	require.Empty(t, names("kitchen"))
	require.Equal(t, []string{"Red Mug"}, names("pantry"))
	// Within one catalog the same search applies.
	ps, _, err := s.svc.CatalogProducts(ctx, user, kitchen.ID, mustParams(t, "q=pantry"))
	require.NoError(t, err)
	require.Len(t, ps, 1)
}
