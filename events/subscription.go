package events

import "time"

// Subscription events, one subscription-{userId} stream per user. Credits and
// public views are money, so every change to a balance is an event appended
// with optimistic concurrency; the read model is rebuilt from these alone.

// SubscriptionOpened starts a stream with the plan a new account gets.
type SubscriptionOpened struct {
	UserID string    `json:"userId"`
	Plan   string    `json:"plan" erase:"keep"`
	At     time.Time `json:"at"`
}

// EventType implements Event.
func (SubscriptionOpened) EventType() string { return "subscription.opened.v1" }

// TrialStarted gives the Pro plan for Days days; it can happen once per account.
type TrialStarted struct {
	UserID string    `json:"userId"`
	Days   int       `json:"days"`
	At     time.Time `json:"at"`
}

// EventType implements Event.
func (TrialStarted) EventType() string { return "subscription.trial_started.v1" }

// PlanChanged moves between free, pro and enterprise and ends any trial.
type PlanChanged struct {
	UserID   string `json:"userId"`
	From     string `json:"from" erase:"keep"`
	To       string `json:"to" erase:"keep"`
	Provider string `json:"provider" erase:"keep"` // billing provider that accepted it, e.g. "test-mode"
	// Reason says why a provider changed it: checkout, subscription_active,
	// subscription_canceled, grace_expired, reconcile; empty for a
	// merchant's own choice.
	Reason string    `json:"reason,omitempty" erase:"keep"`
	At     time.Time `json:"at"`
}

// EventType implements Event.
func (PlanChanged) EventType() string { return "subscription.plan_changed.v1" }

// AddonPurchased adds purchased AI credits or public views.
type AddonPurchased struct {
	UserID   string    `json:"userId"`
	Kind     string    `json:"kind" erase:"keep"` // "credits" or "views"
	Amount   int64     `json:"amount"`
	PriceINR int64     `json:"priceInr"`
	Provider string    `json:"provider" erase:"keep"`
	At       time.Time `json:"at"`
}

// EventType implements Event.
func (AddonPurchased) EventType() string { return "subscription.addon_purchased.v1" }

// CreditsReserved holds credits for a job until it completes or fails.
type CreditsReserved struct {
	UserID string `json:"userId"`
	JobID  string `json:"jobId"`
	Amount int64  `json:"amount"`
}

// EventType implements Event.
func (CreditsReserved) EventType() string { return "subscription.credits_reserved.v1" }

// CreditsConsumed turns a reservation into usage when the job succeeded.
type CreditsConsumed struct {
	UserID string `json:"userId"`
	JobID  string `json:"jobId"`
	Amount int64  `json:"amount"`
}

// EventType implements Event.
func (CreditsConsumed) EventType() string { return "subscription.credits_consumed.v1" }

// CreditsReleased returns a reservation when the job failed (a failed build costs nothing).
type CreditsReleased struct {
	UserID string `json:"userId"`
	JobID  string `json:"jobId"`
	Amount int64  `json:"amount"`
	Reason string `json:"reason,omitempty" erase:"keep"`
}

// EventType implements Event.
func (CreditsReleased) EventType() string { return "subscription.credits_released.v1" }

// PublicViewsLeased reserves a block of public views for one api instance so
// that serving a view does not touch the owner's stream.
type PublicViewsLeased struct {
	UserID  string    `json:"userId"`
	LeaseID string    `json:"leaseId"`
	Amount  int64     `json:"amount"`
	Expires time.Time `json:"expires"`
}

// EventType implements Event.
func (PublicViewsLeased) EventType() string { return "subscription.views_leased.v1" }

// PublicViewsConsumed records views actually served from a lease, in batches.
type PublicViewsConsumed struct {
	UserID  string `json:"userId"`
	LeaseID string `json:"leaseId,omitempty"`
	Amount  int64  `json:"amount"`
}

// EventType implements Event.
func (PublicViewsConsumed) EventType() string { return "subscription.views_consumed.v1" }

// PublicViewsLeaseReturned gives unused leased views back to the balance.
type PublicViewsLeaseReturned struct {
	UserID  string `json:"userId"`
	LeaseID string `json:"leaseId"`
	Amount  int64  `json:"amount"`
}

// EventType implements Event.
func (PublicViewsLeaseReturned) EventType() string { return "subscription.views_lease_returned.v1" }

func subscriptionEvents() []Event {
	return []Event{SubscriptionOpened{}, TrialStarted{}, PlanChanged{}, AddonPurchased{},
		CreditsReserved{}, CreditsConsumed{}, CreditsReleased{}, PublicViewsLeased{},
		PublicViewsConsumed{}, PublicViewsLeaseReturned{}}
}
