package workspace_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/workspace"
)

func TestUsageFold(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	day := 24 * time.Hour

	fold := func(evs ...events.Event) workspace.Usage {
		var u workspace.Usage
		for _, e := range evs {
			u.Apply(e, t0)
		}
		return u
	}

	free := fold(events.SubscriptionOpened{Plan: "free"})
	require.Equal(t, "free", free.EffectivePlan(t0))
	left, limited := free.CreditsLeft(t0)
	require.True(t, limited)
	require.Equal(t, int64(workspace.FreeCredits), left)
	_, ok := free.ViewsUsedPercent(t0)
	require.False(t, ok, "no views to measure on free")

	trial := fold(events.TrialStarted{Days: 7, At: t0})
	require.Equal(t, "pro", trial.EffectivePlan(t0.Add(6*day)))
	require.Equal(t, "free", trial.EffectivePlan(t0.Add(7*day)), "the trial ends after its days")
	limit, _ := trial.ViewsLimit(t0)
	require.Equal(t, int64(workspace.ProViews), limit)

	// No time on the event: the trial starts when it was stored; days is at least 1.
	untimed := fold(events.TrialStarted{Days: 0})
	require.Equal(t, "pro", untimed.EffectivePlan(t0.Add(23*time.Hour)))
	require.Equal(t, "free", untimed.EffectivePlan(t0.Add(day)))

	ended := fold(events.TrialStarted{Days: 7, At: t0}, events.PlanChanged{From: "free", To: "free"})
	require.Equal(t, "free", ended.EffectivePlan(t0), "a plan change ends the trial")

	ent := fold(events.PlanChanged{To: "enterprise"}, events.PublicViewsConsumed{Amount: 10})
	_, limited = ent.CreditsLeft(t0)
	require.False(t, limited)
	_, ok = ent.ViewsUsedPercent(t0)
	require.False(t, ok)

	credits := fold(
		events.PlanChanged{To: "pro"},
		events.AddonPurchased{Kind: "credits", Amount: 20},
		events.CreditsReserved{Amount: 3},
		events.CreditsConsumed{Amount: 2},
		events.CreditsReleased{Amount: 1},
		events.CreditsReleased{Amount: 5},  // more than reserved: floored at 0
		events.CreditsReserved{Amount: -4}, // negative amounts are ignored
		events.AddonPurchased{Kind: "views", Amount: 5_000},
		events.PublicViewsConsumed{Amount: 30_000},
		events.PublicViewsConsumed{Amount: 3_000},
	)
	left, _ = credits.CreditsLeft(t0)
	require.Equal(t, int64(workspace.ProCredits+20-2), left)
	pct, ok := credits.ViewsUsedPercent(t0)
	require.True(t, ok)
	require.Equal(t, int64(100), pct, "capped at 100")

	broke := fold(events.CreditsConsumed{Amount: 9})
	left, _ = broke.CreditsLeft(t0)
	require.Zero(t, left, "never negative")
}
