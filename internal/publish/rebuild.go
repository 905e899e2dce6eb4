package publish

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/eventstore"
)

// Rebuild re-creates publications and publication_versions from the
// publication-{id} streams (`worker replay publications`). It runs in the
// caller's transaction, so the public pages keep serving the old rows until
// the rebuilt ones commit. Events are applied in position order: within a
// stream that is its version order, and across streams the unique slug and
// "one live page per subject" indexes were satisfied in that order when the
// events were first applied (a new page for a subject is only appended after
// the old one's unpublish committed).
//
// Not rebuilt, on purpose: product_leads (personal data, never in the log)
// and public_view_exhaustions (a marker the metering deletes without an
// event when views come back).
func Rebuild(ctx context.Context, tx pgx.Tx, store *eventstore.Store) error {
	if _, err := tx.Exec(ctx, `TRUNCATE publication_versions, publications`); err != nil {
		return fmt.Errorf("clear publications: %w", err)
	}
	rows, err := tx.Query(ctx, `SELECT `+eventstore.Columns+` FROM events WHERE stream_type = $1 ORDER BY position`, events.StreamPublication)
	if err != nil {
		return fmt.Errorf("read publication events: %w", err)
	}
	envs, err := store.ScanRows(rows)
	if err != nil {
		return fmt.Errorf("decode publication events: %w", err)
	}
	var p Projection
	for _, e := range envs {
		if err := p.Apply(ctx, tx, e); err != nil {
			return fmt.Errorf("%s at position %d: %w", e.Type, e.Position, err)
		}
	}
	return nil
}
