package publish

import "testing"

// Prices on a product page read as shoppers write them (issue 29 item 20):
// "₹899", not "INR 899.00"; rupees grouped in lakhs.
func TestFormatPrice(t *testing.T) {
	for _, c := range []struct {
		amount   float64
		currency string
		want     string
	}{
		{899, "INR", "₹899"},
		{123456.5, "INR", "₹1,23,456.50"},
		{12345678, "INR", "₹1,23,45,678"},
		{129.5, "USD", "$129.50"},
		{1299, "USD", "$1,299"},
		{99.999, "EUR", "€100"},
		{1500, "JPY", "¥1,500"},
		{1299.9, "SEK", "SEK 1,299.90"},
		{0, "GBP", "£0"},
	} {
		if got := FormatPrice(c.amount, c.currency); got != c.want {
			t.Errorf("FormatPrice(%v, %s) = %q, want %q", c.amount, c.currency, got, c.want)
		}
	}
}
