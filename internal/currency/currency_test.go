package currency

import (
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/fault"
)

// The web app's pickers offer web/src/lib/money.ts CURRENCIES: the same
// codes in the same order, so a merchant can never pick a code the API
// refuses, and nothing the API takes is missing from the list.
func TestCodesAreTheWebList(t *testing.T) {
	src, err := os.ReadFile("../../web/src/lib/money.ts")
	require.NoError(t, err)
	var web []string
	for _, m := range regexp.MustCompile(`\{ code: '([A-Z]{3})', name: `).FindAllStringSubmatch(string(src), -1) {
		web = append(web, m[1])
	}
	require.Equal(t, Codes, web)
}

func TestCheck(t *testing.T) {
	for in, want := range map[string]string{"INR": "INR", " usd ": "USD", "Eur": "EUR"} {
		got, err := Check(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got)
	}
	for _, in := range []string{"", "XYZ", "RUPEES", "IN"} {
		_, err := Check(in)
		var f *fault.Error
		require.ErrorAs(t, err, &f, in)
		require.Equal(t, fault.Invalid, f.Kind, in)
		require.Equal(t, "invalid_currency", f.Code, in)
	}
}
