package publish

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/periodic"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/subscription"
)

// ViewLedger is the owner's public-view balance (internal/subscription). All
// three calls append to the owner's subscription stream inside tx.
type ViewLedger interface {
	// LeaseViews reserves up to want views for this instance until ttl passes
	// and returns how many were granted: min(want, balance), want when unlimited.
	LeaseViews(ctx context.Context, tx pgx.Tx, userID, leaseID string, want int64, ttl time.Duration) (int64, error)
	// ConsumeViews records n views served from a lease.
	ConsumeViews(ctx context.Context, tx pgx.Tx, userID, leaseID string, n int64) error
	// ReturnLease gives a lease's unused views back to the balance and ends it.
	ReturnLease(ctx context.Context, tx pgx.Tx, userID, leaseID string, unused int64) error
}

// MeterConfig tunes the meter; zero values take the defaults in NewMeter.
type MeterConfig struct {
	Block          int64         // first lease size for an owner (default 50)
	MaxBlock       int64         // lease size cap for busy owners (default 2000)
	LeaseTTL       time.Duration // how long a lease is valid in the ledger (default 10m)
	SafetyMargin   time.Duration // stop serving this long before expiry (default 2m)
	FlushEvery     time.Duration // how often served views are written (default 2s)
	IdleReturn     time.Duration // return an unused lease after this long without views (default 1m)
	ExhaustedRetry time.Duration // how long a refused owner is not re-asked (default 3s)
}

// Meter serves public views from leased blocks. See the package doc.
type Meter struct {
	db     pgdb.Beginner
	ledger ViewLedger
	store  *eventstore.Store
	log    *slog.Logger
	cfg    MeterConfig
	now    func() time.Time

	mu     sync.Mutex
	owners map[string]*ownerMeter
}

// lease is one block of views leased to this instance.
type lease struct {
	id         string
	granted    int64
	served     int64 // views handed out from this lease
	flushed    int64 // of served, how many are recorded in the ledger
	serveUntil time.Time
	leasedAt   time.Time
}

// ownerMeter is one owner's state on this instance.
type ownerMeter struct {
	userID string

	mu             sync.Mutex // guards the fields below; held only for counter updates
	cur            *lease     // the lease views are served from; nil when none
	retiring       []*lease   // leases no longer served from, not yet settled
	exhaustedUntil time.Time  // refused until then without asking the ledger again
	lastView       time.Time
	nextBlock      int64
	// forgotten: Flush dropped this owner from the map. A caller that got it
	// from the map just before must not lease on it (nobody would ever
	// settle that lease): refill answers errOwnerForgotten and the caller
	// starts again with the owner now in the map.
	forgotten bool

	refill sync.Mutex // one lease request per owner at a time
	settle sync.Mutex // one ledger write per owner at a time
}

// NewMeter builds a meter; Run must be started for views to be recorded.
func NewMeter(db pgdb.Beginner, ledger ViewLedger, store *eventstore.Store, log *slog.Logger, cfg MeterConfig) *Meter {
	if cfg.Block <= 0 {
		cfg.Block = 50
	}
	if cfg.MaxBlock < cfg.Block {
		cfg.MaxBlock = max(2000, cfg.Block)
	}
	if cfg.LeaseTTL <= 0 {
		cfg.LeaseTTL = 10 * time.Minute
	}
	if cfg.SafetyMargin <= 0 || cfg.SafetyMargin >= cfg.LeaseTTL {
		cfg.SafetyMargin = cfg.LeaseTTL / 5
	}
	if cfg.FlushEvery <= 0 {
		cfg.FlushEvery = 2 * time.Second
	}
	if cfg.IdleReturn <= 0 {
		cfg.IdleReturn = time.Minute
	}
	if cfg.ExhaustedRetry <= 0 {
		cfg.ExhaustedRetry = 3 * time.Second
	}
	if log == nil {
		log = slog.Default()
	}
	return &Meter{db: db, ledger: ledger, store: store, log: log, cfg: cfg, now: time.Now, owners: map[string]*ownerMeter{}}
}

func (m *Meter) owner(userID string) *ownerMeter {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.owners[userID]
	if !ok {
		o = &ownerMeter{userID: userID, nextBlock: m.cfg.Block}
		m.owners[userID] = o
	}
	return o
}

// takeLocal serves one view from memory when the current lease allows it.
func (o *ownerMeter) takeLocal(now time.Time) (served, refused bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if c := o.cur; c != nil && c.served < c.granted && now.Before(c.serveUntil) {
		c.served++
		o.lastView = now
		return true, false
	}
	return false, now.Before(o.exhaustedUntil)
}

// Take consumes one public view of userID's balance for publicationID. It
// answers false when the balance is exhausted (or the ledger cannot be
// reached: a view is never served on credit). The common case touches only
// memory.
func (m *Meter) Take(ctx context.Context, userID, publicationID string) bool {
	for {
		o := m.owner(userID)
		served, refused := o.takeLocal(m.now())
		if served {
			return true
		}
		if refused {
			return false
		}
		ok, err := m.refill(ctx, o, publicationID)
		if errors.Is(err, errOwnerForgotten) {
			continue
		}
		if err != nil {
			m.log.Error("lease public views", "err", err)
			return false
		}
		if !ok {
			return false
		}
	}
}

// errOwnerForgotten: the ownerMeter was dropped by Flush between the
// caller's map lookup and its refill; look the owner up again.
var errOwnerForgotten = errors.New("owner meter forgotten")

// Available reports, without consuming a view, whether userID's balance
// can still serve publicationID: true while a lease has views left, false
// while the owner is known to be exhausted, else it asks the ledger (by
// leasing a block, as the next page view would). The model file and poster
// of an exhausted publication are refused with it, so fetching them directly
// is no way around the metered page.
func (m *Meter) Available(ctx context.Context, userID, publicationID string) bool {
	o := m.owner(userID)
	for {
		ok, retry := m.available(ctx, o, publicationID)
		if !retry {
			return ok
		}
		o = m.owner(userID)
	}
}

// available is one attempt of Available; retry means o was forgotten.
func (m *Meter) available(ctx context.Context, o *ownerMeter, publicationID string) (ok, retry bool) {
	now := m.now()
	o.mu.Lock()
	if c := o.cur; c != nil && c.served < c.granted && now.Before(c.serveUntil) {
		o.mu.Unlock()
		return true, false
	}
	if now.Before(o.exhaustedUntil) {
		o.mu.Unlock()
		return false, false
	}
	o.mu.Unlock()
	ok, err := m.refill(ctx, o, publicationID)
	if errors.Is(err, errOwnerForgotten) {
		return false, true
	}
	if err != nil {
		m.log.Error("lease public views", "err", err)
		return false, false
	}
	return ok, false
}

// refill retires the current lease and leases a new block. Only one caller
// per owner leases at a time; the others wait and then serve from the new
// lease (or see the exhaustion).
func (m *Meter) refill(ctx context.Context, o *ownerMeter, publicationID string) (bool, error) {
	o.refill.Lock()
	defer o.refill.Unlock()
	now := m.now()
	o.mu.Lock()
	if o.forgotten {
		o.mu.Unlock()
		return false, errOwnerForgotten
	}
	if c := o.cur; c != nil && c.served < c.granted && now.Before(c.serveUntil) {
		o.mu.Unlock()
		return true, nil // someone else refilled while we waited
	}
	if now.Before(o.exhaustedUntil) {
		o.mu.Unlock()
		return false, nil
	}
	want := o.nextBlock
	if c := o.cur; c != nil {
		// A block used up quickly means a busy owner: lease bigger blocks so
		// the owner's stream sees a handful of leases per second at most.
		if c.served >= c.granted && now.Sub(c.leasedAt) < 10*time.Second {
			want = min(max(c.granted, want)*2, m.cfg.MaxBlock)
		} else {
			want = m.cfg.Block
		}
		o.retiring = append(o.retiring, c)
		o.cur = nil
	}
	o.nextBlock = want
	o.mu.Unlock()

	// Settle the retired lease first so its unused views are back in the
	// balance before we ask for more.
	if err := m.settleOwner(ctx, o); err != nil {
		return false, err
	}
	id := newLeaseID()
	var granted int64
	err := pgdb.WithTx(ctx, m.db, func(tx pgx.Tx) error {
		var err error
		granted, err = m.ledger.LeaseViews(ctx, tx, o.userID, id, want, m.cfg.LeaseTTL)
		if err != nil {
			return err
		}
		if granted > 0 {
			_, err = tx.Exec(ctx, `DELETE FROM public_view_exhaustions WHERE user_id = $1`, o.userID)
			return err
		}
		return m.recordExhaustion(ctx, tx, o.userID, publicationID)
	})
	if err != nil {
		return false, fmt.Errorf("lease views for %s: %w", o.userID, err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if granted <= 0 {
		o.exhaustedUntil = now.Add(m.cfg.ExhaustedRetry)
		return false, nil
	}
	o.cur = &lease{id: id, granted: granted, leasedAt: now, serveUntil: now.Add(m.cfg.LeaseTTL - m.cfg.SafetyMargin)}
	return true, nil
}

// recordExhaustion appends PublicViewsExhausted once per exhaustion: the
// marker row's primary key makes concurrent instances agree on who tells.
func (m *Meter) recordExhaustion(ctx context.Context, tx pgx.Tx, userID, publicationID string) error {
	tag, err := tx.Exec(ctx, `INSERT INTO public_view_exhaustions (user_id, publication_id, since)
		VALUES ($1, $2, now()) ON CONFLICT (user_id) DO NOTHING`, userID, publicationID)
	if err != nil {
		return fmt.Errorf("mark exhaustion: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return nil
	}
	_, err = m.store.Append(ctx, tx, stream(publicationID), eventstore.AnyVersion,
		events.PublicViewsExhausted{UserID: userID, PublicationID: publicationID, At: m.now().UTC()})
	return err
}

// settleOwner writes what memory owes the ledger: views served since the last
// flush (one PublicViewsConsumed per lease) and the unused rest of retired
// leases. On failure nothing is forgotten; the next flush retries.
func (m *Meter) settleOwner(ctx context.Context, o *ownerMeter) error {
	o.settle.Lock()
	defer o.settle.Unlock()
	type work struct {
		l      *lease
		delta  int64
		unused int64
		retire bool
	}
	var pending []work
	o.mu.Lock()
	if c := o.cur; c != nil && c.served > c.flushed {
		pending = append(pending, work{l: c, delta: c.served - c.flushed})
	}
	for _, l := range o.retiring {
		pending = append(pending, work{l: l, delta: l.served - l.flushed, unused: l.granted - l.served, retire: true})
	}
	o.mu.Unlock()
	if len(pending) == 0 {
		return nil
	}
	// One transaction per lease, so a lease the ledger no longer knows (it
	// expired and was reclaimed while the database was unreachable) cannot
	// block the others.
	var errs []error
	for _, w := range pending {
		err := pgdb.WithTx(ctx, m.db, func(tx pgx.Tx) error {
			if w.delta > 0 {
				if err := m.ledger.ConsumeViews(ctx, tx, o.userID, w.l.id, w.delta); err != nil {
					return err
				}
			}
			if w.retire {
				return m.ledger.ReturnLease(ctx, tx, o.userID, w.l.id, w.unused)
			}
			return nil
		})
		dead := errors.Is(err, subscription.ErrLeaseExceeded) || errors.Is(err, subscription.ErrNoLease)
		if err != nil && !dead {
			errs = append(errs, fmt.Errorf("settle views of %s: %w", o.userID, err))
			continue
		}
		if dead {
			// The ledger closed this lease itself; what it did not record
			// is lost in the merchant's favour, never charged twice.
			m.log.Error("view lease reclaimed before it was settled", "lease", w.l.id, "unrecorded", w.delta, "err", err)
			w.retire = true
		}
		o.mu.Lock()
		w.l.flushed += w.delta
		if w.retire {
			if o.cur == w.l {
				o.cur = nil
			}
			o.retiring = removeLease(o.retiring, w.l)
		}
		o.mu.Unlock()
	}
	return errors.Join(errs...)
}

func removeLease(ls []*lease, l *lease) []*lease {
	out := ls[:0]
	for _, x := range ls {
		if x != l {
			out = append(out, x)
		}
	}
	return out
}

// Flush writes every owner's served views now and retires leases that are
// idle or near expiry. Run calls it every FlushEvery.
func (m *Meter) Flush(ctx context.Context) error {
	m.mu.Lock()
	owners := make([]*ownerMeter, 0, len(m.owners))
	for _, o := range m.owners {
		owners = append(owners, o)
	}
	m.mu.Unlock()
	now := m.now()
	var errs []error
	for _, o := range owners {
		o.mu.Lock()
		if c := o.cur; c != nil && (!now.Before(c.serveUntil) || now.Sub(o.lastView) >= m.cfg.IdleReturn ||
			(c.served >= c.granted && now.Sub(o.lastView) >= m.cfg.FlushEvery)) {
			o.retiring = append(o.retiring, c)
			o.cur = nil
		}
		idle := o.cur == nil && len(o.retiring) == 0 && !now.Before(o.exhaustedUntil)
		o.mu.Unlock()
		if err := m.settleOwner(ctx, o); err != nil {
			errs = append(errs, err)
			continue
		}
		if idle {
			m.forget(o)
		}
	}
	return errors.Join(errs...)
}

// forget drops an idle owner so the map holds only owners with recent views.
// An owner whose first lease is being requested looks idle too (no lease,
// no view yet): it is kept while a refill holds o.refill, and marked
// forgotten otherwise so a caller that already holds it starts again —
// else the views served from that lease would never be settled.
func (m *Meter) forget(o *ownerMeter) {
	if !o.refill.TryLock() {
		return // a lease is being requested right now
	}
	defer o.refill.Unlock()
	m.mu.Lock()
	defer m.mu.Unlock()
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.cur == nil && len(o.retiring) == 0 && m.owners[o.userID] == o && m.now().Sub(o.lastView) > m.cfg.IdleReturn {
		o.forgotten = true
		delete(m.owners, o.userID)
	}
}

// Run flushes every FlushEvery until ctx ends; then Close returns the leases.
func (m *Meter) Run(ctx context.Context) {
	periodic.Run(ctx, m.cfg.FlushEvery, m.log, "flush public views", m.Flush)
}

// Close stops serving from every lease, records what was served and returns
// the unused views to the balances. Call it on shutdown after the HTTP server
// has drained; a lease that cannot be returned expires in the ledger.
func (m *Meter) Close(ctx context.Context) error {
	m.mu.Lock()
	owners := make([]*ownerMeter, 0, len(m.owners))
	for _, o := range m.owners {
		owners = append(owners, o)
	}
	m.mu.Unlock()
	var errs []error
	for _, o := range owners {
		o.mu.Lock()
		if o.cur != nil {
			o.retiring = append(o.retiring, o.cur)
			o.cur = nil
		}
		o.exhaustedUntil = m.now().Add(time.Hour) // refuse late views instead of re-leasing
		o.mu.Unlock()
		if err := m.settleOwner(ctx, o); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func newLeaseID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
