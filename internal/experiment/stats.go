// Package experiment is the A/B testing of how a published product is shown
// (issue 52). This file is its statistics: what the results page and
// GET /api/experiments/{id} report per arm, and the rule that decides a winner.
//
// Why a sequential method: a merchant opens the results every day. A fixed-sample
// test checked daily declares a false winner far more often than its 5 % (about
// 25–30 % over a month of daily looks). The uplift's interval here is an
// always-valid one, the mixture sequential probability ratio test's (mSPRT;
// Johari, Koomen, Pekelis & Walsh, "Always valid inference", Operations Research
// 2022, as Optimizely's stats engine uses it): its 95 % coverage holds at every
// look, however often the merchant looks and whenever they stop.
//
// The decision rule, stated once (docs/experiments.md repeats it): an arm wins
// when its always-valid interval for the uplift over control lies wholly above
// zero, with the 5 % shared among the arms compared with control (Bonferroni); it
// loses when the interval lies wholly below zero; otherwise there is no clear
// winner yet. No decision is taken before every compared arm has MinVisitors
// visitors and MinConversions conversions, where the normal approximation the
// interval rests on is still rough.
package experiment

import (
	"math"
)

// Alpha is the error rate of the decision and of the intervals (95 %).
const Alpha = 0.05

// MinVisitors and MinConversions: the least each arm needs before a decision.
const (
	MinVisitors    = 100
	MinConversions = 5
)

// mixtureTau is the spread (on the log scale of the rate ratio) of the uplifts
// the mSPRT mixes over: 0.25 centres its power on uplifts of about ±15–40 %,
// what a change of camera angle, backdrop or default variant moves.
const mixtureTau = 0.25

// minDetectable is the relative uplift "sample still needed" aims at while the
// observed uplift is smaller than it (there is nothing to size for at zero).
const minDetectable = 0.10

// Decisions.
const (
	DecisionNoWinner = "no clear winner yet"
	DecisionWinner   = "winner"
	DecisionLoser    = "control is better"
)

// Counts are an arm's visitors (distinct viewers assigned and counted) and
// conversions (visitors who reached the goal at least once).
type Counts struct {
	Visitors    int64
	Conversions int64
}

// ArmStats is one arm's line of the results.
type ArmStats struct {
	Visitors    int64      `json:"visitors"`
	Conversions int64      `json:"conversions"`
	Rate        float64    `json:"rate"`
	Interval    [2]float64 `json:"interval"` // the rate's 95 % Wilson interval
}

// Comparison is a treatment arm against control.
type Comparison struct {
	// Uplift is the relative change of the goal rate over control (0.12: +12 %).
	Uplift float64 `json:"uplift"`
	// UpliftInterval is its always-valid 95 % interval (shared among the arms):
	// [lo, hi], or null before both arms have a visitor.
	UpliftInterval []float64 `json:"upliftInterval"`
	// ProbabilityToBeat is the posterior probability (uniform priors) that the
	// arm's rate exceeds control's. Shown for reading; it decides nothing.
	ProbabilityToBeat float64 `json:"probabilityToBeat"`
	Decision          string  `json:"decision"`
	// SampleStillNeeded is about how many more visitors each of the two arms needs
	// before the interval can exclude zero at the uplift seen so far (or at
	// +10 % while the uplift seen is smaller); 0 once decided.
	SampleStillNeeded int64 `json:"sampleStillNeeded"`
}

// RateOf reads one arm's counts.
func RateOf(c Counts) ArmStats {
	s := ArmStats{Visitors: c.Visitors, Conversions: c.Conversions}
	if c.Visitors <= 0 {
		s.Interval = [2]float64{0, 1}
		return s
	}
	s.Rate = float64(c.Conversions) / float64(c.Visitors)
	s.Interval = wilson(c.Conversions, c.Visitors, 1.959963984540054)
	return s
}

// Compare reads treatment against control, with arms treatment arms sharing Alpha.
func Compare(control, treatment Counts, arms int) Comparison {
	alpha := Alpha / float64(max(1, arms))
	var c Comparison
	c.ProbabilityToBeat = probabilityToBeat(control, treatment)
	theta, v, ok := logRatio(control, treatment)
	if !ok {
		c.Decision = DecisionNoWinner
		c.SampleStillNeeded = stillNeeded(control, treatment, alpha)
		return c
	}
	half := avHalfWidth(v, alpha)
	c.Uplift = ratio(control, treatment) - 1
	// Bounded so that a first handful of visitors gives a finite (if huge) interval.
	c.UpliftInterval = []float64{math.Exp(max(-50, theta-half)) - 1, math.Exp(min(50, theta+half)) - 1}
	c.Decision = DecisionNoWinner
	if enough(control) && enough(treatment) {
		switch {
		case theta-half > 0:
			c.Decision = DecisionWinner
		case theta+half < 0:
			c.Decision = DecisionLoser
		}
	}
	if c.Decision == DecisionNoWinner {
		c.SampleStillNeeded = stillNeeded(control, treatment, alpha)
	}
	return c
}

func enough(c Counts) bool { return c.Visitors >= MinVisitors && c.Conversions >= MinConversions }

// ratio is the observed rate ratio (1 when control has no rate yet).
func ratio(control, treatment Counts) float64 {
	if control.Visitors <= 0 || treatment.Visitors <= 0 || control.Conversions <= 0 {
		return 1
	}
	return (float64(treatment.Conversions) / float64(treatment.Visitors)) / (float64(control.Conversions) / float64(control.Visitors))
}

// logRatio is the log of the rate ratio and its variance (delta method), with
// half a conversion added to each arm so that an arm without one has a finite
// value; ok is false until both arms have visitors.
func logRatio(control, treatment Counts) (theta, v float64, ok bool) {
	if control.Visitors <= 0 || treatment.Visitors <= 0 {
		return 0, 0, false
	}
	pa := (float64(control.Conversions) + 0.5) / (float64(control.Visitors) + 1)
	pb := (float64(treatment.Conversions) + 0.5) / (float64(treatment.Visitors) + 1)
	v = (1-pa)/(pa*(float64(control.Visitors)+1)) + (1-pb)/(pb*(float64(treatment.Visitors)+1))
	return math.Log(pb / pa), v, true
}

// avHalfWidth is the half-width of the mSPRT's always-valid interval for an
// estimate with variance v: the set of values θ0 whose mixture likelihood ratio
// stays under 1/α, θ̂ ± sqrt(v(v+τ²)/τ² · (2 ln(1/α) + ln((v+τ²)/v))).
func avHalfWidth(v, alpha float64) float64 {
	t2 := mixtureTau * mixtureTau
	return math.Sqrt(v * (v + t2) / t2 * (2*math.Log(1/alpha) + math.Log((v+t2)/v)))
}

// stillNeeded sizes the two arms: the visitors per arm at which the interval's
// half-width falls under the uplift seen (or minDetectable), at the rates seen,
// less the visitors the smaller arm has.
func stillNeeded(control, treatment Counts, alpha float64) int64 {
	pa := (float64(control.Conversions) + 0.5) / (float64(control.Visitors) + 1)
	pb := (float64(treatment.Conversions) + 0.5) / (float64(treatment.Visitors) + 1)
	target := math.Abs(math.Log(pb / pa))
	if target < math.Log1p(minDetectable) {
		target = math.Log1p(minDetectable)
		pb = pa * (1 + minDetectable)
	}
	pb = min(pb, 0.999)
	half := func(n float64) float64 { return avHalfWidth((1-pa)/(pa*n)+(1-pb)/(pb*n), alpha) }
	hi := 1.0
	for half(hi) >= target && hi < 1e12 {
		hi *= 2
	}
	lo := hi / 2
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if half(mid) >= target {
			lo = mid
		} else {
			hi = mid
		}
	}
	have := min(control.Visitors, treatment.Visitors)
	return max(0, int64(math.Ceil(hi))-have)
}

// probabilityToBeat is P(p_treatment > p_control) under Beta(1+x, 1+n−x)
// posteriors, by the normal approximation of their difference.
func probabilityToBeat(control, treatment Counts) float64 {
	ma, va := betaMoments(control)
	mb, vb := betaMoments(treatment)
	return normalCDF((mb - ma) / math.Sqrt(va+vb))
}

func betaMoments(c Counts) (mean, variance float64) {
	a := 1 + float64(c.Conversions)
	b := 1 + float64(c.Visitors-c.Conversions)
	return a / (a + b), a * b / ((a + b) * (a + b) * (a + b + 1))
}

func normalCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

// wilson is the Wilson score interval for x successes in n trials.
func wilson(x, n int64, z float64) [2]float64 {
	p := float64(x) / float64(n)
	nn := float64(n)
	d := 1 + z*z/nn
	c := (p + z*z/(2*nn)) / d
	h := z * math.Sqrt(p*(1-p)/nn+z*z/(4*nn*nn)) / d
	return [2]float64{max(0, c-h), min(1, c+h)}
}
