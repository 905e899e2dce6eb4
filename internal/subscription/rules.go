// Package subscription owns plans, trials, add-ons and the two metered
// resources of Photo3D: AI credits and public views. Both are money, so every
// change is an event on the user's subscription-{userId} stream, appended with
// optimistic concurrency while the user's read-model row is locked; the rules
// that decide (spec §4, §5, §6, §9) are pure functions in this file so they
// can be tested against the spec's own words.
package subscription

import (
	"math"
	"time"

	"github.com/photo3d/photo3d/internal/fault"
)

// Plan is a subscription tier as stored and sent to clients.
type Plan string

// The plan values of spec §3.
const (
	PlanFree       Plan = "free"
	PlanPro        Plan = "pro"
	PlanEnterprise Plan = "enterprise"
)

// Valid reports whether p is one of the known plans.
func (p Plan) Valid() bool { return p == PlanFree || p == PlanPro || p == PlanEnterprise }

// Limits are a plan's allowances; nil means unlimited (spec §3: "An absent
// included value means unlimited").
type Limits struct {
	Products    *int64
	Galleries   *int64
	AICredits   *int64
	PublicViews *int64
}

func n(v int64) *int64 { return &v }

// LimitsFor returns the constants of spec §9: Free 2 products, 0 galleries,
// 5 AI credits, 0 public views; Pro 50, 10, 50, 25000; Enterprise unlimited.
func LimitsFor(p Plan) Limits {
	switch p {
	case PlanPro:
		return Limits{Products: n(50), Galleries: n(10), AICredits: n(50), PublicViews: n(25000)}
	case PlanEnterprise:
		return Limits{}
	default:
		return Limits{Products: n(2), Galleries: n(0), AICredits: n(5), PublicViews: n(0)}
	}
}

// Prices in Indian rupees (spec §9): Pro ₹1,999 per month; add-ons 20 AI
// credits for ₹500 and 10,000 public views for ₹500.
const (
	Currency          = "INR"
	PriceProMonthly   = 1999
	PriceCreditsPack  = 500
	PriceViewsPack    = 500
	CreditsPackSize   = 20
	ViewsPackSize     = 10000
	DefaultTrialDays  = 7
	AddonKindCredits  = "credits"
	AddonKindViews    = "views"
	DefaultCreditsBuy = CreditsPackSize
	DefaultViewsBuy   = ViewsPackSize
	// MaxAddonPacks bounds one purchase (100 packs): a client-chosen amount
	// can never overflow the price arithmetic or a balance column.
	MaxAddonPacks = 100
)

// Prices is the price list sent with the subscription view.
type Prices struct {
	Currency    string `json:"currency"`
	ProMonthly  int64  `json:"proMonthly"`
	CreditsPack int64  `json:"creditsPack"`
	ViewsPack   int64  `json:"viewsPack"`
}

// CurrentPrices is the one price list (spec §9).
func CurrentPrices() Prices {
	return Prices{Currency: Currency, ProMonthly: PriceProMonthly, CreditsPack: PriceCreditsPack, ViewsPack: PriceViewsPack}
}

// AddonPrice prices an add-on of amount units pro rata to its pack, rounding
// up to a whole rupee, so a full pack costs exactly the spec's ₹500.
func AddonPrice(kind string, amount int64) int64 {
	pack, size := int64(PriceCreditsPack), int64(CreditsPackSize)
	if kind == AddonKindViews {
		pack, size = PriceViewsPack, ViewsPackSize
	}
	if amount <= 0 {
		return 0
	}
	return (amount*pack + size - 1) / size
}

// Record is the subscription record of spec §3 as stored in the read model.
type Record struct {
	UserID               string
	Plan                 Plan
	TrialStartedAt       *time.Time
	TrialDays            int
	TrialEverStarted     bool
	AICreditsPurchased   int64
	AICreditsUsed        int64
	AICreditsReserved    int64
	PublicViewsPurchased int64
	PublicViewsUsed      int64
	PublicViewsLeased    int64
	Version              int64
	Billing              BillingState
}

// TrialEndsAt is when an active or past trial ends; nil when no trial is on record.
func (r Record) TrialEndsAt() *time.Time {
	if r.TrialStartedAt == nil {
		return nil
	}
	end := r.TrialStartedAt.Add(time.Duration(r.TrialDays) * 24 * time.Hour)
	return &end
}

// TrialActive: "The trial … lasts trialDays (at least 1), and gives the pro
// plan while active" (spec §4).
func (r Record) TrialActive(now time.Time) bool {
	end := r.TrialEndsAt()
	return end != nil && r.TrialDays >= 1 && now.Before(*end)
}

// EffectivePlan: "During an active trial the effective plan is pro" (spec §6).
// A paid Pro whose renewal failed stays Pro until its grace period ends and
// is Free from that instant, even before reconciliation records the change.
func (r Record) EffectivePlan(now time.Time) Plan {
	if r.TrialActive(now) {
		return PlanPro
	}
	if r.Plan == PlanPro && r.Billing.GraceExpired(now) {
		return PlanFree
	}
	return r.Plan
}

// CanUseGalleries: "pro or enterprise have galleries" (spec §6).
func CanUseGalleries(p Plan) bool { return p == PlanPro || p == PlanEnterprise }

// CanSharePublic: "any non-free plan has public sharing" (spec §6).
func CanSharePublic(p Plan) bool { return p != PlanFree }

// HasPartTypeOption: "any non-free plan has … the part-type option" (spec §6).
func HasPartTypeOption(p Plan) bool { return p != PlanFree }

// Balance is included + purchased − used − held (reserved credits or leased
// views), floored at 0; nil when included is nil (unlimited).
func Balance(included *int64, purchased, used, held int64) *int64 {
	if included == nil {
		return nil
	}
	b := *included + purchased - used - held
	if b < 0 {
		b = 0
	}
	return &b
}

// FloorAmount: "Consumed amounts are floored at 0" (spec §5).
func FloorAmount(amount int64) int64 {
	if amount < 0 {
		return 0
	}
	return amount
}

// CanConsume: "Consuming credits or views succeeds only if the balance covers
// the amount, otherwise nothing changes and it fails; unlimited plans never
// fail" (spec §4). A nil balance is unlimited.
func CanConsume(balance *int64, amount int64) bool {
	return balance == nil || *balance >= FloorAmount(amount)
}

// UsagePercent: "Usage percentage is capped at 100, rounded, and 0 when the
// limit is unlimited" (spec §5). A zero limit counts as full once anything is used.
func UsagePercent(used int64, limit *int64) int {
	if limit == nil {
		return 0
	}
	if *limit <= 0 {
		if used > 0 {
			return 100
		}
		return 0
	}
	p := math.Round(float64(used) / float64(*limit) * 100)
	if p > 100 {
		return 100
	}
	if p < 0 {
		return 0
	}
	return int(p)
}

// User-facing failures of the subscription rules.
var (
	// ErrInsufficientCredits is the contract error of ReserveCredits.
	ErrInsufficientCredits = fault.New(fault.PaymentRequired, "insufficient_credits",
		"Not enough AI credits. Buy more credits or upgrade your plan on the Subscription page.")
	errTrialUsed    = fault.New(fault.Conflict, "trial_already_used", "The free trial has already been used on this account.")
	errTrialNotFree = fault.New(fault.Conflict, "trial_not_available", "The free trial is only available on the Free plan.")
	errTrialDays    = fault.New(fault.Invalid, "invalid_trial_days", "Trial length must be at least 1 day.")
	errAddonAmount  = fault.New(fault.Invalid, "invalid_addon_amount", "Add-on amount must be at least 1.")
	errAddonTooMany = fault.New(fault.Invalid, "invalid_addon_amount", "One purchase can be at most 100 packs (2,000 AI credits or 1,000,000 public views).")
	errAddonKind    = fault.New(fault.Invalid, "invalid_addon_kind", `Add-on kind must be "credits" or "views".`)
	errPlanChoice   = fault.New(fault.Invalid, "invalid_plan", `Plan must be "free" or "pro".`)
)

// CheckTrial: "The trial can start only once (trialEverStarted), lasts
// trialDays (at least 1)" (spec §4); only a Free account can start one.
func CheckTrial(r Record, days int) error {
	switch {
	case days < 1:
		return errTrialDays
	case r.TrialEverStarted:
		return errTrialUsed
	case r.Plan != PlanFree:
		return errTrialNotFree
	}
	return nil
}

// CheckAddon: "add-on purchase amounts are at least 1" (spec §5).
func CheckAddon(kind string, amount int64) error {
	if kind != AddonKindCredits && kind != AddonKindViews {
		return errAddonKind
	}
	if amount < 1 {
		return errAddonAmount
	}
	size := int64(CreditsPackSize)
	if kind == AddonKindViews {
		size = ViewsPackSize
	}
	if amount > MaxAddonPacks*size {
		return errAddonTooMany
	}
	return nil
}

// CheckPlanChoice accepts the self-service plans; enterprise is sales-led.
func CheckPlanChoice(p Plan) error {
	if p != PlanFree && p != PlanPro {
		return errPlanChoice
	}
	return nil
}

// NeedsPlanChange reports whether moving to p changes anything: "Upgrade to
// pro and downgrade to free both end any trial" (spec §4), so re-choosing the
// current plan still ends a running trial.
func NeedsPlanChange(r Record, p Plan, now time.Time) bool {
	return r.Plan != p || r.TrialActive(now)
}
