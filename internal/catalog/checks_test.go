package catalog

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/glbvariants/glbtest"
)

// The preview checklist's "variants switch" item is checked for real: each
// variant's own GLB is built from the product's model, so a model the
// variant files cannot be made from fails the item with the variant's name.
func TestVariantsCheckBuildsEachVariant(t *testing.T) {
	c := NewConfig()
	c.Variants = append(c.Variants, Variant{ID: "v2", Name: "Variant 2", Material: "leather-tan", Parts: map[string]string{}})

	ok := variantsCheck(c, glbtest.Model(t))
	require.True(t, ok.OK, ok.Detail)
	require.Equal(t, "2 variants build", ok.Detail)

	broken := variantsCheck(c, []byte("glTF but not really a binary glTF file"))
	require.False(t, broken.OK)
	require.Contains(t, broken.Detail, "Default could not be built from this model")

	none := variantsCheck(c, nil)
	require.False(t, none.OK)
	require.Equal(t, "The 3D model is not ready yet, so the variants cannot be built.", none.Detail)
}
