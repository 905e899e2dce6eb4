package workspace

import (
	"time"

	"github.com/photo3d/photo3d/events"
)

// Plan allowances from the spec (accounts-and-workspace §2, Plans & Features).
// Async read models fold subscription events themselves instead of reading the
// subscription context's inline tables, so each can be replayed on its own.
// The enterprise plan is unlimited.
const (
	FreeCredits = 5
	ProCredits  = 50
	FreeViews   = 0
	ProViews    = 25_000
)

// Usage is a user's subscription state folded from subscription-{userId}
// events: enough to know, at any instant, the effective plan and how many AI
// credits and public views are left. It is stored as JSON by the projections
// that need it.
type Usage struct {
	Plan             string     `json:"plan,omitempty"`
	TrialEndsAt      *time.Time `json:"trialEndsAt,omitempty"`
	CreditsPurchased int64      `json:"creditsPurchased,omitempty"`
	CreditsUsed      int64      `json:"creditsUsed,omitempty"`
	CreditsReserved  int64      `json:"creditsReserved,omitempty"`
	ViewsPurchased   int64      `json:"viewsPurchased,omitempty"`
	ViewsUsed        int64      `json:"viewsUsed,omitempty"`
}

// UsageUserID returns the user a subscription event belongs to, and false for
// events that do not change Usage.
func UsageUserID(ev events.Event) (string, bool) {
	switch e := ev.(type) {
	case events.SubscriptionOpened:
		return e.UserID, true
	case events.TrialStarted:
		return e.UserID, true
	case events.PlanChanged:
		return e.UserID, true
	case events.AddonPurchased:
		return e.UserID, true
	case events.CreditsReserved:
		return e.UserID, true
	case events.CreditsConsumed:
		return e.UserID, true
	case events.CreditsReleased:
		return e.UserID, true
	case events.PublicViewsConsumed:
		return e.UserID, true
	}
	return "", false
}

// Apply folds one subscription event in; at is when it happened (the trial
// clock starts there when the event carries no time of its own). Amounts are
// floored at zero as the spec requires.
func (u *Usage) Apply(ev events.Event, at time.Time) {
	switch e := ev.(type) {
	case events.SubscriptionOpened:
		u.Plan = e.Plan
	case events.TrialStarted:
		start := e.At
		if start.IsZero() {
			start = at
		}
		days := max(e.Days, 1)
		end := start.Add(time.Duration(days) * 24 * time.Hour).UTC()
		u.TrialEndsAt = &end
	case events.PlanChanged:
		u.Plan = e.To
		u.TrialEndsAt = nil // upgrading or downgrading ends any trial
	case events.AddonPurchased:
		switch e.Kind {
		case "credits":
			u.CreditsPurchased += max(e.Amount, 0)
		case "views":
			u.ViewsPurchased += max(e.Amount, 0)
		}
	case events.CreditsReserved:
		u.CreditsReserved += max(e.Amount, 0)
	case events.CreditsConsumed:
		u.CreditsReserved = max(u.CreditsReserved-max(e.Amount, 0), 0)
		u.CreditsUsed += max(e.Amount, 0)
	case events.CreditsReleased:
		u.CreditsReserved = max(u.CreditsReserved-max(e.Amount, 0), 0)
	case events.PublicViewsConsumed:
		u.ViewsUsed += max(e.Amount, 0)
	}
}

// EffectivePlan is "pro" while a trial is active at now, else the plan
// ("free" when none was recorded).
func (u Usage) EffectivePlan(now time.Time) string {
	if u.TrialEndsAt != nil && now.Before(*u.TrialEndsAt) {
		return "pro"
	}
	if u.Plan == "" {
		return "free"
	}
	return u.Plan
}

// CreditsLeft returns the AI credits still available at now (reservations
// held by running builds count as spent) and false when they are unlimited.
func (u Usage) CreditsLeft(now time.Time) (left int64, limited bool) {
	included := int64(FreeCredits)
	switch u.EffectivePlan(now) {
	case "pro":
		included = ProCredits
	case "enterprise":
		return 0, false
	}
	return max(included+u.CreditsPurchased-u.CreditsUsed-u.CreditsReserved, 0), true
}

// CreditsLimit is the total AI credits allowance at now (included plus
// purchased), and false when unlimited.
func (u Usage) CreditsLimit(now time.Time) (int64, bool) {
	switch u.EffectivePlan(now) {
	case "pro":
		return ProCredits + u.CreditsPurchased, true
	case "enterprise":
		return 0, false
	}
	return FreeCredits + u.CreditsPurchased, true
}

// ViewsLimit is the total public views allowance at now (included plus
// purchased), and false when unlimited.
func (u Usage) ViewsLimit(now time.Time) (int64, bool) {
	switch u.EffectivePlan(now) {
	case "pro":
		return ProViews + u.ViewsPurchased, true
	case "enterprise":
		return 0, false
	}
	return FreeViews + u.ViewsPurchased, true
}

// ViewsUsedPercent is the share of public views used at now, rounded down and
// capped at 100; ok is false when there is no limited, non-zero allowance to
// measure against (unlimited plans, or the free plan without a views pack).
func (u Usage) ViewsUsedPercent(now time.Time) (pct int64, ok bool) {
	limit, limited := u.ViewsLimit(now)
	if !limited || limit <= 0 {
		return 0, false
	}
	return min(u.ViewsUsed*100/limit, 100), true
}
