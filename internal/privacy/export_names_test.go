package privacy

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Issue 50, P20: the export is named by its date and a product's files sit
// in a folder named after the product, each name used once.
func TestExportNames(t *testing.T) {
	require.Equal(t, "photo3d-export-2026-11-29.zip", ExportFileName(time.Date(2026, 11, 29, 23, 30, 0, 0, time.FixedZone("x", -2*3600)).Add(-3*time.Hour)))
	used := map[string]bool{}
	require.Equal(t, "products/Red Mug", unique(used, "products/"+zipSafe(" Red Mug "), ""))
	require.Equal(t, "products/Red Mug (2)", unique(used, "products/"+zipSafe("Red Mug"), ""), "a second product with the same name")
	require.Equal(t, "products/Red Mug/model.glb", unique(used, "products/Red Mug/model", ".glb"))
	require.Equal(t, "products/Red Mug/model (2).glb", unique(used, "products/Red Mug/model", ".glb"))
	require.Equal(t, "Mugs-Cups---evil", zipSafe("Mugs/Cups\\\n/evil"))
	require.Equal(t, "Untitled product", zipSafe(".."))
	require.Equal(t, "Untitled product", zipSafe("  "))
}
