package httpapi

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/subscription"
)

func TestSubscriptionScenarios(t *testing.T) {
	t.Parallel()
	b := acctSetup(t, acctOpts{})
	s := b.signup(t, "ada@example.com", "password1", "Ada")
	other := b.signup(t, "bob@example.com", "password1", "Bob")
	post := func(path, body string) acctReq {
		return acctReq{method: "POST", path: "/api/subscription" + path, token: s.Token, body: body}
	}
	get := func(token string) subscription.View {
		rec, r := b.send(t, acctReq{method: "GET", path: "/api/subscription", token: token})
		require.Equal(t, 200, rec.Code, rec.Body.String())
		return acctData[subscription.View](t, r)
	}

	_, r := b.send(t, acctReq{method: "GET", path: "/api/subscription", token: s.Token})
	require.JSONEq(t, `{"plan":"free","trialStartedAt":null,"trialDays":7,"trialEverStarted":false,"trialEndsAt":null,
		"productLimit":2,"productsUsed":0,"galleryLimit":0,"galleriesUsed":0,"livePages":{"products":0,"galleries":0,"blueprints":0},"aiCreditsIncluded":5,"aiCreditsPurchased":0,"aiCreditsUsed":0,"aiCreditsReserved":0,
		"publicViewsIncluded":0,"publicViewsPurchased":0,"publicViewsUsed":0,"publicViewsLeased":0,
		"trialActive":false,"effectivePlan":"free","canUseGalleries":false,"canSharePublic":false,"hasPartTypeOption":false,
		"aiCreditBalance":5,"publicViewsBalance":0,
		"prices":{"currency":"INR","proMonthly":1999,"creditsPack":500,"viewsPack":500},
		"billing":{"provider":"test-mode","purchases":"instant","notice":"Test mode: upgrades and add-ons are granted at once and no money is taken. Never use test mode in production.",
			"currentPeriodEnd":null,"cancelAtPeriodEnd":false,"graceUntil":null,"paymentFailed":false,"canManage":false}}`, string(r.Data))

	b.run(t, []scenario{
		{"no token", acctReq{method: "GET", path: "/api/subscription"}, 401, "unauthorized", "Please sign in to continue.", nil},
		{"trial: default 7 days", post("/trial", `{}`), 200, "", "", []string{"subscription.trial_started.v1"}},
		{"trial: only once", post("/trial", `{"days":3}`), 409, "trial_already_used", "The free trial has already been used on this account.", nil},
		{"addon: amount 0", post("/addons", `{"kind":"credits","amount":0}`), 400, "invalid_addon_amount", "Add-on amount must be at least 1.", nil},
		{"addon: negative", post("/addons", `{"kind":"views","amount":-5}`), 400, "invalid_addon_amount", "Add-on amount must be at least 1.", nil},
		{"addon: unknown kind", post("/addons", `{"kind":"gold"}`), 400, "invalid_addon_kind", `Add-on kind must be "credits" or "views".`, nil},
		{"addon: credits default 20", post("/addons", `{"kind":"credits"}`), 200, "", "", []string{"subscription.addon_purchased.v1"}},
		{"addon: views default 10000", post("/addons", `{"kind":"views"}`), 200, "", "", []string{"subscription.addon_purchased.v1"}},
		{"addon: 3 credits", post("/addons", `{"kind":"credits","amount":3}`), 200, "", "", []string{"subscription.addon_purchased.v1"}},
		{"plan: enterprise is not self-service", post("/plan", `{"plan":"enterprise"}`), 400, "invalid_plan", `Plan must be "free" or "pro".`, nil},
	})
	v := get(s.Token)
	require.True(t, v.TrialActive)
	require.Equal(t, subscription.PlanFree, v.Plan)
	require.Equal(t, subscription.PlanPro, v.EffectivePlan)
	require.True(t, v.CanUseGalleries)
	require.True(t, v.CanSharePublic)
	require.True(t, v.HasPartTypeOption)
	require.Equal(t, 7, v.TrialDays)
	require.WithinDuration(t, v.TrialStartedAt.Add(7*24*time.Hour), *v.TrialEndsAt, 0)
	require.Equal(t, int64(50+23), *v.AICreditBalance, "trial includes Pro's 50, plus 23 purchased")
	require.Equal(t, int64(25000+10000), *v.PublicViewsBalance)
	var prices []int64
	rows, err := b.db.Pool.Query(context.Background(), `SELECT (data->>'priceInr')::bigint FROM events WHERE type = 'subscription.addon_purchased.v1' ORDER BY position`)
	require.NoError(t, err)
	prices, err = pgx.CollectRows(rows, pgx.RowTo[int64])
	require.NoError(t, err)
	require.Equal(t, []int64{500, 500, 75}, prices)

	// The other user is untouched: every read is the caller's own.
	require.Equal(t, int64(5), *get(other.Token).AICreditBalance)

	b.run(t, []scenario{
		{"plan: upgrade to pro ends the trial", post("/plan", `{"plan":"pro"}`), 200, "", "", []string{"subscription.plan_changed.v1"}},
		{"plan: pro again changes nothing", post("/plan", `{"plan":"pro"}`), 200, "", "", nil},
	})
	v = get(s.Token)
	require.Equal(t, subscription.PlanPro, v.Plan)
	require.False(t, v.TrialActive)
	require.True(t, v.TrialEverStarted)
	b.run(t, []scenario{
		{"plan: downgrade", post("/plan", `{"plan":"free"}`), 200, "", "", []string{"subscription.plan_changed.v1"}},
		{"trial: not again after downgrade", post("/trial", `{"days":7}`), 409, "trial_already_used", "The free trial has already been used on this account.", nil},
	})
	v = get(s.Token)
	require.Equal(t, int64(5+23), *v.AICreditBalance)
	require.Equal(t, int64(10000), *v.PublicViewsBalance)

	// Credits reserved by a job show in the balance; an exhausted balance
	// refuses with the contract error.
	subs := subscription.NewService(b.store, subscription.TestMode{})
	for i := range 28 {
		require.NoError(t, pgdb.WithTx(context.Background(), b.db.Pool, func(tx pgx.Tx) error {
			return subs.ReserveCredits(context.Background(), tx, s.User.ID, fmt.Sprintf("job-%d", i), 1)
		}))
	}
	err = pgdb.WithTx(context.Background(), b.db.Pool, func(tx pgx.Tx) error {
		return subs.ReserveCredits(context.Background(), tx, s.User.ID, "job-x", 1)
	})
	require.True(t, subscription.IsInsufficientCredits(err))
	v = get(s.Token)
	require.Equal(t, int64(0), *v.AICreditBalance)
	require.Equal(t, int64(28), v.AICreditsReserved)
}

func TestSubscriptionPurchasesRefusedWithoutBilling(t *testing.T) {
	t.Parallel()
	b := acctSetup(t, acctOpts{billing: subscription.NoBilling{}})
	s := b.signup(t, "ada@example.com", "password1", "Ada")
	const msg = "Purchases are not available on this server. Please contact support to change your plan."
	b.run(t, []scenario{
		{"addon refused", acctReq{method: "POST", path: "/api/subscription/addons", token: s.Token, body: `{"kind":"credits"}`}, 403, "billing_disabled", msg, nil},
		{"upgrade refused", acctReq{method: "POST", path: "/api/subscription/plan", token: s.Token, body: `{"plan":"pro"}`}, 403, "billing_disabled", msg, nil},
		{"trial still free", acctReq{method: "POST", path: "/api/subscription/trial", token: s.Token, body: `{"days":1}`}, 200, "", "", []string{"subscription.trial_started.v1"}},
		{"downgrade needs no payment", acctReq{method: "POST", path: "/api/subscription/plan", token: s.Token, body: `{"plan":"free"}`}, 200, "", "", []string{"subscription.plan_changed.v1"}},
	})
}
