// Package committest lets a test lose a request's connection right after its
// transaction commits, to check that a write answers what it committed.
package committest

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// CutAfterCommit returns a context that ends the moment the first
// transaction appending events under it commits, before anything after the
// COMMIT runs: what a request sees when the database restarts, or the client
// hangs up, between its COMMIT and what it does next. A service that answers
// what it wrote must still answer it then; one that reads it back after the
// COMMIT answers an error for a change that was made, and a client retrying
// that error makes it (and pays for it) twice. The test's event store must
// run Projection inline.
func CutAfterCommit(parent context.Context) context.Context {
	ctx, cancel := context.WithCancel(parent)
	return context.WithValue(ctx, cutKey{}, cancel)
}

type cutKey struct{}

// Projection is the inline projection behind CutAfterCommit: it asks the
// appending transaction (pgdb.WithTx's) to end the context after its
// COMMIT. Appends under any other context pass through it untouched.
var Projection eventstore.Inline = eventstore.InlineFunc(func(ctx context.Context, tx pgx.Tx, _ eventstore.Envelope) error {
	if cancel, ok := ctx.Value(cutKey{}).(context.CancelFunc); ok {
		if ac, ok := tx.(pgdb.AfterCommitter); ok {
			ac.AfterCommitFunc("committest: cut after commit", cancel)
		}
	}
	return nil
})
