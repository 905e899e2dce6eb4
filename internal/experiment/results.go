package experiment

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// ArmResult is an arm with its numbers: visitors are the distinct viewers whose
// view was counted in the arm, conversions those of them who reached the goal.
// The comparison with control (uplift and the rest) is nil for the control.
type ArmResult struct {
	Arm
	ArmStats
	*Comparison
}

// Results is GET /api/experiments/{id}: the experiment, each arm's numbers, and
// the headline: the leading arm's comparison (the winner when there is one, else
// the arm most likely to beat control) and the decision.
type Results struct {
	Experiment
	Arms              []ArmResult `json:"arms"`
	LeadingArmID      string      `json:"leadingArmId"`
	Uplift            float64     `json:"uplift"`
	UpliftInterval    []float64   `json:"upliftInterval"`
	ProbabilityToBeat float64     `json:"probabilityToBeat"`
	Decision          string      `json:"decision"`
	WinnerArmID       string      `json:"winnerArmId"`
	// Rule is the decision rule in words (docs/experiments.md).
	Rule string `json:"rule"`
}

// DecisionRule is how a winner is decided, as the results screen says it.
const DecisionRule = "An arm wins when its 95 % interval for the uplift over control, valid however often you look, lies wholly above zero (the 5 % is shared among the arms). Each arm needs 100 visitors and 5 conversions first."

// Results reads the owner's experiment (another owner's id: 404) and its numbers
// from the shopper telemetry.
func (s *Service) Results(ctx context.Context, userID, id string) (Results, error) {
	if _, err := uuid.Parse(id); err != nil {
		return Results{}, errNotFound
	}
	e, arms, err := scanExperiment(s.db.QueryRow(ctx, `SELECT `+experimentColumns+` FROM experiments WHERE id = $1 AND user_id = $2`, id, userID))
	if errors.Is(err, pgx.ErrNoRows) {
		return Results{}, errNotFound
	}
	if err != nil {
		return Results{}, err
	}
	ids := make([]string, len(arms))
	for i, a := range arms {
		ids[i] = a.ArmID
	}
	counts := map[string]Counts{}
	rows, err := s.db.Query(ctx, `SELECT arm, count(DISTINCT viewer) FILTER (WHERE kind = 'view' AND counted),
			count(DISTINCT viewer) FILTER (WHERE kind = $2)
		FROM shopper_events WHERE arm = ANY($1) GROUP BY arm`, ids, goalKinds[e.Goal])
	if err != nil {
		return Results{}, fmt.Errorf("count experiment: %w", err)
	}
	for rows.Next() {
		var arm string
		var c Counts
		if err := rows.Scan(&arm, &c.Visitors, &c.Conversions); err != nil {
			rows.Close()
			return Results{}, fmt.Errorf("count experiment: %w", err)
		}
		// A shopper who converted without a counted view (a crawler's, or a view
		// the balance refused) is not a visitor of the arm.
		c.Conversions = min(c.Conversions, c.Visitors)
		counts[arm] = c
	}
	if err := rows.Err(); err != nil {
		return Results{}, fmt.Errorf("count experiment: %w", err)
	}
	return summarise(e, counts), nil
}

// summarise computes the results from each arm's counts.
func summarise(e Experiment, counts map[string]Counts) Results {
	r := Results{Experiment: e, Decision: DecisionNoWinner, Rule: DecisionRule}
	r.Experiment.Arms = nil
	control := counts[e.Arms[0].ID]
	treatments := len(e.Arms) - 1
	var lead *Comparison
	for i, a := range e.Arms {
		ar := ArmResult{Arm: a, ArmStats: RateOf(counts[a.ID])}
		if i > 0 {
			c := Compare(control, counts[a.ID], treatments)
			ar.Comparison = &c
			better := lead == nil || (c.Decision == DecisionWinner && lead.Decision != DecisionWinner) ||
				(c.Decision == lead.Decision && c.ProbabilityToBeat > lead.ProbabilityToBeat)
			if better {
				lead, r.LeadingArmID = &c, a.ID
			}
		}
		r.Arms = append(r.Arms, ar)
	}
	if lead != nil {
		r.Uplift, r.UpliftInterval, r.ProbabilityToBeat = lead.Uplift, lead.UpliftInterval, lead.ProbabilityToBeat
		switch {
		case lead.Decision == DecisionWinner:
			r.Decision, r.WinnerArmID = DecisionWinner, r.LeadingArmID
		case allLose(r.Arms):
			r.Decision, r.WinnerArmID = DecisionLoser, e.Arms[0].ID
		}
	}
	return r
}

// allLose: every treatment arm is decided worse than control.
func allLose(arms []ArmResult) bool {
	for _, a := range arms[1:] {
		if a.Comparison == nil || a.Decision != DecisionLoser {
			return false
		}
	}
	return len(arms) > 1
}
