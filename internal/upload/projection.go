package upload

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/eventstore"
)

// Projection keeps the uploads table in step with upload-{id} streams. It is
// inline (registered with eventstore.WithInline) because POST /jobs must see
// an upload the moment its bytes were accepted.
type Projection struct{}

// Apply implements eventstore.Inline; events of other streams are ignored.
func (Projection) Apply(ctx context.Context, tx pgx.Tx, e eventstore.Envelope) error {
	switch ev := e.Data.(type) {
	case events.UploadCreated:
		_, err := tx.Exec(ctx, `
INSERT INTO uploads (id, user_id, filename, declared_type, declared_size, blob_key, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT (id) DO NOTHING`, ev.UploadID, ev.UserID, ev.Filename, ev.ContentType, ev.Size, ev.BlobKey, ev.At)
		if err != nil {
			return fmt.Errorf("project %s: %w", e.Type, err)
		}
	case events.UploadCompleted:
		_, err := tx.Exec(ctx, `
UPDATE uploads SET status = 'completed', content_type = $2, bytes = $3, width = $4, height = $5,
       blob_key = coalesce(nullif($6, ''), blob_key), completed_at = $7
WHERE id = $1`, ev.UploadID, ev.ContentType, ev.Bytes, ev.Width, ev.Height, ev.BlobKey, e.OccurredAt)
		if err != nil {
			return fmt.Errorf("project %s: %w", e.Type, err)
		}
	}
	return nil
}
