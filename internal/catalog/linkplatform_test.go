package catalog

import (
	"encoding/json"
	"os"
	"testing"
)

// The vectors are shared with the web app's Vitest suite: the same file,
// the same verdicts.
const linkVectorsFile = "../../web/src/entities/product/link-platform-vectors.json"

type linkVector struct {
	URL  string        `json:"url"`
	Want *LinkPlatform `json:"want"`
	Note string        `json:"note"`
}

func loadLinkVectors(t *testing.T) []linkVector {
	t.Helper()
	b, err := os.ReadFile(linkVectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Vectors []linkVector `json:"vectors"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f.Vectors
}

func TestDetectPlatformSharedVectors(t *testing.T) {
	vs := loadLinkVectors(t)
	perKey := map[string]int{}
	for _, v := range vs {
		got := DetectPlatform(v.URL)
		switch {
		case v.Want == nil && got != nil:
			t.Errorf("%q (%s): want no chip, got %+v", v.URL, v.Note, *got)
		case v.Want != nil && got == nil:
			t.Errorf("%q (%s): want %+v, got no chip", v.URL, v.Note, *v.Want)
		case v.Want != nil && *got != *v.Want:
			t.Errorf("%q (%s): want %+v, got %+v", v.URL, v.Note, *v.Want, *got)
		}
		if v.Want != nil {
			perKey[v.Want.Key]++
		}
	}
	// Every platform of the rule table is covered at least three times.
	for _, r := range platformRules {
		if perKey[r.key] < 3 {
			t.Errorf("platform %s has %d vectors, want ≥ 3", r.key, perKey[r.key])
		}
	}
}

func TestNormalizeLinkURL(t *testing.T) {
	for in, want := range map[string]string{
		"amazon.in/dp/1":      "https://amazon.in/dp/1",
		" http://etsy.com/x ": "http://etsy.com/x",
		"HTTPS://Walmart.com": "HTTPS://Walmart.com",
		"":                    "",
		"ftp://files.example": "ftp://files.example",
		"javascript:alert(1)": "https://javascript:alert(1)",
	} {
		if got := NormalizeLinkURL(in); got != want {
			t.Errorf("NormalizeLinkURL(%q) = %q, want %q", in, got, want)
		}
	}
}
