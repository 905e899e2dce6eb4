package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/photo3d/photo3d/internal/experiment"
)

// calibrate checks the experiment statistics (internal/experiment) against
// shoppers whose true goal rates are known (issue 52, "Calibration"): each
// simulated day brings new shoppers, each assigned to an arm at random and
// converting with that arm's true rate, and the merchant reads the results every
// day. It prints, over -runs experiments:
//
//   - with a true uplift: how often the reported 95 % interval holds the true
//     uplift on the last day, and at every daily look; and how often a winner was
//     declared (the power);
//
//   - under A/A (no true difference): how often a winner (or loser) was declared
//     at any daily look.
//
//     go run ./ops/shoppers calibrate -runs 200 -days 28 -daily 600 -rate 0.04 -uplift 0.2 -seed 1
func calibrate(args []string) error {
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	runs := fs.Int("runs", 200, "simulated experiments per scenario")
	days := fs.Int("days", 28, "days each experiment runs; the results are read every day")
	daily := fs.Int("daily", 600, "new shoppers a day, split evenly between the two arms")
	rate := fs.Float64("rate", 0.04, "control's true goal rate")
	uplift := fs.Float64("uplift", 0.2, "the treatment's true relative uplift in the first scenario")
	seed := fs.Uint64("seed", 1, "random seed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *runs < 1 || *days < 1 || *daily < 2 || *rate <= 0 || *rate*(1+*uplift) >= 1 {
		return fmt.Errorf("need runs ≥ 1, days ≥ 1, daily ≥ 2 and rates inside (0, 1)")
	}
	rng := rand.New(rand.NewPCG(*seed, 52))
	effect := simulateExperiments(rng, *runs, *days, *daily, *rate, *rate*(1+*uplift))
	aa := simulateExperiments(rng, *runs, *days, *daily, *rate, *rate)
	fmt.Printf("experiment calibration: %d experiments a scenario, %d days read daily, %d new shoppers a day, control rate %.3f\n", *runs, *days, *daily, *rate)
	fmt.Printf("true uplift %+.0f%%: the 95%% interval holds it on the last day in %.1f%% of experiments (target ≥ 93%%), at every daily look in %.1f%%; winner declared in %.1f%% (median day %s)\n",
		100**uplift, pct(effect.coveredLast, *runs), pct(effect.coveredAlways, *runs), pct(effect.decided, *runs), effect.medianDay())
	fmt.Printf("A/A (no true difference): a winner or loser declared at some daily look in %.1f%% of experiments (target ≤ 5%%); the last day's interval holds 0 in %.1f%%\n",
		pct(aa.decided, *runs), pct(aa.coveredLast, *runs))
	fmt.Printf("baseline, a fixed-sample 95%% test read daily: A/A false winners %.1f%%; with the true uplift, winners %.1f%%\n",
		pct(aa.naiveDecided, *runs), pct(effect.naiveDecided, *runs))
	fmt.Printf("the same test read once, on the last day: A/A false winners %.1f%%; with the true uplift, winners %.1f%%\n",
		pct(aa.naiveAtEnd, *runs), pct(effect.naiveAtEnd, *runs))
	return nil
}

type calibration struct {
	coveredLast, coveredAlways, decided int
	decisionDays                        []int
	// naiveDecided: experiments where a fixed-sample test (the log ratio's 95 %
	// Wald interval, read as if each day were the planned end) excluded zero at
	// some daily look: what peeking does without a sequential method.
	naiveDecided int
	// naiveAtEnd: the same test read once, on the last day, as it is meant to be.
	naiveAtEnd int
}

func (c calibration) medianDay() string {
	if len(c.decisionDays) == 0 {
		return "–"
	}
	return fmt.Sprint(c.decisionDays[len(c.decisionDays)/2])
}

func pct(n, of int) float64 { return 100 * float64(n) / float64(of) }

// simulateExperiments runs experiments with control rate pa and treatment rate pb.
func simulateExperiments(rng *rand.Rand, runs, days, daily int, pa, pb float64) calibration {
	truth := pb/pa - 1
	var out calibration
	for range runs {
		var control, treatment experiment.Counts
		always, decidedOn, naive := true, 0, false
		var last experiment.Comparison
		for day := 1; day <= days; day++ {
			for range daily {
				arm, p := &control, pa
				if rng.IntN(2) == 1 {
					arm, p = &treatment, pb
				}
				arm.Visitors++
				if rng.Float64() < p {
					arm.Conversions++
				}
			}
			last = experiment.Compare(control, treatment, 1)
			if len(last.UpliftInterval) != 2 || !(last.UpliftInterval[0] <= truth && truth <= last.UpliftInterval[1]) {
				always = false
			}
			if decidedOn == 0 && last.Decision != experiment.DecisionNoWinner {
				decidedOn = day
			}
			naive = naive || naiveExcludesZero(control, treatment)
		}
		if len(last.UpliftInterval) == 2 && last.UpliftInterval[0] <= truth && truth <= last.UpliftInterval[1] {
			out.coveredLast++
		}
		if always {
			out.coveredAlways++
		}
		if naive {
			out.naiveDecided++
		}
		if naiveExcludesZero(control, treatment) {
			out.naiveAtEnd++
		}
		if decidedOn > 0 {
			out.decided++
			out.decisionDays = append(out.decisionDays, decidedOn)
		}
	}
	slices.Sort(out.decisionDays)
	return out
}

// naiveExcludesZero is the fixed-sample test: the log rate ratio's 95 % Wald
// interval, with the same half conversion added to each arm, excludes zero.
func naiveExcludesZero(control, treatment experiment.Counts) bool {
	if control.Visitors < experiment.MinVisitors || treatment.Visitors < experiment.MinVisitors ||
		control.Conversions < experiment.MinConversions || treatment.Conversions < experiment.MinConversions {
		return false
	}
	pa := (float64(control.Conversions) + 0.5) / (float64(control.Visitors) + 1)
	pb := (float64(treatment.Conversions) + 0.5) / (float64(treatment.Visitors) + 1)
	v := (1-pa)/(pa*(float64(control.Visitors)+1)) + (1-pb)/(pb*(float64(treatment.Visitors)+1))
	return math.Abs(math.Log(pb/pa)) > 1.959963984540054*math.Sqrt(v)
}
