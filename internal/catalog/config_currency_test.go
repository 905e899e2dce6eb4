package catalog

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/fault"
)

// A new price's currency must be on the supported list (internal/currency,
// the list the web app offers and the default-currency setting takes); a
// price saved before the list existed keeps its own code when the variant is
// changed (issue 29 item 20: existing prices keep their currency).
func TestVariantCurrencyIsFromTheSupportedList(t *testing.T) {
	price := 899.0
	v := Variant{ID: "v2", Name: "Tan", Material: MaterialOriginal, Parts: map[string]string{}, Price: &price}
	for _, c := range []struct {
		currency, kept, want, code string
	}{
		{"INR", "", "INR", ""},
		{"inr", "", "INR", ""},
		{"XYZ", "", "", "invalid_currency"},
		{"", "", "", "invalid_currency"},
		{"XYZ", "XYZ", "XYZ", ""},              // an old price keeps its code
		{"XYZ", "PLN", "", "invalid_currency"}, // but cannot switch to another unlisted one
		{"EUR", "XYZ", "EUR", ""},
	} {
		in := v
		in.Currency = c.currency
		got, err := checkVariant(in, c.kept)
		if c.code != "" {
			var f *fault.Error
			require.ErrorAs(t, err, &f, c)
			require.Equal(t, c.code, f.Code, c)
			require.Contains(t, f.Message, "INR", c)
			continue
		}
		require.NoError(t, err, c)
		require.Equal(t, c.want, got.Currency, c)
	}
}
