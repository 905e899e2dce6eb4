package publish

import (
	"testing"

	"github.com/photo3d/photo3d/internal/catalog"
)

// TestBuyLinksSayBuyOnStore: the share page's buy buttons read "Buy on Amazon",
// not a bare "Amazon" (issue 29 item 19); a link of no known store stays "Buy".
func TestBuyLinksSayBuyOnStore(t *testing.T) {
	cfg := catalog.Config{Links: []catalog.Link{
		{ID: "l1", URL: "https://www.amazon.in/dp/B0ABC123"},
		{ID: "l2", URL: "https://www.etsy.com/listing/123/chair"},
		{ID: "l3", URL: "ftp://files.example.com/x"},
	}}
	got := buyLinks("A", cfg, "v1")
	if len(got) != 3 {
		t.Fatalf("got %d links, want 3: %+v", len(got), got)
	}
	want := []struct{ label, key string }{{"Buy on Amazon", "amazon"}, {"Buy on Etsy", "etsy"}}
	for i, w := range want {
		if got[i].Label != w.label || got[i].Key != w.key {
			t.Errorf("link %d = %q (%s), want %q (%s)", i, got[i].Label, got[i].Key, w.label, w.key)
		}
	}
	if got[2].Label != "Buy" {
		t.Errorf("link of no store = %q, want %q", got[2].Label, "Buy")
	}
}
