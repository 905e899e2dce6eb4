package team

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/fault"
)

var errProductNotFound = fault.NotFoundf("Product not found.")

// Project applies one team event (workspace-{id} or approval-{id}) to the
// read models in tx. The service calls it after each append; Rebuild calls
// it for every stored event.
func Project(ctx context.Context, tx pgx.Tx, e eventstore.Envelope) error {
	var q string
	var args []any
	switch ev := e.Data.(type) {
	case events.TeamMemberJoined:
		q = `INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (workspace_id, user_id) DO UPDATE SET role = excluded.role`
		args = []any{ev.WorkspaceID, ev.UserID, ev.Role, ev.At}
	case events.TeamMemberRoleChanged:
		q, args = `UPDATE workspace_members SET role = $3 WHERE workspace_id = $1 AND user_id = $2`, []any{ev.WorkspaceID, ev.UserID, ev.Role}
	case events.TeamMemberRemoved:
		q, args = `DELETE FROM workspace_members WHERE workspace_id = $1 AND user_id = $2`, []any{ev.WorkspaceID, ev.UserID}
	case events.TeamOwnershipTransferred:
		// Demote first: the index allows one owner per workspace.
		for _, st := range []struct {
			q    string
			args []any
		}{
			{`UPDATE workspace_members SET role = 'editor' WHERE workspace_id = $1 AND user_id = $2`, []any{ev.WorkspaceID, ev.FromUserID}},
			{`UPDATE workspaces SET owner_id = $2, updated_at = $3 WHERE id = $1`, []any{ev.WorkspaceID, ev.ToUserID, ev.At}},
		} {
			if _, err := tx.Exec(ctx, st.q, st.args...); err != nil {
				return fmt.Errorf("project %s: %w", e.Type, err)
			}
		}
		q, args = `UPDATE workspace_members SET role = 'owner' WHERE workspace_id = $1 AND user_id = $2`, []any{ev.WorkspaceID, ev.ToUserID}
	case events.TeamSettingsChanged:
		q, args = `UPDATE workspaces SET require_approval = $2, updated_at = $3 WHERE id = $1`, []any{ev.WorkspaceID, ev.RequireApproval, ev.At}
	case events.ApprovalRequested:
		q = `INSERT INTO approvals (id, workspace_id, product_id, product_version, page_version, require_email, allow_deep_links,
				requested_by, requested_at, state)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'pending') ON CONFLICT (id) DO NOTHING`
		args = []any{ev.ApprovalID, ev.WorkspaceID, ev.ProductID, ev.ProductVersion, ev.PageVersion, ev.RequireEmail, ev.AllowDeepLinks,
			ev.RequestedBy, ev.At}
	case events.ApprovalDecided:
		state := StateRejected
		if ev.Approved {
			state = StateApproved
		}
		q = `UPDATE approvals SET state = $2, decided_by = $3, decided_at = $4, comment = $5 WHERE id = $1`
		args = []any{ev.ApprovalID, state, ev.DecidedBy, ev.At, ev.Comment}
	case events.ApprovalWithdrawn:
		q = `UPDATE approvals SET state = 'withdrawn', withdraw_reason = $2, decided_at = $3 WHERE id = $1 AND state = 'pending'`
		args = []any{ev.ApprovalID, ev.Reason, ev.At}
	default:
		return nil
	}
	if _, err := tx.Exec(ctx, q, args...); err != nil {
		return fmt.Errorf("project %s: %w", e.Type, err)
	}
	return nil
}

// Projection is the inline projection of other aggregates' events that
// change team read models; register it in the api's and the worker's event
// store:
//   - user.registered.v1 creates the account's own workspace, owned by it;
//   - user.erased.v1 ends the account's memberships (its own workspace went
//     with the erasure).
//
// A product change withdraws its pending publish request without a write
// here (see changedSince).
type Projection struct{}

// Apply implements eventstore.Inline.
func (Projection) Apply(ctx context.Context, tx pgx.Tx, e eventstore.Envelope) error {
	switch ev := e.Data.(type) {
	case events.UserRegistered:
		_, err := tx.Exec(ctx, `WITH w AS (INSERT INTO workspaces (id, owner_id, created_at) VALUES ($1, $1, $2)
				ON CONFLICT (id) DO NOTHING RETURNING id)
			INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) SELECT id, id, 'owner', $2 FROM w
			ON CONFLICT DO NOTHING`, ev.UserID, ev.At)
		if err != nil {
			return fmt.Errorf("create own workspace: %w", err)
		}
	case events.UserErased:
		if _, err := tx.Exec(ctx, `DELETE FROM workspace_members WHERE user_id = $1`, ev.UserID); err != nil {
			return fmt.Errorf("end memberships: %w", err)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM workspaces WHERE id = $1 AND owner_id = $1`, ev.UserID); err != nil {
			return fmt.Errorf("delete own workspace: %w", err)
		}
	}
	return nil
}

// contentTypes are the product events that change what its page would
// show (the events the catalogue re-folds a product for): one after a
// publish request withdraws it.
var contentTypes = func() []string {
	var out []string
	for _, e := range []events.Event{events.ProductModelAttached{}, events.ProductBuildStarted{}, events.ProductRenamed{},
		events.ProductDetailsEdited{}, events.ProductDeleted{},
		events.ProductVariantAdded{}, events.ProductVariantChanged{}, events.ProductVariantRemoved{},
		events.ProductHotspotPlaced{}, events.ProductHotspotMoved{}, events.ProductHotspotRemoved{},
		events.ProductLinkAdded{}, events.ProductLinkRemoved{}, events.ProductPresetsChanged{},
		events.ProductPhotoAttached{}, events.ProductModelUploaded{}} {
		out = append(out, e.EventType())
	}
	return out
}()

// changedSince is the SQL condition, on approvals a, that the product
// changed after the request ($N names contentTypes). A pending request is
// withdrawn by the first such change; reads see it at once, and the next
// command on the request records it (approval.withdrawn.v1), so product
// writes pay nothing for approvals.
func changedSince(typesParam string) string {
	return `EXISTS (SELECT 1 FROM events ce WHERE ce.stream_id = 'product-' || a.product_id
		AND ce.version > a.product_version AND ce.type = ANY(` + typesParam + `))`
}

// Rebuild empties the team read models and replays every event that feeds
// them (`worker replay teams`). Invitations are not a read model (their
// addresses are never in events) and are kept. Member preferences
// (approval mail) are kept across the rebuild.
func Rebuild(ctx context.Context, tx pgx.Tx, store *eventstore.Store) error {
	if _, err := tx.Exec(ctx, `CREATE TEMP TABLE team_prefs ON COMMIT DROP AS
		SELECT workspace_id, user_id, approval_mail FROM workspace_members WHERE approval_mail`); err != nil {
		return fmt.Errorf("keep member preferences: %w", err)
	}
	// Every workspace back to how it was founded: owned by the account whose
	// id it has (team_invites references workspaces, so rows are kept).
	for _, q := range []string{`DELETE FROM workspace_members`, `DELETE FROM approvals`,
		`UPDATE workspaces SET owner_id = id, require_approval = false`,
		`INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) SELECT id, id, 'owner', created_at FROM workspaces`} {
		if _, err := tx.Exec(ctx, q); err != nil {
			return fmt.Errorf("reset team read models: %w", err)
		}
	}
	rows, err := tx.Query(ctx, `SELECT `+eventstore.Columns+` FROM events
		WHERE stream_type IN ('workspace', 'approval') OR type IN ('user.registered.v1', 'user.erased.v1')
		ORDER BY position`)
	if err != nil {
		return fmt.Errorf("read team events: %w", err)
	}
	envs, err := store.ScanRows(rows)
	if err != nil {
		return fmt.Errorf("read team events: %w", err)
	}
	var p Projection
	for _, e := range envs {
		if err := p.Apply(ctx, tx, e); err != nil {
			return err
		}
		if err := Project(ctx, tx, e); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(ctx, `UPDATE workspace_members m SET approval_mail = true FROM team_prefs p
		WHERE p.workspace_id = m.workspace_id AND p.user_id = m.user_id`); err != nil {
		return fmt.Errorf("restore member preferences: %w", err)
	}
	return nil
}
