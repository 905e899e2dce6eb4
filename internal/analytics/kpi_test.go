package analytics

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func shopper(id string, mod func(*Shopper)) Shopper {
	s := Shopper{Viewer: id, Product: "p1", Device: DeviceDesktop, Source: SourceDirect, Region: "IN", Counted: true}
	if mod != nil {
		mod(&s)
	}
	return s
}

// Each definition (definitions.go), one row per rule and its edges.
func TestDefinitions(t *testing.T) {
	cases := []struct {
		name                                          string
		s                                             Shopper
		interacted, engaged, highIntent, click, added bool
	}{
		{"only viewed", shopper("a", nil), false, false, false, false, false},
		{"turned, 9.999 s visible", shopper("a", func(s *Shopper) { s.Turned, s.VisibleMs = true, 9_999 }), true, false, false, false, false},
		{"turned, 10 s visible", shopper("a", func(s *Shopper) { s.Turned, s.VisibleMs = true, 10_000 }), true, true, false, false, false},
		{"10 s visible without interaction", shopper("a", func(s *Shopper) { s.VisibleMs = 60_000 }), false, false, false, false, false},
		{"opened a hotspot (without turning the model)", shopper("a", func(s *Shopper) { s.Hotspots = []string{"h1"} }), true, true, false, false, false},
		{"changed variant", shopper("a", func(s *Shopper) { s.VariantChanged = true }), true, true, false, false, false},
		{"variant and hotspot", shopper("a", func(s *Shopper) { s.VariantChanged, s.Hotspots = true, []string{"h1"} }), true, true, true, false, false},
		{"launched AR", shopper("a", func(s *Shopper) { s.AR = true }), true, true, true, false, false},
		{"clicked without interaction", shopper("a", func(s *Shopper) { s.Clicks = 2 }), false, false, false, true, false},
		{"turned briefly, clicked", shopper("a", func(s *Shopper) { s.Turned, s.VisibleMs, s.Clicks = true, 3_000, 1 }), true, false, false, true, false},
		{"engaged and clicked", shopper("a", func(s *Shopper) { s.Turned, s.VisibleMs, s.Clicks = true, 12_000, 1 }), true, true, true, true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.interacted, c.s.Interacted(), "interacted")
			require.Equal(t, c.engaged, c.s.Engaged(), "engaged")
			require.Equal(t, c.highIntent, c.s.HighIntent(), "high-intent")
			require.Equal(t, c.click, c.s.Clicked(), "clicked")
			require.Equal(t, c.added, c.s.Added(), "ATC")
			// The funnel: each step implies the one above it.
			require.True(t, !c.s.Added() || c.s.HighIntent())
			require.True(t, !c.s.HighIntent() || c.s.Engaged())
			require.True(t, !c.s.Engaged() || c.s.Interacted())
		})
	}
}

func TestComputeFunnelAndPrimaryKPIs(t *testing.T) {
	recs := []Shopper{
		shopper("viewer-only", nil),
		shopper("not-counted", func(s *Shopper) { s.Counted = false; s.Clicks = 5; s.Turned = true }),
		shopper("turned-clicked", func(s *Shopper) { s.Turned, s.Clicks, s.ZoomBeforeClick = true, 1, true }),
		shopper("engaged-no-click", func(s *Shopper) { s.Turned, s.VisibleMs = true, 12_000 }),
		shopper("ar-clicked", func(s *Shopper) {
			s.Turned, s.AR, s.Clicks, s.ARBeforeClick, s.ZoomBeforeClick = true, true, 2, true, true
		}),
		shopper("click-without-interaction", func(s *Shopper) { s.Clicks = 1 }),
		// The same viewer on a second product is one shopper.
		shopper("engaged-no-click", func(s *Shopper) { s.Product = "p2"; s.Hotspots = []string{"h1"} }),
	}
	res := Compute(recs)
	k := res.KPIs
	require.EqualValues(t, 5, k.Shoppers, "distinct viewer ids with a counted view")
	require.EqualValues(t, 2, k.Engaged, "engaged-no-click (10 s on p1, a hotspot on p2) and ar-clicked (AR)")
	require.EqualValues(t, 1, k.Opportunities, "engaged-no-click")
	require.EqualValues(t, 1, k.AddsFrom3D, "ar-clicked: the only engaged shopper who clicked")
	require.EqualValues(t, 4, res.Clicks, "every buy-link click of a counted shopper: 1 + 2 + 1")
	steps := map[string]int64{}
	for _, s := range res.Steps {
		steps[s.Key] = s.Value
	}
	require.Equal(t, map[string]int64{StepViewed: 5, StepInteracted: 3, StepEngaged: 2, StepHighIntent: 1, StepATC: 1}, steps)
	require.Equal(t, []string{StepViewed, StepInteracted, StepEngaged, StepHighIntent, StepATC},
		[]string{res.Steps[0].Key, res.Steps[1].Key, res.Steps[2].Key, res.Steps[3].Key, res.Steps[4].Key})
	require.Nil(t, k.secondary.uplift, "under 100 shoppers the secondary KPIs are a dash")
	require.Nil(t, k.secondary.perEngaged)
	// One added shopper, who used AR and turned the model before clicking:
	// two uses, half each (turned-clicked is not engaged, so not an add).
	require.Equal(t, []FeatureStat{{Feature: "ar", Share: 50}, {Feature: "zoom", Share: 50}}, res.Features)
}

// Top Features are shares of the feature uses before an add: they add up
// to exactly 100.0 whatever the rounding, with at most topN rows.
func TestTopFeaturesAddUpTo100(t *testing.T) {
	var recs []Shopper
	for i := range 7 {
		recs = append(recs, shopper(fmt.Sprintf("a%d", i), func(s *Shopper) {
			s.AR, s.Clicks, s.ARBeforeClick, s.ZoomBeforeClick, s.Turned = true, 1, true, i < 3, i < 3
			if i < 2 {
				s.VariantChanged, s.VariantBeforeClick = true, true
			}
			s.Hotspots = []string{fmt.Sprintf("h%d", i%4)}
			s.HotspotsBeforeClick = s.Hotspots
		}))
	}
	f := Compute(recs).Features
	// Uses: ar 7, zoom 3, variant 2, h0 2, h1 2, h2 2, h3 1 (19): ar, zoom, and
	// the three tied at 2 in name order (h0, h1) … past topN-1 folded.
	require.Len(t, f, topN)
	require.Equal(t, []string{"ar", "zoom", "hotspot:h0", "hotspot:h1", FeatureOther}, []string{f[0].Feature, f[1].Feature, f[2].Feature, f[3].Feature, f[4].Feature})
	var tenths int64
	for _, x := range f {
		tenths += int64(math.Round(x.Share * 10))
	}
	require.EqualValues(t, 1000, tenths)
	require.InDelta(t, 100*7.0/19, f[0].Share, 0.1, "7 of 19 uses, within a tenth (the tenths left over go to the largest remainders)")

	require.Equal(t, []int64{334, 333, 333}, largestRemainder([]int64{1, 1, 1}, 1000))
	require.Equal(t, []int64{0, 0}, largestRemainder([]int64{0, 0}, 1000))
	require.Equal(t, []int64{1000}, largestRemainder([]int64{5}, 1000))
}

// Uplift and adds per engaged with a population of 200: 50 engaged of
// whom 20 clicked (3 clicks each), 150 not engaged of whom 15 clicked.
func TestComputeSecondaryKPIs(t *testing.T) {
	var recs []Shopper
	for i := range 200 {
		recs = append(recs, shopper(fmt.Sprintf("v%03d", i), func(s *Shopper) {
			switch {
			case i < 20:
				s.Hotspots, s.Clicks = []string{"h"}, 3
			case i < 50:
				s.Hotspots = []string{"h"}
			case i < 65:
				s.Clicks = 1
			}
		}))
	}
	k := Compute(recs).KPIs
	require.EqualValues(t, 200, k.Shoppers)
	require.EqualValues(t, 50, k.Engaged)
	require.EqualValues(t, 30, k.Opportunities)
	// 20/50 = 40 % minus 15/150 = 10 % → 30 pp.
	require.InDelta(t, 30.0, *k.secondary.uplift, 1e-9)
	// 20 of 50 engaged shoppers added: 40 %.
	require.InDelta(t, 40.0, *k.secondary.perEngaged, 1e-9)
}

func TestBestVariantUplift(t *testing.T) {
	var recs []Shopper
	// Product p1: 100 shoppers saw v1 (10 clicked), 100 saw v2 (30 clicked): average 20 %.
	for i := range 200 {
		v := "v1"
		clicked := i < 10
		if i >= 100 {
			v, clicked = "v2", i < 130
		}
		recs = append(recs, shopper(fmt.Sprintf("s%03d", i), func(s *Shopper) {
			s.Variants = []string{v}
			if clicked {
				s.Clicks = 1
			}
		}))
	}
	// Product p2 with one variant only: nothing to compare.
	recs = append(recs, shopper("x", func(s *Shopper) { s.Product, s.Variants, s.Clicks = "p2", []string{"v9"}, 1 }))
	got := Compute(recs).KPIs.secondary.variant
	require.Equal(t, &VariantLift{Option: "v2", ProductID: "p1", PP: 10, Reliable: true}, got)

	// Under 100 shoppers in a group: not reliable.
	small := append(append([]Shopper{}, recs[:20]...), recs[100:150]...)
	got = Compute(small).KPIs.secondary.variant
	// v1: 10 of 20 clicked; v2: 30 of 50; product: 40 of 70 → v2, 60 − 57.1 = 2.9 pp.
	require.Equal(t, &VariantLift{Option: "v2", ProductID: "p1", PP: 2.9, Reliable: false}, got)
}

func TestGeoOpportunityAndTopRegions(t *testing.T) {
	var recs []Shopper
	add := func(region string, n, engaged, clicked int) {
		for i := range n {
			recs = append(recs, shopper(fmt.Sprintf("%s%d", region, i), func(s *Shopper) {
				s.Region = region
				if i < engaged {
					s.VariantChanged = true
				}
				if i >= n-clicked {
					s.Clicks = 1
				}
			}))
		}
	}
	add("IN", 100, 50, 40) // click rate 40 %, engaged 500 per 1k
	add("US", 100, 30, 5)  // 5 %, 300 per 1k
	add("DE", 100, 40, 0)  // 0 %, 400 per 1k
	// Average click rate 15 %: US and DE are below; DE has more engaged per 1k.
	res := Compute(recs)
	require.Equal(t, &GeoIndex{Region: "DE", Value: 400}, res.KPIs.secondary.geo)
	require.Equal(t, []RegionStat{{"IN", 500}, {"DE", 400}, {"US", 300}}, res.Regions)
}

func TestPayloadGating(t *testing.T) {
	var recs []Shopper
	for i := range 120 {
		recs = append(recs, shopper(fmt.Sprintf("v%03d", i), func(s *Shopper) { s.AR = i%2 == 0; s.Clicks = i % 3 }))
	}
	res := Compute(recs)
	basic := BuildPayload(res, TierBasic)
	require.Equal(t, TierBasic, basic.Plan)
	require.Nil(t, basic.KPIs.EngagementUplift)
	require.Nil(t, basic.KPIs.AddsPerEngaged)
	require.Nil(t, basic.KPIs.BestVariantUplift)
	require.Nil(t, basic.KPIs.GeoOpportunityIndex)
	require.Empty(t, basic.Charts.Snapshot.TopRegions)
	require.Equal(t, []string{"dateRange", "sku"}, basic.Capabilities.Filters)
	require.False(t, basic.Capabilities.Export)
	require.Len(t, basic.Charts.ProgressLadder.Steps, 5)

	premium := BuildPayload(res, TierPremium)
	require.NotNil(t, premium.KPIs.EngagementUplift)
	require.NotEmpty(t, premium.Charts.Snapshot.TopRegions)
	require.True(t, premium.Capabilities.Drilldowns)
}
