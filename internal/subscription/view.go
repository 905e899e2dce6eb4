package subscription

import "time"

// View is the subscription as GET /api/subscription reports it: the record
// of spec §3 plus the derived values, limits and prices. Nil pointers are
// unlimited and encode as JSON null.
type View struct {
	Plan                 Plan        `json:"plan"`
	TrialStartedAt       *time.Time  `json:"trialStartedAt"`
	TrialDays            int         `json:"trialDays"`
	TrialEverStarted     bool        `json:"trialEverStarted"`
	TrialEndsAt          *time.Time  `json:"trialEndsAt"`
	ProductLimit         *int64      `json:"productLimit"`
	GalleryLimit         *int64      `json:"galleryLimit"`
	AICreditsIncluded    *int64      `json:"aiCreditsIncluded"`
	AICreditsPurchased   int64       `json:"aiCreditsPurchased"`
	AICreditsUsed        int64       `json:"aiCreditsUsed"`
	AICreditsReserved    int64       `json:"aiCreditsReserved"`
	PublicViewsIncluded  *int64      `json:"publicViewsIncluded"`
	PublicViewsPurchased int64       `json:"publicViewsPurchased"`
	PublicViewsUsed      int64       `json:"publicViewsUsed"`
	PublicViewsLeased    int64       `json:"publicViewsLeased"`
	TrialActive          bool        `json:"trialActive"`
	EffectivePlan        Plan        `json:"effectivePlan"`
	CanUseGalleries      bool        `json:"canUseGalleries"`
	CanSharePublic       bool        `json:"canSharePublic"`
	HasPartTypeOption    bool        `json:"hasPartTypeOption"`
	AICreditBalance      *int64      `json:"aiCreditBalance"`
	PublicViewsBalance   *int64      `json:"publicViewsBalance"`
	Prices               Prices      `json:"prices"`
	Billing              BillingInfo `json:"billing"`
}

// NewView derives every value from the record at time now. Limits follow the
// effective plan, so "during a trial the included amounts are Pro's".
func NewView(r Record, now time.Time) View {
	eff := r.EffectivePlan(now)
	lim := LimitsFor(eff)
	return View{
		Plan:                 r.Plan,
		TrialStartedAt:       r.TrialStartedAt,
		TrialDays:            r.TrialDays,
		TrialEverStarted:     r.TrialEverStarted,
		TrialEndsAt:          r.TrialEndsAt(),
		ProductLimit:         lim.Products,
		GalleryLimit:         lim.Galleries,
		AICreditsIncluded:    lim.AICredits,
		AICreditsPurchased:   r.AICreditsPurchased,
		AICreditsUsed:        r.AICreditsUsed,
		AICreditsReserved:    r.AICreditsReserved,
		PublicViewsIncluded:  lim.PublicViews,
		PublicViewsPurchased: r.PublicViewsPurchased,
		PublicViewsUsed:      r.PublicViewsUsed,
		PublicViewsLeased:    r.PublicViewsLeased,
		TrialActive:          r.TrialActive(now),
		EffectivePlan:        eff,
		CanUseGalleries:      CanUseGalleries(eff),
		CanSharePublic:       CanSharePublic(eff),
		HasPartTypeOption:    HasPartTypeOption(eff),
		AICreditBalance:      Balance(lim.AICredits, r.AICreditsPurchased, r.AICreditsUsed, r.AICreditsReserved),
		PublicViewsBalance:   Balance(lim.PublicViews, r.PublicViewsPurchased, r.PublicViewsUsed, r.PublicViewsLeased),
		Prices:               CurrentPrices(),
	}
}

// creditBalance is the spendable AI credits at now (nil = unlimited).
func (r Record) creditBalance(now time.Time) *int64 {
	lim := LimitsFor(r.EffectivePlan(now))
	return Balance(lim.AICredits, r.AICreditsPurchased, r.AICreditsUsed, r.AICreditsReserved)
}

// viewBalance is the public views not yet used or leased at now (nil = unlimited).
func (r Record) viewBalance(now time.Time) *int64 {
	lim := LimitsFor(r.EffectivePlan(now))
	return Balance(lim.PublicViews, r.PublicViewsPurchased, r.PublicViewsUsed, r.PublicViewsLeased)
}
