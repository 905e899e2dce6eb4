package httpapi

import (
	"context"
	"net/http"
	"regexp"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/job/jobtest"
	"github.com/photo3d/photo3d/internal/pgdb"

	"github.com/photo3d/photo3d/internal/subscription"
)

// GET /api/products answers the spec's list-item extras from real data
// (issue 50 item 16): the brand, the model's dominant colour and its tint, the
// fidelity of a ready build and a build's progress; and a build's parts carry a
// description derived from what was measured.
func TestProductListItemsCarryTheSpecsExtras(t *testing.T) {
	t.Parallel()
	s := newCatalogueStack(t)
	user := s.env.User(t)
	bp := s.env.Blueprint(t, user, "ready")
	rec, _ := s.json(t, user, "POST", "/api/products", map[string]any{"name": "Oak chair", "blueprintId": bp})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())

	rec, r := s.json(t, user, "GET", "/api/products", nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	type cardPage struct {
		Items        []productView `json:"items"`
		HiddenByPlan int           `json:"hiddenByPlan"`
	}
	page := decodeAs[cardPage](t, r.Data)
	require.Len(t, page.Items, 1)
	it := page.Items[0]
	require.Equal(t, "Your Brand", it.Brand, "an unset brand reads as the share pages' default")
	require.Regexp(t, `^#[0-9A-F]{6}$`, it.AccentColor)
	require.Regexp(t, `^rgba\(\d+, \d+, \d+, 0\.12\)$`, it.AccentOverlay)
	require.Equal(t, 100, it.ProcessingProgress, "a ready product's build is done")
	require.NotNil(t, it.BuildWarnings, "a list, empty when all is well")
	require.Empty(t, it.BuildWarnings)
	require.Zero(t, page.HiddenByPlan)

	// A product whose photo cut it off carries the builder's warning, on its card and its page.
	cut := "The product runs off the top edge of the photo, so the model stops there: the part outside the photo is missing. " +
		"For a faithful model, use a photo with the whole product in view and some space around it."
	warned, err := s.env.Jobs.Create(context.Background(), user, s.env.UploadPhoto(t, user, jobtest.PNG(t, 96, 96)))
	require.NoError(t, err)
	s.env.Finish(t, warned.ID, "", cut)
	rec, r = s.json(t, user, "POST", "/api/products", map[string]any{"name": "Tall lamp", "blueprintId": warned.ID})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	lamp := decodeAs[struct {
		ID            string   `json:"id"`
		BuildWarnings []string `json:"buildWarnings"`
	}](t, r.Data)
	require.Equal(t, []string{cut}, lamp.BuildWarnings)
	rec, r = s.json(t, user, "GET", "/api/products?q=Tall", nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	page = decodeAs[cardPage](t, r.Data)
	require.Len(t, page.Items, 1)
	require.Equal(t, []string{cut}, page.Items[0].BuildWarnings)

	rec, r = s.json(t, user, "GET", "/api/jobs/"+bp, nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	job := decodeAs[struct {
		Parts []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		} `json:"parts"`
	}](t, r.Data)
	require.NotEmpty(t, job.Parts)
	for _, p := range job.Parts {
		require.Regexp(t, regexp.MustCompile(`^`+regexp.QuoteMeta(p.Name)+` (covers \d+% of the product's outline|is the whole product)`), p.Description)
	}
}

// After a downgrade the list shows only the plan's productLimit products, the
// oldest ones, and says how many more are kept (spec §6).
func TestFreePlanCutsTheProductListToItsLimit(t *testing.T) {
	t.Parallel()
	s := newCatalogueStack(t)
	user := s.env.User(t)
	startTrialFor(t, s, user)
	bp := s.env.Blueprint(t, user, "ready")
	for _, name := range []string{"First", "Second", "Third"} {
		rec, _ := s.json(t, user, "POST", "/api/products", map[string]any{"name": name, "blueprintId": bp})
		require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	}
	type page struct {
		Items []struct {
			Name string `json:"name"`
		} `json:"items"`
		Total        int `json:"total"`
		HiddenByPlan int `json:"hiddenByPlan"`
	}
	rec, r := s.json(t, user, "GET", "/api/products?sort=name", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, 3, decodeAs[page](t, r.Data).Total, "the trial lists them all")

	require.NoError(t, pgdb.WithTx(context.Background(), s.env.DB.Pool, func(tx pgx.Tx) error {
		_, err := s.env.Subs.ChangePlan(context.Background(), tx, user, subscription.PlanFree)
		return err
	}))
	for _, q := range []string{"sort=name", "sort=newest", "q=Third"} {
		rec, r = s.json(t, user, "GET", "/api/products?"+q, nil)
		require.Equal(t, http.StatusOK, rec.Code)
		got := decodeAs[page](t, r.Data)
		names := []string{}
		for _, it := range got.Items {
			names = append(names, it.Name)
		}
		if q == "q=Third" {
			require.Empty(t, names, "a search does not reach past the plan's cut")
		} else {
			require.ElementsMatch(t, []string{"First", "Second"}, names, q)
			require.Equal(t, 2, got.Total, q)
		}
		require.Equal(t, 1, got.HiddenByPlan, q)
	}
}

// A draft's photo is replaced without a build or a credit (issue 50 P12).
func TestReplacingADraftsPhotoBuildsNothing(t *testing.T) {
	t.Parallel()
	s := newProductPubStack(t)
	user := s.env.User(t)
	first := s.uploadID(t, user, jobtest.PNG(t, 160, 200))
	rec, r := s.json(t, user, "POST", "/api/products", map[string]any{"name": "Draft vase", "uploadId": first})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	draft := decodeAs[photoProductReply](t, r.Data)
	require.Equal(t, "draft", draft.Status)

	second := s.uploadID(t, user, jobtest.PNG(t, 120, 180))
	q, res := s.eventCount(t, "job.queued.v1"), s.eventCount(t, "subscription.credits_reserved.v1")
	rec, r = s.json(t, user, "POST", "/api/products/"+draft.ID+"/photo", map[string]any{"uploadId": second})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	after := decodeAs[photoProductReply](t, r.Data)
	require.Equal(t, "draft", after.Status, "still a draft")
	require.NotEqual(t, draft.PhotoURL, after.PhotoURL, "with the new photo")
	require.Zero(t, s.eventCount(t, "job.queued.v1")-q, "no job")
	require.Zero(t, s.eventCount(t, "subscription.credits_reserved.v1")-res, "no credit")
}

// "I have a .glb/.gltf" (issue 50 item 11): a product created for the
// merchant's own model is a draft without a photo until the model arrives
// through the checked own-model upload, which makes it ready.
func TestProductForAnOwnModelStartsAsADraft(t *testing.T) {
	t.Parallel()
	s := newCatalogueStack(t)
	s.env.Uploads.WithRiver(s.env.River)
	user := s.env.User(t)
	rec, r := s.json(t, user, "POST", "/api/products", map[string]any{"name": "My chair", "ownModel": true})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	draft := decodeAs[photoProductReply](t, r.Data)
	require.Equal(t, "draft", draft.Status)
	require.Equal(t, "upload", draft.Source)
	require.Empty(t, draft.PhotoURL)
	rec, r = s.json(t, user, "POST", "/api/products", map[string]any{"name": "Nothing"})
	require.Equal(t, http.StatusBadRequest, rec.Code, "neither a build, a photo nor ownModel")

	startModelWorker(t, s.env, s.env.Store)
	glb, _, _ := realGLB(t)
	body, ct := modelForm(t, map[string][]byte{"chair.glb": glb})
	rec, r = s.call(t, user, "POST", "/api/products/"+draft.ID+"/model", ct, body)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	own := decodeAs[photoProductReply](t, r.Data)
	require.Equal(t, "ready", own.Status)
	require.NotEmpty(t, own.ModelURL)
}
