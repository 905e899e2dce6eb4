package publish

import (
	"context"

	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/subscription"
)

// SubscriptionPlans answers Plans from the subscription read model: sharing
// follows the effective plan, so a running trial counts as Pro.
type SubscriptionPlans struct {
	Subscriptions *subscription.Service
	DB            pgdb.Querier
}

// CanSharePublic implements Plans.
func (p SubscriptionPlans) CanSharePublic(ctx context.Context, userID string) (bool, error) {
	v, err := p.Subscriptions.Get(ctx, p.DB, userID)
	if err != nil {
		return false, err
	}
	return v.CanSharePublic, nil
}

// AccountBrands reads an owner's branding from internal/account.
type AccountBrands struct {
	Accounts *account.Service
	DB       pgdb.Querier
}

// Brand implements Brands. A merchant who never named a brand gets Name "", so
// the page falls back to DefaultBrand rather than the settings form's placeholder.
func (a AccountBrands) Brand(ctx context.Context, userID string) (Brand, error) {
	b, err := a.Accounts.PublicBrand(ctx, a.DB, userID)
	if err != nil {
		return Brand{}, err
	}
	return Brand{Name: b.BrandName, Color: b.BrandColor, LogoKey: b.LogoKey}, nil
}
