package team

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// Actor is who did something, as events record it (metadata actor
// "user-{id}", "apikey-{id}", "worker", "system-…") and as people read it.
// Never an address.
type Actor struct {
	ID   string `json:"id"`   // the recorded actor
	Kind string `json:"kind"` // user | key | system
	Name string `json:"name"`
}

func newID() string { return uuid.Must(uuid.NewV7()).String() }

// actorOf is the request's actor ("user-{id}" or "apikey-{id}").
func actorOf(ctx context.Context) string {
	if a := eventstore.MetadataFrom(ctx).Actor; a != "" {
		return a
	}
	return "system"
}

// nameActors fills in kind and name: members by their name (a person whose
// account is gone is "A former member"), keys by their name.
func (s *Service) nameActors(ctx context.Context, q pgdb.Querier, as []*Actor) error {
	var users, keys []string
	for _, a := range as {
		if id, ok := strings.CutPrefix(a.ID, "user-"); ok {
			users = append(users, id)
		} else if id, ok := strings.CutPrefix(a.ID, "apikey-"); ok {
			keys = append(keys, id)
		}
	}
	names := map[string]string{}
	if len(users) > 0 {
		rows, err := q.Query(ctx, `SELECT 'user-' || user_id, name FROM user_pii WHERE user_id = ANY($1)`, users)
		if err != nil {
			return fmt.Errorf("name actors: %w", err)
		}
		if err := collectNames(rows, names); err != nil {
			return err
		}
	}
	if len(keys) > 0 {
		rows, err := q.Query(ctx, `SELECT 'apikey-' || id, 'API key ' || coalesce(nullif(name, ''), prefix) FROM api_keys WHERE id = ANY($1)`, keys)
		if err != nil {
			return fmt.Errorf("name actors: %w", err)
		}
		if err := collectNames(rows, names); err != nil {
			return err
		}
	}
	for _, a := range as {
		switch {
		case strings.HasPrefix(a.ID, "user-"):
			a.Kind, a.Name = "user", names[a.ID]
			if a.Name == "" {
				a.Name = "A former member"
			}
		case strings.HasPrefix(a.ID, "apikey-"):
			a.Kind, a.Name = "key", names[a.ID]
			if a.Name == "" {
				a.Name = "A revoked API key"
			}
		default:
			a.Kind, a.Name = "system", "Photo3D"
		}
	}
	return nil
}

func collectNames(rows pgx.Rows, into map[string]string) error {
	defer rows.Close()
	for rows.Next() {
		var id, name string
		if err := rows.Scan(&id, &name); err != nil {
			return fmt.Errorf("name actors: %w", err)
		}
		into[id] = name
	}
	return rows.Err()
}

// ActivityEntry is one line of a product's activity: "⟨actor⟩ ⟨what⟩".
type ActivityEntry struct {
	At     time.Time `json:"at"`
	Actor  Actor     `json:"actor"`
	Action string    `json:"action"` // "requested approval for v3"
	Kind   string    `json:"kind"`   // the event type, for icons and tests
	Detail string    `json:"detail,omitempty"`
}

// Activity is who did what to a product, newest first: its own events, its
// publish requests and decisions, and its page's versions. The product must
// belong to the workspace (another workspace's id answers not found).
func (s *Service) Activity(ctx context.Context, wsID, productID string, limit int) ([]ActivityEntry, error) {
	var owner string
	err := s.db.QueryRow(ctx, `SELECT user_id FROM products WHERE id::text = $1`, productID).Scan(&owner)
	if err != nil || owner != wsID {
		return nil, errProductNotFound
	}
	if limit <= 0 || limit > 500 {
		limit = 200
	}
	rows, err := s.db.Query(ctx, `SELECT `+eventstore.Columns+` FROM events
		WHERE stream_id = 'product-' || $1
		   OR stream_id IN (SELECT 'approval-' || id FROM approvals WHERE product_id = $1)
		   OR stream_id IN (SELECT 'publication-' || id FROM publications WHERE product_id = $1)
		ORDER BY position DESC LIMIT $2`, productID, limit)
	if err != nil {
		return nil, fmt.Errorf("read activity: %w", err)
	}
	envs, err := s.store.ScanRows(rows)
	if err != nil {
		return nil, fmt.Errorf("read activity: %w", err)
	}
	out := []ActivityEntry{}
	versions := map[string]int{} // approval id → page version, for "v3" in decisions
	if err := s.approvalVersions(ctx, productID, versions); err != nil {
		return nil, err
	}
	// An approval publishes in its own transaction: its page events are the
	// approval's doing, told by "approved v3", not four more lines.
	approvedTx := map[uint64]bool{}
	for _, e := range envs {
		if d, ok := e.Data.(events.ApprovalDecided); ok && d.Approved {
			approvedTx[e.TransactionID] = true
		}
	}
	for _, e := range envs {
		if e.StreamType == events.StreamPublication && approvedTx[e.TransactionID] {
			continue
		}
		action, detail := describe(e, versions)
		if action == "" {
			continue
		}
		actor := actorOrSystem(e.Metadata.Actor)
		if w, ok := e.Data.(events.ApprovalWithdrawn); ok && w.Reason == "changed" {
			actor = "system" // the product's change withdrew it; whoever's command recorded it did not
		}
		out = append(out, ActivityEntry{At: e.OccurredAt, Actor: Actor{ID: actor}, Action: action, Kind: e.Type, Detail: detail})
	}
	ptrs := make([]*Actor, len(out))
	for i := range out {
		ptrs[i] = &out[i].Actor
	}
	if err := s.nameActors(ctx, s.db, ptrs); err != nil {
		return nil, err
	}
	return out, nil
}

func (s *Service) approvalVersions(ctx context.Context, productID string, into map[string]int) error {
	rows, err := s.db.Query(ctx, `SELECT id, page_version FROM approvals WHERE product_id = $1`, productID)
	if err != nil {
		return fmt.Errorf("read approvals: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var v int
		if err := rows.Scan(&id, &v); err != nil {
			return err
		}
		into[id] = v
	}
	return rows.Err()
}

func actorOrSystem(a string) string {
	if a == "" {
		return "system"
	}
	return a
}

// describe says what an event did, in the words of the activity list; ""
// leaves it out (bookkeeping a merchant does not do).
func describe(e eventstore.Envelope, versions map[string]int) (string, string) {
	v := func(id string) string { return "v" + strconv.Itoa(versions[id]) }
	switch ev := e.Data.(type) {
	case events.ProductCreated:
		return "created the product", ""
	case events.ProductRenamed:
		return "renamed the product", ""
	case events.ProductDetailsEdited:
		return "edited the details", ""
	case events.ProductMoved:
		return "moved the product to another catalog", ""
	case events.ProductDeleted:
		return "deleted the product", ""
	case events.ProductBuildStarted:
		return "started a 3D build", ""
	case events.ProductModelAttached:
		return "attached a 3D model", ""
	case events.ProductPhotoAttached:
		return "added a photo", ""
	case events.ProductModelUploaded:
		return "uploaded a 3D model", ""
	case events.ProductVariantAdded:
		return "added a variant", ""
	case events.ProductVariantChanged:
		return "changed a variant", ""
	case events.ProductVariantRemoved:
		return "removed a variant", ""
	case events.ProductHotspotPlaced:
		return "placed a hotspot", ""
	case events.ProductHotspotMoved:
		return "changed a hotspot", ""
	case events.ProductHotspotRemoved:
		return "removed a hotspot", ""
	case events.ProductLinkAdded:
		return "added a buy link", ""
	case events.ProductLinkRemoved:
		return "removed a buy link", ""
	case events.ProductPresetsChanged:
		return "changed the viewer settings", ""
	case events.ApprovalRequested:
		return "requested approval for " + v(ev.ApprovalID), ""
	case events.ApprovalDecided:
		if ev.Approved {
			return "approved " + v(ev.ApprovalID), ev.Comment
		}
		return "rejected " + v(ev.ApprovalID), ev.Comment
	case events.ApprovalWithdrawn:
		switch ev.Reason {
		case "replaced":
			return "replaced the request for " + v(ev.ApprovalID), ""
		case "changed":
			return "withdrew the request for " + v(ev.ApprovalID) + ": the product changed after it", ""
		}
		return "withdrew the request for " + v(ev.ApprovalID), ""
	case events.PublicationCreated:
		return "published the page", ""
	case events.PublicationVersioned:
		return "published page version " + strconv.Itoa(ev.Version), ""
	case events.PublicationLocked:
		if ev.Version == 0 {
			return "unlocked the page", ""
		}
		return "locked the page to version " + strconv.Itoa(ev.Version), ""
	case events.PublicationSettingsChanged:
		return "changed the page settings", ""
	case events.PublicationUnpublished:
		return "unpublished the page", ""
	}
	return "", ""
}
