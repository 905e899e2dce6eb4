package subscription_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/subscription"
)

func ptr(v int64) *int64 { return &v }

func TestLimitsForQuoteSpec9(t *testing.T) {
	t.Parallel()
	// "Free: 2 products, 0 galleries, 5 AI credits, 0 public views. Pro: 50
	// products, 10 galleries, 50 AI credits, 25000 public views, ₹1,999 per
	// month. Enterprise: all unlimited."
	cases := []struct {
		plan subscription.Plan
		want subscription.Limits
	}{
		{subscription.PlanFree, subscription.Limits{Products: ptr(2), Galleries: ptr(0), AICredits: ptr(5), PublicViews: ptr(0)}},
		{subscription.PlanPro, subscription.Limits{Products: ptr(50), Galleries: ptr(10), AICredits: ptr(50), PublicViews: ptr(25000)}},
		{subscription.PlanEnterprise, subscription.Limits{}},
	}
	for _, c := range cases {
		require.Equal(t, c.want, subscription.LimitsFor(c.plan), c.plan)
	}
	require.Equal(t, subscription.Prices{Currency: "INR", ProMonthly: 1999, CreditsPack: 500, ViewsPack: 500}, subscription.CurrentPrices())
}

func TestAddonPrice(t *testing.T) {
	t.Parallel()
	// "Add-ons: 20 AI credits for ₹500; 10,000 public views for ₹500."
	cases := []struct {
		kind   string
		amount int64
		want   int64
	}{
		{"credits", 20, 500},
		{"credits", 40, 1000},
		{"credits", 1, 25},
		{"credits", 3, 75},
		{"views", 10000, 500},
		{"views", 1, 1},
		{"views", 0, 0},
	}
	for _, c := range cases {
		require.Equal(t, c.want, subscription.AddonPrice(c.kind, c.amount), "%s %d", c.kind, c.amount)
	}
}

func TestTrialAndEffectivePlan(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	trial := subscription.Record{Plan: subscription.PlanFree, TrialStartedAt: &start, TrialDays: 7, TrialEverStarted: true}
	// "lasts trialDays (at least 1), and gives the pro plan while active";
	// "During an active trial the effective plan is pro."
	cases := []struct {
		name   string
		r      subscription.Record
		now    time.Time
		active bool
		eff    subscription.Plan
	}{
		{"no trial", subscription.Record{Plan: subscription.PlanFree}, start, false, subscription.PlanFree},
		{"first instant", trial, start, true, subscription.PlanPro},
		{"last second", trial, start.Add(7*24*time.Hour - time.Second), true, subscription.PlanPro},
		{"ended", trial, start.Add(7 * 24 * time.Hour), false, subscription.PlanFree},
		{"enterprise without trial", subscription.Record{Plan: subscription.PlanEnterprise}, start, false, subscription.PlanEnterprise},
	}
	for _, c := range cases {
		require.Equal(t, c.active, c.r.TrialActive(c.now), c.name)
		require.Equal(t, c.eff, c.r.EffectivePlan(c.now), c.name)
	}
}

func TestPlanPermissionsQuoteSpec6(t *testing.T) {
	t.Parallel()
	// "free has no galleries and no public sharing and no part-type option; pro
	// or enterprise have galleries; any non-free plan has public sharing and
	// the part-type option."
	cases := []struct {
		plan                     subscription.Plan
		galleries, share, partTy bool
	}{
		{subscription.PlanFree, false, false, false},
		{subscription.PlanPro, true, true, true},
		{subscription.PlanEnterprise, true, true, true},
	}
	for _, c := range cases {
		require.Equal(t, c.galleries, subscription.CanUseGalleries(c.plan), c.plan)
		require.Equal(t, c.share, subscription.CanSharePublic(c.plan), c.plan)
		require.Equal(t, c.partTy, subscription.HasPartTypeOption(c.plan), c.plan)
	}
}

func TestBalanceAndConsume(t *testing.T) {
	t.Parallel()
	// Balance = included + purchased − used − reserved; "An absent included
	// value means unlimited"; "Consuming … succeeds only if the balance covers
	// the amount …; unlimited plans never fail"; "Consumed amounts are floored at 0".
	cases := []struct {
		name                       string
		included                   *int64
		purchased, used, held, amt int64
		balance                    *int64
		ok                         bool
	}{
		{"free fresh", ptr(5), 0, 0, 0, 1, ptr(5), true},
		{"exactly covered", ptr(5), 0, 3, 1, 1, ptr(1), true},
		{"not covered", ptr(5), 0, 4, 1, 1, ptr(0), false},
		{"purchased adds", ptr(5), 20, 5, 0, 20, ptr(20), true},
		{"never negative", ptr(5), 0, 9, 0, 0, ptr(0), true},
		{"negative amount floored", ptr(0), 0, 0, 0, -5, ptr(0), true},
		{"unlimited never fails", nil, 0, 1e9, 0, 1e9, nil, true},
	}
	for _, c := range cases {
		b := subscription.Balance(c.included, c.purchased, c.used, c.held)
		require.Equal(t, c.balance, b, c.name)
		require.Equal(t, c.ok, subscription.CanConsume(b, c.amt), c.name)
	}
	require.Equal(t, int64(0), subscription.FloorAmount(-3))
	require.Equal(t, int64(3), subscription.FloorAmount(3))
}

func TestUsagePercentQuoteSpec5(t *testing.T) {
	t.Parallel()
	// "Usage percentage is capped at 100, rounded, and 0 when the limit is unlimited."
	cases := []struct {
		used  int64
		limit *int64
		want  int
	}{
		{0, ptr(5), 0},
		{1, ptr(3), 33},
		{2, ptr(3), 67},
		{5, ptr(5), 100},
		{9, ptr(5), 100},
		{1000, nil, 0},
		{0, ptr(0), 0},
		{1, ptr(0), 100},
	}
	for _, c := range cases {
		require.Equal(t, c.want, subscription.UsagePercent(c.used, c.limit), "%d/%v", c.used, c.limit)
	}
}

func TestTrialAddonAndPlanChecks(t *testing.T) {
	t.Parallel()
	free := subscription.Record{Plan: subscription.PlanFree}
	used := subscription.Record{Plan: subscription.PlanFree, TrialEverStarted: true}
	pro := subscription.Record{Plan: subscription.PlanPro}
	msg := func(err error) string {
		if err == nil {
			return ""
		}
		fe, ok := fault.As(err)
		require.True(t, ok)
		return fe.Message
	}
	// "The trial can start only once (trialEverStarted), lasts trialDays (at least 1)".
	require.Equal(t, "", msg(subscription.CheckTrial(free, 7)))
	require.Equal(t, "", msg(subscription.CheckTrial(free, 1)))
	require.Equal(t, "Trial length must be at least 1 day.", msg(subscription.CheckTrial(free, 0)))
	require.Equal(t, "The free trial has already been used on this account.", msg(subscription.CheckTrial(used, 7)))
	require.Equal(t, "The free trial is only available on the Free plan.", msg(subscription.CheckTrial(pro, 7)))
	// "add-on purchase amounts are at least 1".
	require.Equal(t, "", msg(subscription.CheckAddon("credits", 1)))
	require.Equal(t, "Add-on amount must be at least 1.", msg(subscription.CheckAddon("views", 0)))
	require.Equal(t, `Add-on kind must be "credits" or "views".`, msg(subscription.CheckAddon("gold", 5)))
	require.Equal(t, "", msg(subscription.CheckPlanChoice(subscription.PlanPro)))
	require.Equal(t, `Plan must be "free" or "pro".`, msg(subscription.CheckPlanChoice(subscription.PlanEnterprise)))

	// "Upgrade to pro and downgrade to free both end any trial."
	now := time.Now()
	start := now.Add(-time.Hour)
	inTrial := subscription.Record{Plan: subscription.PlanFree, TrialStartedAt: &start, TrialDays: 7, TrialEverStarted: true}
	require.True(t, subscription.NeedsPlanChange(inTrial, subscription.PlanFree, now))
	require.True(t, subscription.NeedsPlanChange(inTrial, subscription.PlanPro, now))
	require.False(t, subscription.NeedsPlanChange(free, subscription.PlanFree, now))
	require.True(t, subscription.NeedsPlanChange(free, subscription.PlanPro, now))
}

func TestViewDuringTrialUsesProAllowances(t *testing.T) {
	t.Parallel()
	now := time.Now()
	start := now.Add(-time.Hour)
	r := subscription.Record{Plan: subscription.PlanFree, TrialStartedAt: &start, TrialDays: 7, TrialEverStarted: true,
		AICreditsUsed: 3, AICreditsReserved: 2, PublicViewsPurchased: 10, PublicViewsUsed: 5, PublicViewsLeased: 5}
	v := subscription.NewView(r, now)
	require.True(t, v.TrialActive)
	require.Equal(t, subscription.PlanPro, v.EffectivePlan)
	require.Equal(t, ptr(50), v.AICreditsIncluded)
	require.Equal(t, ptr(45), v.AICreditBalance)
	require.Equal(t, ptr(25000), v.PublicViewsBalance)
	require.True(t, v.CanUseGalleries)
	require.Equal(t, start.Add(7*24*time.Hour), *v.TrialEndsAt)

	ended := subscription.NewView(r, now.Add(8*24*time.Hour))
	require.False(t, ended.TrialActive)
	require.Equal(t, ptr(0), ended.AICreditBalance)
	require.Equal(t, ptr(0), ended.PublicViewsBalance)
}
