package publish

import (
	"math"
	"strconv"
	"strings"
)

// currencyFormat is how a price in one currency is written where the
// currency is at home: its symbol before the amount, its minor digits and
// its digit grouping (the Indian lakh grouping for INR: ₹1,23,456). The
// page's script re-formats with the shopper's locale (Intl.NumberFormat,
// web/src/lib/money.ts); this is what the server renders first and what a
// page without script shows.
type currencyFormat struct {
	symbol string
	minor  int
	indian bool
}

var currencyFormats = map[string]currencyFormat{
	"INR": {"₹", 2, true}, "USD": {"$", 2, false}, "EUR": {"€", 2, false}, "GBP": {"£", 2, false},
	"JPY": {"¥", 0, false}, "CNY": {"CN¥", 2, false}, "AUD": {"A$", 2, false}, "CAD": {"CA$", 2, false},
	"SGD": {"SGD ", 2, false}, "AED": {"AED ", 2, false}, "HKD": {"HK$", 2, false}, "NZD": {"NZ$", 2, false},
	"CHF": {"CHF ", 2, false}, "KRW": {"₩", 0, false}, "BRL": {"R$", 2, false}, "MXN": {"MX$", 2, false},
}

// FormatPrice writes an amount in a currency as shoppers read it: "₹899",
// "₹1,23,456.50", "$129.50". Whole amounts drop the minor digits. A currency
// without a known symbol is written with its code ("SEK 1,299").
func FormatPrice(amount float64, currency string) string {
	f, ok := currencyFormats[currency]
	if !ok {
		f = currencyFormat{symbol: currency + " ", minor: 2}
	}
	neg := amount < 0
	amount = math.Abs(amount)
	minor := f.minor
	scale := math.Pow(10, float64(minor))
	cents := math.Round(amount * scale)
	if minor > 0 && math.Mod(cents, scale) == 0 {
		minor = 0
	}
	s := strconv.FormatFloat(cents/scale, 'f', minor, 64)
	whole, frac, _ := strings.Cut(s, ".")
	out := f.symbol + group(whole, f.indian)
	if frac != "" {
		out += "." + frac
	}
	if neg {
		out = "-" + out
	}
	return out
}

// group puts thousands separators in a digit string: every three digits, or
// the Indian way (the last three, then every two).
func group(d string, indian bool) string {
	if len(d) <= 3 {
		return d
	}
	head, tail := d[:len(d)-3], d[len(d)-3:]
	step := 3
	if indian {
		step = 2
	}
	var parts []string
	for len(head) > step {
		parts = append([]string{head[len(head)-step:]}, parts...)
		head = head[:len(head)-step]
	}
	parts = append([]string{head}, parts...)
	return strings.Join(append(parts, tail), ",")
}
