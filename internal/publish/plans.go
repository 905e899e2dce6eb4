package publish

import (
	"context"

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
