// Package dispatch is the single way the API records a decision that needs
// follow-up work: it appends events and inserts River jobs in the SAME
// transaction, so an event and its job exist together or not at all. A
// rolled-back request can therefore never leave a job for an event that was
// not stored, nor an event whose work was never scheduled.
package dispatch

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/eventstore"
)

// Dispatcher combines the event store with an (insert-only, in the api) River client.
type Dispatcher struct {
	Store *eventstore.Store
	River *river.Client[pgx.Tx]
}

// New builds a Dispatcher.
func New(store *eventstore.Store, rc *river.Client[pgx.Tx]) *Dispatcher {
	return &Dispatcher{Store: store, River: rc}
}

// Append appends evs to stream at the expected version and inserts jobs, all
// in tx. The caller commits or rolls back; after any error it must roll back.
func (d *Dispatcher) Append(ctx context.Context, tx pgx.Tx, stream events.Stream, expected int64, evs []events.Event, jobs ...river.InsertManyParams) ([]eventstore.Envelope, error) {
	envs, err := d.Store.Append(ctx, tx, stream, expected, evs...)
	if err != nil {
		return nil, err
	}
	if len(jobs) > 0 {
		if d.River == nil {
			return nil, fmt.Errorf("dispatch %s: no River client configured", stream)
		}
		if _, err := d.River.InsertManyTx(ctx, tx, jobs); err != nil {
			return nil, fmt.Errorf("enqueue jobs for %s: %w", stream, err)
		}
	}
	return envs, nil
}
