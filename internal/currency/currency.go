// Package currency is the one list of currencies Photo3D takes prices in
// (issue 29 item 20): the configurator's variant prices and a merchant's
// default currency are checked against it, and the web app offers the same
// codes (web/src/lib/money.ts CURRENCIES, kept equal by a test there).
package currency

import (
	"slices"
	"strings"

	"github.com/photo3d/photo3d/internal/fault"
)

// Codes are the supported ISO 4217 codes, most used by our merchants first.
var Codes = []string{
	"INR", "USD", "EUR", "GBP", "AED", "AUD", "CAD", "SGD", "JPY", "CNY", "HKD", "NZD", "CHF", "SEK",
	"NOK", "DKK", "ZAR", "BRL", "MXN", "SAR", "MYR", "IDR", "THB", "PHP", "KRW", "BDT", "LKR", "NPR",
}

// Supported reports whether code (upper-case) is on the list.
func Supported(code string) bool { return slices.Contains(Codes, code) }

// Check returns the upper-cased code, or an invalid_currency fault that names
// what was sent and the codes that would be taken.
func Check(code string) (string, error) {
	c := strings.ToUpper(strings.TrimSpace(code))
	if Supported(c) {
		return c, nil
	}
	if c == "" {
		return "", fault.Invalidf("invalid_currency", "Choose a currency, for example INR or USD.")
	}
	if len(c) > 8 { // a hostile or mistaken body is not echoed at length
		c = c[:8] + "…"
	}
	return "", fault.Invalidf("invalid_currency", "%s is not a currency Photo3D supports. Choose one of: %s.", c, strings.Join(Codes, ", "))
}
