package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// Endpoint is a registered webhook as the owner sees it (never the secret).
type Endpoint struct {
	ID        string    `json:"id"`
	URL       string    `json:"url"`
	Events    []string  `json:"events"`
	CreatedAt time.Time `json:"createdAt"`
}

// Created is the answer to a registration: the only time the secret is shown.
type Created struct {
	Endpoint
	Secret string `json:"secret"`
}

// MsgSecretShownOnce explains a replayed registration without its secret.
const MsgSecretShownOnce = "The signing secret is shown once, in the first answer to this registration; a retry with the same Idempotency-Key does not repeat it. If you lost it, delete this endpoint and register it again."

// Replayed is what an idempotent retry of a registration answers: the
// endpoint without its secret (null), and why.
type Replayed struct {
	Endpoint
	Secret     *string `json:"secret"`
	SecretNote string  `json:"secretNote"`
}

// Replay is c as a retry of its registration may see it.
func (c Created) Replay() Replayed {
	return Replayed{Endpoint: c.Endpoint, SecretNote: MsgSecretShownOnce}
}

// Delivery is one line of an endpoint's delivery log.
type Delivery struct {
	ID             string     `json:"id"`
	EventID        string     `json:"eventId"`
	EventType      string     `json:"eventType"`
	State          string     `json:"state"` // pending | delivered | failed
	Attempts       int        `json:"attempts"`
	LastStatus     *int       `json:"lastStatus"`
	LastError      string     `json:"lastError"`
	FirstAttemptAt *time.Time `json:"firstAttemptAt"`
	LastAttemptAt  *time.Time `json:"lastAttemptAt"`
	NextRetryAt    *time.Time `json:"nextRetryAt"`
	FinishedAt     *time.Time `json:"finishedAt"`
	CreatedAt      time.Time  `json:"createdAt"`
}

// Delivery states.
const (
	StatePending   = "pending"
	StateDelivered = "delivered"
	StateFailed    = "failed"
)

// Input is a registration request.
type Input struct {
	URL    string   `json:"url"`
	Events []string `json:"events"`
	Secret string   `json:"secret,omitempty"`
}

// Payload is the JSON body of every delivery.
type Payload struct {
	ID      string         `json:"id"`
	Type    string         `json:"type"`
	Created time.Time      `json:"created"`
	Data    map[string]any `json:"data"`
}

// Service registers endpoints and reads their delivery logs for the api.
type Service struct {
	db           *pgxpool.Pool
	store        *eventstore.Store
	river        *river.Client[pgx.Tx]
	allowPrivate bool
	now          func() time.Time
}

// NewService builds the api's side; rc may be insert-only.
func NewService(db *pgxpool.Pool, store *eventstore.Store, rc *river.Client[pgx.Tx], allowPrivate bool) *Service {
	return &Service{db: db, store: store, river: rc, allowPrivate: allowPrivate, now: time.Now}
}

// List returns the owner's active endpoints, newest first.
func (s *Service) List(ctx context.Context, userID string) ([]Endpoint, error) {
	rows, err := s.db.Query(ctx, `SELECT id, url, events, created_at FROM webhook_endpoints
		WHERE user_id = $1 AND removed_at IS NULL ORDER BY created_at DESC, id DESC`, userID)
	if err != nil {
		return nil, fmt.Errorf("list webhooks: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Endpoint, error) {
		var e Endpoint
		err := r.Scan(&e.ID, &e.URL, &e.Events, &e.CreatedAt)
		e.CreatedAt = e.CreatedAt.UTC()
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("list webhooks: %w", err)
	}
	if out == nil {
		out = []Endpoint{}
	}
	return out, nil
}

// Create registers an endpoint; the secret is generated when none is given.
func (s *Service) Create(ctx context.Context, userID string, in Input) (Created, error) {
	u, err := checkURL(in.URL, s.allowPrivate)
	if err != nil {
		return Created{}, err
	}
	types, err := checkEvents(in.Events)
	if err != nil {
		return Created{}, err
	}
	secret := in.Secret
	if secret == "" {
		if secret, err = newSecret(); err != nil {
			return Created{}, err
		}
	} else if err := checkSecret(secret); err != nil {
		return Created{}, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return Created{}, fmt.Errorf("webhook id: %w", err)
	}
	parsed, _ := url.Parse(u)
	now := s.now().UTC().Truncate(time.Microsecond)
	c := Created{Endpoint: Endpoint{ID: id.String(), URL: u, Events: types, CreatedAt: now}, Secret: secret}
	err = pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		// One owner's registrations are serialised so two racing requests
		// cannot both pass the count.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('webhooks/' || $1, 0))`, userID); err != nil {
			return fmt.Errorf("lock webhooks: %w", err)
		}
		// Only a proven address may register endpoints: someone who
		// pre-registered a merchant's address must not be able to leave a
		// receiver of shoppers' emails behind for the real owner.
		if _, err := account.RequireVerified(ctx, tx, userID, "adding webhooks"); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM webhook_endpoints WHERE user_id = $1 AND removed_at IS NULL`, userID).Scan(&n); err != nil {
			return fmt.Errorf("count webhooks: %w", err)
		}
		if n >= MaxEndpoints {
			return errTooMany
		}
		if _, err := s.store.Append(ctx, tx, stream(c.ID), 0, events.WebhookRegistered{
			WebhookID: c.ID, UserID: userID, Host: parsed.Host, Events: types, At: now}); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO webhook_endpoints (id, user_id, url, events, secret, created_at)
			VALUES ($1, $2, $3, $4, $5, $6)`, c.ID, userID, u, types, secret, now)
		if err != nil {
			return fmt.Errorf("save webhook: %w", err)
		}
		return nil
	})
	if err != nil {
		return Created{}, err
	}
	return c, nil
}

func stream(id string) events.Stream { return events.Stream{Type: events.StreamWebhook, ID: id} }

// Remove stops deliveries to the owner's endpoint; pending ones end as failed
// when their next attempt finds the endpoint gone. Another user's id is 404.
func (s *Service) Remove(ctx context.Context, userID, id string) error {
	if _, err := uuid.Parse(id); err != nil {
		return errNotFound
	}
	now := s.now().UTC()
	return pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE webhook_endpoints SET removed_at = $3
			WHERE id = $1 AND user_id = $2 AND removed_at IS NULL`, id, userID, now)
		if err != nil {
			return fmt.Errorf("remove webhook: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return errNotFound
		}
		_, err = s.store.Append(ctx, tx, stream(id), eventstore.AnyVersion, events.WebhookRemoved{WebhookID: id, UserID: userID, At: now})
		return err
	})
}

// EndAccess implements account.AccessRevoker: when a password reset proves
// the address of an account that was unverified until then, every endpoint
// is removed (a webhook.removed.v1 each, in tx): whoever registered the
// address first may have set them up. Ending sessions alone keeps them.
func (s *Service) EndAccess(ctx context.Context, tx pgx.Tx, userID string, why account.AccessEnd, at time.Time) error {
	if why != account.AddressProven && why != account.AccountErased {
		return nil
	}
	rows, err := tx.Query(ctx, `UPDATE webhook_endpoints SET removed_at = $2
		WHERE user_id = $1 AND removed_at IS NULL RETURNING id`, userID, at.UTC())
	if err != nil {
		return fmt.Errorf("remove webhooks: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("remove webhooks: %w", err)
	}
	for _, id := range ids {
		if _, err := s.store.Append(ctx, tx, stream(id), eventstore.AnyVersion, events.WebhookRemoved{WebhookID: id, UserID: userID, At: at.UTC()}); err != nil {
			return err
		}
	}
	return nil
}

// owned locks and checks the owner's active endpoint.
func owned(ctx context.Context, q pgdb.Querier, userID, id string) error {
	if _, err := uuid.Parse(id); err != nil {
		return errNotFound
	}
	var one int
	err := q.QueryRow(ctx, `SELECT 1 FROM webhook_endpoints WHERE id = $1 AND user_id = $2 AND removed_at IS NULL`, id, userID).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return errNotFound
	}
	if err != nil {
		return fmt.Errorf("find webhook: %w", err)
	}
	return nil
}

// Test queues a webhook.test delivery to the owner's endpoint (the "Send test
// event" button); the worker sends it like any other.
func (s *Service) Test(ctx context.Context, userID, id string) (Delivery, error) {
	now := s.now().UTC().Truncate(time.Microsecond)
	evID, err := uuid.NewV7()
	if err != nil {
		return Delivery{}, err
	}
	p := Payload{ID: "evt_test_" + evID.String(), Type: EventTest, Created: now,
		Data: map[string]any{"webhookId": id, "message": "This is a test event from Photo3D."}}
	var d Delivery
	err = pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		if err := owned(ctx, tx, userID, id); err != nil {
			return err
		}
		did, _, err := enqueue(ctx, tx, s.river, id, userID, p)
		if err != nil {
			return err
		}
		d, err = loadDelivery(ctx, tx, did)
		return err
	})
	return d, err
}

// Deliveries returns the newest deliveries of the owner's active endpoint;
// a removed endpoint, like another user's, is 404.
func (s *Service) Deliveries(ctx context.Context, userID, id string, limit int) ([]Delivery, error) {
	if limit == 0 {
		limit = 50
	}
	if limit < 1 || limit > MaxLogLimit {
		return nil, errLimit
	}
	if err := owned(ctx, s.db, userID, id); err != nil {
		return nil, err
	}
	rows, err := s.db.Query(ctx, selectDelivery+` WHERE endpoint_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`, id, limit)
	if err != nil {
		return nil, fmt.Errorf("list deliveries: %w", err)
	}
	out, err := pgx.CollectRows(rows, scanDelivery)
	if err != nil {
		return nil, fmt.Errorf("list deliveries: %w", err)
	}
	if out == nil {
		out = []Delivery{}
	}
	return out, nil
}

// ParseLimit reads ?limit= for the delivery log.
func ParseLimit(v string) (int, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > MaxLogLimit {
		return 0, errLimit
	}
	return n, nil
}

const selectDelivery = `SELECT id, event_id, event_type, state, attempts, last_status, last_error,
	first_attempt_at, last_attempt_at, next_retry_at, finished_at, created_at FROM webhook_deliveries`

func scanDelivery(r pgx.CollectableRow) (Delivery, error) {
	var d Delivery
	err := r.Scan(&d.ID, &d.EventID, &d.EventType, &d.State, &d.Attempts, &d.LastStatus, &d.LastError,
		&d.FirstAttemptAt, &d.LastAttemptAt, &d.NextRetryAt, &d.FinishedAt, &d.CreatedAt)
	d.CreatedAt = d.CreatedAt.UTC()
	for _, t := range []**time.Time{&d.FirstAttemptAt, &d.LastAttemptAt, &d.NextRetryAt, &d.FinishedAt} {
		if *t != nil {
			u := (*t).UTC()
			*t = &u
		}
	}
	return d, err
}

func loadDelivery(ctx context.Context, q pgdb.Querier, id string) (Delivery, error) {
	rows, err := q.Query(ctx, selectDelivery+` WHERE id = $1`, id)
	if err != nil {
		return Delivery{}, fmt.Errorf("load delivery: %w", err)
	}
	d, err := pgx.CollectExactlyOneRow(rows, scanDelivery)
	if err != nil {
		return Delivery{}, fmt.Errorf("load delivery: %w", err)
	}
	return d, nil
}

// DeliverArgs is the River job that sends one delivery.
type DeliverArgs struct {
	DeliveryID string `json:"deliveryId"`
}

// Kind implements river.JobArgs.
func (DeliverArgs) Kind() string { return "webhook_deliver" }

// InsertOpts implements river.JobArgsWithInsertOpts: the default queue (so no
// QUEUES change), and attempts enough that the retry window, not River's
// attempt count, decides when to give up.
func (DeliverArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: river.QueueDefault, MaxAttempts: 10_000}
}

// enqueue writes one delivery row and its River job in tx. inserted is false
// when this endpoint already has a delivery for the event (a replay).
func enqueue(ctx context.Context, tx pgx.Tx, rc *river.Client[pgx.Tx], endpointID, userID string, p Payload) (id string, inserted bool, err error) {
	body, err := json.Marshal(p)
	if err != nil {
		return "", false, fmt.Errorf("encode payload: %w", err)
	}
	newID, err := uuid.NewV7()
	if err != nil {
		return "", false, err
	}
	err = tx.QueryRow(ctx, `INSERT INTO webhook_deliveries (id, endpoint_id, user_id, event_id, event_type, payload, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (endpoint_id, event_id) DO NOTHING RETURNING id`,
		newID.String(), endpointID, userID, p.ID, p.Type, string(body), time.Now().UTC()).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("save delivery: %w", err)
	}
	if rc == nil {
		return "", false, errors.New("enqueue webhook delivery: no River client")
	}
	if _, err := rc.InsertTx(ctx, tx, DeliverArgs{DeliveryID: id}, nil); err != nil {
		return "", false, fmt.Errorf("enqueue webhook delivery: %w", err)
	}
	return id, true, nil
}
