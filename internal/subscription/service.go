package subscription

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// Service decides every subscription change. All methods that change money
// take the caller's transaction, so a job's credit hold commits or rolls back
// together with the job itself.
type Service struct {
	store    *eventstore.Store
	billing  Billing
	checkout CheckoutProvider // nil unless purchases are paid on a provider's page
	grace    time.Duration    // how long Pro survives a failed renewal
	now      func() time.Time
}

// NewService builds the service; billing takes payment for upgrades and add-ons.
func NewService(store *eventstore.Store, billing Billing) *Service {
	if billing == nil {
		billing = NoBilling{}
	}
	return &Service{store: store, billing: billing, grace: DefaultGracePeriod, now: time.Now}
}

// WithClock returns a copy that reads time from now (trial expiry tests).
func (s *Service) WithClock(now func() time.Time) *Service {
	c := *s
	c.now = now
	return &c
}

// Stream is the subscription stream of a user.
func Stream(userID string) events.Stream {
	return events.Stream{Type: events.StreamSubscription, ID: userID}
}

// apply appends evs at the record's version and projects them in tx.
func (s *Service) apply(ctx context.Context, tx pgx.Tx, userID string, expected int64, evs ...events.Event) error {
	envs, err := s.store.Append(ctx, tx, Stream(userID), expected, evs...)
	if err != nil {
		return fmt.Errorf("append to subscription %s: %w", userID, err)
	}
	for _, e := range envs {
		if err := Project(ctx, tx, e); err != nil {
			return err
		}
	}
	return nil
}

// Open creates the subscription stream and read-model row of a new user on
// the Free plan ("free plan by default", spec §4), inside the signup tx.
func (s *Service) Open(ctx context.Context, tx pgx.Tx, userID string) error {
	return s.apply(ctx, tx, userID, 0, events.SubscriptionOpened{UserID: userID, Plan: string(PlanFree), At: s.now().UTC()})
}

// Get returns the subscription view for GET /api/subscription.
func (s *Service) Get(ctx context.Context, q pgdb.Querier, userID string) (View, error) {
	r, err := loadRecord(ctx, q, userID)
	if err != nil {
		return View{}, err
	}
	return s.view(r, s.now()), nil
}

// view is NewView plus how billing works on this server.
func (s *Service) view(r Record, now time.Time) View {
	v := NewView(r, now)
	v.Billing = s.billingInfo(r, now)
	return v
}

// viewAfter re-reads the record in tx after a change.
func (s *Service) viewAfter(ctx context.Context, tx pgx.Tx, userID string) (View, error) {
	return s.Get(ctx, tx, userID)
}

// StartTrial gives the Pro plan for days days, once per account.
func (s *Service) StartTrial(ctx context.Context, tx pgx.Tx, userID string, days int) (View, error) {
	r, err := lockRecord(ctx, tx, userID)
	if err != nil {
		return View{}, err
	}
	if err := CheckTrial(r, days); err != nil {
		return View{}, err
	}
	if err := s.apply(ctx, tx, userID, r.Version, events.TrialStarted{UserID: userID, Days: days, At: s.now().UTC()}); err != nil {
		return View{}, err
	}
	return s.viewAfter(ctx, tx, userID)
}

// PurchaseAddon buys amount AI credits or public views through billing.
func (s *Service) PurchaseAddon(ctx context.Context, tx pgx.Tx, userID, kind string, amount int64) (View, error) {
	if err := CheckAddon(kind, amount); err != nil {
		return View{}, err
	}
	r, err := lockRecord(ctx, tx, userID)
	if err != nil {
		return View{}, err
	}
	price := AddonPrice(kind, amount)
	if err := s.billing.Charge(ctx, Charge{UserID: userID, Item: "addon:" + kind, Quantity: amount, AmountINR: price}); err != nil {
		return View{}, err
	}
	ev := events.AddonPurchased{UserID: userID, Kind: kind, Amount: amount, PriceINR: price, Provider: s.billing.Name(), At: s.now().UTC()}
	if err := s.apply(ctx, tx, userID, r.Version, ev); err != nil {
		return View{}, err
	}
	return s.viewAfter(ctx, tx, userID)
}

// ChangePlan upgrades to pro (through billing) or downgrades to free; either
// ends any trial. Choosing the current plan with no trial running changes nothing.
func (s *Service) ChangePlan(ctx context.Context, tx pgx.Tx, userID string, plan Plan) (View, error) {
	if err := CheckPlanChoice(plan); err != nil {
		return View{}, err
	}
	r, err := lockRecord(ctx, tx, userID)
	if err != nil {
		return View{}, err
	}
	now := s.now()
	if !NeedsPlanChange(r, plan, now) {
		return s.view(r, now), nil
	}
	if plan == PlanFree && s.checkout != nil && r.Plan == PlanPro && r.Billing.SubscriptionID != "" &&
		r.Billing.Status != "canceled" && r.Billing.Status != "incomplete_expired" {
		return View{}, errCancelInPortal
	}
	if plan == PlanPro && r.Plan != PlanPro {
		if err := s.billing.Charge(ctx, Charge{UserID: userID, Item: "plan:pro", Quantity: 1, AmountINR: PriceProMonthly}); err != nil {
			return View{}, err
		}
	}
	ev := events.PlanChanged{UserID: userID, From: string(r.Plan), To: string(plan), Provider: s.billing.Name(), At: now.UTC()}
	if err := s.apply(ctx, tx, userID, r.Version, ev); err != nil {
		return View{}, err
	}
	return s.viewAfter(ctx, tx, userID)
}

// ReserveCredits holds amount credits (floored at 0) for jobID until
// ConsumeCredits or ReleaseCredits. Not enough balance returns
// ErrInsufficientCredits and changes nothing; a repeated call for the same
// job is a no-op, so a retried request never holds twice.
func (s *Service) ReserveCredits(ctx context.Context, tx pgx.Tx, userID, jobID string, amount int64) error {
	if jobID == "" {
		return fmt.Errorf("reserve credits for user %s: empty job id", userID)
	}
	amount = FloorAmount(amount)
	r, err := lockRecord(ctx, tx, userID)
	if err != nil {
		return err
	}
	res, found, err := loadReservation(ctx, tx, jobID)
	if err != nil {
		return err
	}
	if found {
		if res.UserID != userID {
			return fmt.Errorf("reserve credits: job %s belongs to another user", jobID)
		}
		return nil
	}
	if !CanConsume(r.creditBalance(s.now()), amount) {
		return ErrInsufficientCredits
	}
	return s.apply(ctx, tx, userID, r.Version, events.CreditsReserved{UserID: userID, JobID: jobID, Amount: amount})
}

// ErrNoReservation means Consume or Release named a job that never reserved
// credits (a programming error in the caller, never a user's fault).
var ErrNoReservation = fmt.Errorf("no credit reservation for this job")

// ConsumeCredits turns jobID's hold into usage when the job succeeded. A
// second call is a no-op; consuming a released hold is an error, because
// the job was already declared failed.
func (s *Service) ConsumeCredits(ctx context.Context, tx pgx.Tx, userID, jobID string) error {
	r, res, err := s.lockReservation(ctx, tx, userID, jobID)
	if err != nil {
		return err
	}
	switch res.State {
	case "consumed":
		return nil
	case "released":
		return fmt.Errorf("consume credits of job %s: the reservation was already released", jobID)
	}
	return s.apply(ctx, tx, userID, r.Version, events.CreditsConsumed{UserID: userID, JobID: jobID, Amount: res.Amount})
}

// ReleaseCredits gives jobID's hold back when the job failed ("a failed build
// costs nothing"). Releasing twice, or after consumption, changes nothing.
func (s *Service) ReleaseCredits(ctx context.Context, tx pgx.Tx, userID, jobID, reason string) error {
	r, res, err := s.lockReservation(ctx, tx, userID, jobID)
	if err != nil {
		return err
	}
	if res.State != "reserved" {
		return nil
	}
	return s.apply(ctx, tx, userID, r.Version, events.CreditsReleased{UserID: userID, JobID: jobID, Amount: res.Amount, Reason: reason})
}

func (s *Service) lockReservation(ctx context.Context, tx pgx.Tx, userID, jobID string) (Record, reservation, error) {
	r, err := lockRecord(ctx, tx, userID)
	if err != nil {
		return Record{}, reservation{}, err
	}
	res, found, err := loadReservation(ctx, tx, jobID)
	if err != nil {
		return Record{}, reservation{}, err
	}
	if !found || res.UserID != userID {
		return Record{}, reservation{}, fmt.Errorf("job %s of user %s: %w", jobID, userID, ErrNoReservation)
	}
	return r, res, nil
}

// LeaseViews reserves up to want public views for one api instance under
// leaseID, so serving a view never touches the owner's stream. It grants
// min(want, balance) (want when unlimited), possibly 0, and returns the
// unused part of this user's expired leases first. Repeating a lease id
// returns what that lease was granted.
func (s *Service) LeaseViews(ctx context.Context, tx pgx.Tx, userID, leaseID string, want int64, ttl time.Duration) (int64, error) {
	if leaseID == "" {
		return 0, fmt.Errorf("lease views for user %s: empty lease id", userID)
	}
	r, err := lockRecord(ctx, tx, userID)
	if err != nil {
		return 0, err
	}
	if l, found, err := loadLease(ctx, tx, leaseID); err != nil {
		return 0, err
	} else if found {
		if l.UserID != userID {
			return 0, fmt.Errorf("lease %s belongs to another user", leaseID)
		}
		return l.Granted, nil
	}
	now := s.now()
	expired, err := expiredLeases(ctx, tx, userID, now)
	if err != nil {
		return 0, err
	}
	var evs []events.Event
	var freed int64
	for _, l := range expired {
		evs = append(evs, events.PublicViewsLeaseReturned{UserID: userID, LeaseID: l.ID, Amount: l.Remaining})
		freed += l.Remaining
	}
	want = FloorAmount(want)
	grant := want
	if bal := r.viewBalance(now); bal != nil {
		grant = min(want, *bal+freed)
	}
	if grant > 0 {
		evs = append(evs, events.PublicViewsLeased{UserID: userID, LeaseID: leaseID, Amount: grant, Expires: now.Add(ttl).UTC()})
	}
	if len(evs) == 0 {
		return 0, nil
	}
	if err := s.apply(ctx, tx, userID, r.Version, evs...); err != nil {
		return 0, err
	}
	return grant, nil
}

// ErrLeaseExceeded means a caller reported more views than its lease holds;
// nothing is recorded, because views are only served from a granted lease.
var ErrLeaseExceeded = fmt.Errorf("more views reported than the lease holds")

// ConsumeViews records n views (floored at 0) served from leaseID, in batches.
func (s *Service) ConsumeViews(ctx context.Context, tx pgx.Tx, userID, leaseID string, n int64) error {
	n = FloorAmount(n)
	if n == 0 {
		return nil
	}
	r, l, err := s.lockLease(ctx, tx, userID, leaseID)
	if err != nil {
		return err
	}
	if !l.Open || n > l.remaining() {
		return fmt.Errorf("consume %d views from lease %s (%d left, open=%t): %w", n, leaseID, l.remaining(), l.Open, ErrLeaseExceeded)
	}
	return s.apply(ctx, tx, userID, r.Version, events.PublicViewsConsumed{UserID: userID, LeaseID: leaseID, Amount: n})
}

// ReturnLease closes leaseID and gives its unused views back. The caller
// reports how many it has left; anything else still open on the lease was
// served and not yet reported, so it is recorded as consumed. Returning a
// closed lease is a no-op.
func (s *Service) ReturnLease(ctx context.Context, tx pgx.Tx, userID, leaseID string, unused int64) error {
	r, l, err := s.lockLease(ctx, tx, userID, leaseID)
	if err != nil {
		return err
	}
	if !l.Open {
		return nil
	}
	unused = min(FloorAmount(unused), l.remaining())
	var evs []events.Event
	if served := l.remaining() - unused; served > 0 {
		evs = append(evs, events.PublicViewsConsumed{UserID: userID, LeaseID: leaseID, Amount: served})
	}
	evs = append(evs, events.PublicViewsLeaseReturned{UserID: userID, LeaseID: leaseID, Amount: unused})
	return s.apply(ctx, tx, userID, r.Version, evs...)
}

// ErrNoLease means a lease id that was never granted to this user.
var ErrNoLease = fmt.Errorf("no such view lease")

func (s *Service) lockLease(ctx context.Context, tx pgx.Tx, userID, leaseID string) (Record, lease, error) {
	r, err := lockRecord(ctx, tx, userID)
	if err != nil {
		return Record{}, lease{}, err
	}
	l, found, err := loadLease(ctx, tx, leaseID)
	if err != nil {
		return Record{}, lease{}, err
	}
	if !found || l.UserID != userID {
		return Record{}, lease{}, fmt.Errorf("lease %s of user %s: %w", leaseID, userID, ErrNoLease)
	}
	return r, l, nil
}

// IsInsufficientCredits reports whether err is the "Not enough AI credits" fault.
func IsInsufficientCredits(err error) bool {
	fe, ok := fault.As(err)
	return ok && fe.Code == ErrInsufficientCredits.Code
}
