package catalog_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/fault"
)

// TestAddProductsMovesThemIntoTheCatalog (merchant walk 4, P13): a catalog
// takes several products in one go; each leaves the catalog it was in, and
// the answer names it; another merchant's product refuses the whole pick.
func TestAddProductsMovesThemIntoTheCatalog(t *testing.T) {
	t.Parallel()
	s := setup(t)
	user := s.env.User(t)
	s.trial(t, user)
	vase, err := s.svc.CreateProduct(ctx, user, catalog.NewProduct{Name: "Vase", BlueprintID: s.blueprint(t, user, catalog.StatusReady)})
	require.NoError(t, err)
	cup, err := s.svc.CreateProduct(ctx, user, catalog.NewProduct{Name: "Cup", BlueprintID: s.blueprint(t, user, catalog.StatusReady)})
	require.NoError(t, err)
	spring, err := s.svc.CreateCatalog(ctx, user, "Spring", "")
	require.NoError(t, err)
	autumn, err := s.svc.CreateCatalog(ctx, user, "Autumn", "")
	require.NoError(t, err)
	_, err = s.svc.UpdateProduct(ctx, user, cup.ID, catalog.ProductPatch{CatalogID: &autumn.ID})
	require.NoError(t, err)

	c, moved, err := s.svc.MoveProducts(ctx, user, spring.ID, []string{vase.ID, cup.ID, vase.ID})
	require.NoError(t, err)
	require.Equal(t, 2, c.ProductCount)
	require.Equal(t, []catalog.Moved{
		{ProductID: vase.ID, Name: "Vase", FromCatalogID: vase.CatalogID, FromCatalogName: catalog.DefaultCatalogName},
		{ProductID: cup.ID, Name: "Cup", FromCatalogID: autumn.ID, FromCatalogName: "Autumn"},
	}, moved)
	a, err := s.svc.Catalog(ctx, user, autumn.ID)
	require.NoError(t, err)
	require.Zero(t, a.ProductCount, "the cup left Autumn")

	_, moved, err = s.svc.MoveProducts(ctx, user, spring.ID, []string{cup.ID})
	require.NoError(t, err)
	require.Empty(t, moved, "already here: nothing moves")

	other := s.env.User(t)
	s.trial(t, other)
	theirs, err := s.svc.CreateProduct(ctx, other, catalog.NewProduct{Name: "Lamp", BlueprintID: s.blueprint(t, other, catalog.StatusReady)})
	require.NoError(t, err)
	_, _, err = s.svc.MoveProducts(ctx, user, autumn.ID, []string{vase.ID, theirs.ID})
	require.ErrorIs(t, err, catalog.ErrProductNotFound)
	p, err := s.svc.Product(ctx, user, vase.ID)
	require.NoError(t, err)
	require.Equal(t, spring.ID, p.CatalogID, "a refused pick moves nothing")
	_, _, err = s.svc.MoveProducts(ctx, user, spring.ID, nil)
	require.True(t, fault.IsKind(err, fault.Invalid))
}
