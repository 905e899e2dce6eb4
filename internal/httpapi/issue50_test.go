package httpapi

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/glbvariants/glbtest"
	"github.com/photo3d/photo3d/internal/job/jobtest"
)

// ok50 makes a request as user that must succeed and returns its data.
func (s privacyStack) ok50(t *testing.T, user, method, path string, body any) []byte {
	t.Helper()
	rec, r := s.json(t, user, method, path, body)
	require.Less(t, rec.Code, 300, rec.Body.String())
	return r.Data
}

// labelled50 is what these tests read of a blueprint, product, search hit,
// dashboard card or notification.
type labelled50 struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Label     string `json:"label"`
	Type      string `json:"type"`
	Title     string `json:"title"`
	Message   string `json:"message"`
	MatchedOn string `json:"matchedOn"`
}

// Issue 50 item 14 (merchant walk 4, H14): renaming a product renames the
// builds that carry its old name (its models in My Blueprints and the Add
// product dialog), the dashboard's cards, search and the notifications that
// name it; a blueprint the merchant named otherwise, or one another product
// uses as its model, keeps its own name.
func TestRenamingAProductRenamesItsModelsCardsAndNotifications(t *testing.T) {
	t.Parallel()
	s := newPrivacyStack(t)
	user := s.env.User(t)
	startTrialFor(t, s.creationStack, user)

	// A product made from a photo, then given a new photo: two builds, both
	// named after the product, as the merchant walk did it.
	photo := s.uploadID(t, user, jobtest.PNG(t, 160, 200))
	p := decodeAs[labelled50](t, s.ok50(t, user, "POST", "/api/products",
		map[string]any{"name": "Espresso Cup & Saucer", "uploadId": photo, "generate": true}))
	first := decodeAs[struct {
		JobID string `json:"jobId"`
	}](t, s.ok50(t, user, "GET", "/api/products/"+p.ID, nil)).JobID
	s.env.Finish(t, first, "")
	again := s.uploadID(t, user, jobtest.PNG(t, 160, 200))
	second := decodeAs[struct {
		JobID string `json:"jobId"`
	}](t, s.ok50(t, user, "POST", "/api/products/"+p.ID+"/photo", map[string]any{"uploadId": again})).JobID
	s.env.Finish(t, second, "")
	// A blueprint the merchant named themselves, made into a second product.
	lampJob := s.env.Blueprint(t, user, "ready")
	s.ok50(t, user, "PATCH", "/api/blueprints/"+lampJob, map[string]any{"name": "Lamp photo 1"})
	lamp := decodeAs[labelled50](t, s.ok50(t, user, "POST", "/api/products", map[string]any{"name": "Desk Lamp", "blueprintId": lampJob}))
	s.drain(t)

	s.ok50(t, user, "PATCH", "/api/products/"+p.ID, map[string]any{"name": "Red Mug"})
	s.ok50(t, user, "PATCH", "/api/products/"+lamp.ID, map[string]any{"name": "Reading Lamp"})
	s.drain(t)

	blueprints := decodeAs[struct{ Items []labelled50 }](t, s.ok50(t, user, "GET", "/api/blueprints", nil)).Items
	byID := map[string]string{}
	for _, b := range blueprints {
		byID[b.ID] = b.Name
	}
	require.Equal(t, map[string]string{first: "Red Mug", second: "Red Mug", lampJob: "Lamp photo 1"}, byID,
		"the product's builds follow its name; a blueprint named otherwise keeps its name")

	recent := decodeAs[struct{ Recent []labelled50 }](t, s.ok50(t, user, "GET", "/api/dashboard", nil)).Recent
	require.NotEmpty(t, recent)
	for _, it := range recent {
		require.NotContains(t, it.Label, "Espresso", "dashboard card %s", it.ID)
		require.NotContains(t, it.Label, "Desk Lamp", "dashboard card %s", it.ID)
	}

	notes := decodeAs[struct{ Items []labelled50 }](t, s.ok50(t, user, "GET", "/api/notifications", nil)).Items
	named := 0
	for _, n := range notes {
		require.NotContains(t, n.Title+n.Message, "Espresso", "notification %q", n.Title)
		if strings.Contains(n.Message, "“Red Mug”") {
			named++
		}
	}
	require.Equal(t, 2, named, "both builds' notifications name the product by its current name")

	search := func(q string) []string {
		items := decodeAs[struct{ Items []labelled50 }](t, s.ok50(t, user, "GET", "/api/search?q="+url.QueryEscape(q), nil)).Items
		out := []string{}
		for _, it := range items {
			out = append(out, it.Type+" "+it.Label)
		}
		return out
	}
	require.Empty(t, search("espresso"))
	require.ElementsMatch(t, []string{"Product Red Mug", "Blueprint Red Mug", "Blueprint Red Mug"}, search("red mug"))

	// A build another live product uses as its model is that product's too:
	// it keeps its name when one of them is renamed.
	shared := decodeAs[labelled50](t, s.ok50(t, user, "POST", "/api/products", map[string]any{"name": "Red Mug", "blueprintId": second}))
	s.ok50(t, user, "PATCH", "/api/products/"+p.ID, map[string]any{"name": "Crimson Mug"})
	s.drain(t)
	blueprints = decodeAs[struct{ Items []labelled50 }](t, s.ok50(t, user, "GET", "/api/blueprints", nil)).Items
	for _, b := range blueprints {
		byID[b.ID] = b.Name
	}
	require.Equal(t, "Crimson Mug", byID[first])
	require.Equal(t, "Red Mug", byID[second], "still the model of %s", shared.ID)
}

// Issue 50 item 17: the top bar's search keeps the promise of its hint:
// product names, tags, descriptions and catalog names, and gallery names
// and descriptions, each on its own, any case, the text taken literally;
// a hit found through something other than its label says what matched.
func TestSearchMatchesTagsDescriptionsAndCatalogs(t *testing.T) {
	t.Parallel()
	s := newPrivacyStack(t)
	user := s.env.User(t)
	startTrialFor(t, s.creationStack, user)
	bp := s.env.Blueprint(t, user, "ready")
	cat := decodeAs[labelled50](t, s.ok50(t, user, "POST", "/api/catalogs", map[string]any{"name": "Kitchen Collection"})).ID
	mug := decodeAs[labelled50](t, s.ok50(t, user, "POST", "/api/products", map[string]any{"name": "Red Mug", "blueprintId": bp, "catalogId": cat})).ID
	s.ok50(t, user, "PATCH", "/api/products/"+mug, map[string]any{"description": "Stoneware, 300 ml", "tags": []string{"tableware", "50%_off"}})
	lamp := decodeAs[labelled50](t, s.ok50(t, user, "POST", "/api/products", map[string]any{"name": "Lamp", "blueprintId": bp})).ID
	s.ok50(t, user, "POST", "/api/galleries", map[string]any{"name": "Summer", "description": "Outdoor dining", "productIds": []string{lamp}})
	other := s.env.User(t)
	startTrialFor(t, s.creationStack, other)
	theirs := decodeAs[labelled50](t, s.ok50(t, other, "POST", "/api/products", map[string]any{"name": "Their cup", "blueprintId": s.env.Blueprint(t, other, "ready")})).ID
	s.ok50(t, other, "PATCH", "/api/products/"+theirs, map[string]any{"tags": []string{"tableware"}})
	s.drain(t)

	search := func(user, q string) []string {
		rec, r := s.json(t, user, "GET", "/api/search?q="+url.QueryEscape(q), nil)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		out := []string{}
		for _, it := range decodeAs[struct{ Items []labelled50 }](t, r.Data).Items {
			out = append(out, strings.TrimSpace(it.Type+" "+it.Label+" "+it.MatchedOn))
		}
		return out
	}
	require.Equal(t, []string{"Product Red Mug tag “tableware”"}, search(user, "TABLEWARE"), "a tag, only the caller's")
	require.Equal(t, []string{"Product Red Mug description"}, search(user, "300 ml"))
	require.Equal(t, []string{"Product Red Mug catalog “Kitchen Collection”"}, search(user, "kitchen"))
	require.Equal(t, []string{"Gallery Summer description"}, search(user, "dining"))
	require.Equal(t, []string{"Product Red Mug"}, search(user, "mug"), "a label match says nothing more")
	require.Empty(t, search(user, "mug stoneware"), "fields are not joined into one text")
	require.Equal(t, []string{"Product Red Mug tag “50%_off”"}, search(user, "50%_"), "% and _ are literal")
	require.Empty(t, search(user, "5_%"))
	require.Empty(t, search(user, "' OR ''='"))
}

// Issue 50 item 6 (merchant walk 4, H5), end to end: a Pro merchant with a
// live product page and a live gallery page switches to Free. The
// subscription says beforehand how many pages are live (the Switch to Free
// dialog warns with it), shoppers are turned away afterwards, and the
// notification and the dashboard name the plan as the cause.
func TestSwitchingToFreeSaysWhichPagesGoOfflineAndWhy(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newPrivacyStack(t)
	user := s.env.User(t)
	startTrialFor(t, s.creationStack, user)
	bp := s.env.Blueprint(t, user, "ready")
	require.NoError(t, s.env.Blobs.Bucket.WriteAll(ctx, "models/"+bp+"/model.glb", glbtest.Model(t), nil))
	product := decodeAs[labelled50](t, s.ok50(t, user, "POST", "/api/products", map[string]any{"name": "Red Mug", "blueprintId": bp})).ID
	gallery := decodeAs[labelled50](t, s.ok50(t, user, "POST", "/api/galleries", map[string]any{"name": "Summer", "productIds": []string{product}})).ID
	page := decodeAs[struct {
		Slug string `json:"slug"`
	}](t, s.ok50(t, user, "POST", "/api/products/"+product+"/publish", map[string]any{})).Slug
	s.ok50(t, user, "POST", "/api/galleries/"+gallery+"/publish", nil)

	type subView struct {
		EffectivePlan string `json:"effectivePlan"`
		LivePages     struct {
			Products, Galleries, Blueprints int
		} `json:"livePages"`
	}
	sub := decodeAs[subView](t, s.ok50(t, user, "GET", "/api/subscription", nil))
	require.Equal(t, 1, sub.LivePages.Products)
	require.Equal(t, 1, sub.LivePages.Galleries)
	require.Equal(t, 0, sub.LivePages.Blueprints)

	sub = decodeAs[subView](t, s.ok50(t, user, "POST", "/api/subscription/plan", map[string]any{"plan": "free"}))
	require.Equal(t, "free", sub.EffectivePlan)
	require.Equal(t, 1, sub.LivePages.Products, "still published: nothing was unpublished")
	s.drain(t)

	notes := decodeAs[struct{ Items []labelled50 }](t, s.ok50(t, user, "GET", "/api/notifications", nil)).Items
	require.Equal(t, "Your public pages are offline", notes[0].Title)
	require.Contains(t, notes[0].Message, "You switched to the Free plan, which includes no public views, so shoppers can no longer open your 2 live pages")
	insights := decodeAs[struct{ Insights []labelled50 }](t, s.ok50(t, user, "GET", "/api/dashboard", nil)).Insights
	require.Equal(t, "Your public pages are offline", insights[0].Title)

	// A shopper now gets the polite notice; the notification that follows
	// blames the plan, not views "used up".
	rec := s.send(t, "", "GET", "/v/"+page+"?vid=viewer-issue50-item6", "")
	require.Contains(t, rec.Body.String(), "temporarily unavailable")
	s.drain(t)
	notes = decodeAs[struct{ Items []labelled50 }](t, s.ok50(t, user, "GET", "/api/notifications", nil)).Items
	for _, n := range notes {
		require.NotContains(t, n.Title+n.Message, "used up", "notification %q", n.Title)
	}
	require.Equal(t, "A shopper could not open your page", notes[0].Title)
}
