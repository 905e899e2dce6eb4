package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/publish"
	"github.com/photo3d/photo3d/internal/workspace"
)

// ProjectionName is the checkpoint key and the name `worker replay` takes.
const ProjectionName = "webhooks"

// Projection turns domain events into deliveries: for each event a merchant's
// endpoints subscribe to, one webhook_deliveries row and one River job, in
// the projection's batch transaction (so the checkpoint, the rows and the
// jobs commit together). It reads the inline read models (jobs, products,
// publications, leads) for names and links, as they stand when the event is
// handled: a payload describes the thing now, like any API read.
type Projection struct {
	river   *river.Client[pgx.Tx]
	baseURL string
}

// NewProjection builds the projection; rc may be insert-only.
func NewProjection(rc *river.Client[pgx.Tx], publicBaseURL string) Projection {
	return Projection{river: rc, baseURL: publicBaseURL}
}

// Name implements projection.Projection.
func (Projection) Name() string { return ProjectionName }

// Reset implements projection.Projection. Only the views fold is derived;
// deliveries are kept (they record what was sent), and their unique
// (endpoint, event) pair makes the replay send nothing twice.
func (Projection) Reset(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, `TRUNCATE webhook_usage`)
	return err
}

// Handle implements projection.Projection.
func (p Projection) Handle(ctx context.Context, tx pgx.Tx, e eventstore.Envelope) error {
	var userID, typ string
	var data map[string]any
	var err error
	switch ev := e.Data.(type) {
	case events.JobCompleted:
		typ = EventJobCompleted
		userID, data, err = p.jobData(ctx, tx, ev.JobID)
		if data != nil {
			data["assetId"] = ev.AssetID
			data["modelUrl"] = p.baseURL + "/api/assets/" + ev.AssetID + "/file"
			// The builder's doubts about the model (a photo that cut the
			// product off), so a merchant's system can hold it for a look.
			data["warnings"] = ev.Warnings
			if ev.Warnings == nil {
				data["warnings"] = []string{}
			}
		}
	case events.JobFailed:
		typ = EventJobFailed
		userID, data, err = p.jobData(ctx, tx, ev.JobID)
		if data != nil {
			data["reason"] = ev.Reason
		}
	case events.PublicationVersioned:
		typ = EventProductPublished
		userID, data, err = p.publicationData(ctx, tx, ev.PublicationID)
		if data != nil {
			data["version"] = ev.Version
		}
	case events.ProductLeadCaptured:
		typ = EventLeadCaptured
		userID, data, err = p.leadData(ctx, tx, ev)
	}
	if err != nil {
		return err
	}
	if data != nil {
		if err := p.fanOut(ctx, tx, e, userID, typ, data); err != nil {
			return err
		}
	}
	if uid, ok := workspace.UsageUserID(e.Data); ok {
		return p.foldViews(ctx, tx, e, uid)
	}
	return nil
}

// fanOut queues one delivery per endpoint of userID that subscribes to typ
// and existed when the event happened (an endpoint registered later does not
// receive the past, even in a replay).
func (p Projection) fanOut(ctx context.Context, tx pgx.Tx, e eventstore.Envelope, userID, typ string, data map[string]any) error {
	rows, err := tx.Query(ctx, `SELECT id FROM webhook_endpoints
		WHERE user_id = $1 AND $2 = ANY(events) AND created_at <= $3 AND (removed_at IS NULL OR removed_at > $3)
		ORDER BY id`, userID, typ, e.OccurredAt)
	if err != nil {
		return fmt.Errorf("find webhooks: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("find webhooks: %w", err)
	}
	payload := Payload{ID: eventID(e.Position), Type: typ, Created: e.OccurredAt.UTC(), Data: data}
	for _, id := range ids {
		if _, _, err := enqueue(ctx, tx, p.river, id, userID, payload); err != nil {
			return err
		}
	}
	return nil
}

// jobData describes a build: ids, name, and the product it builds if any.
func (p Projection) jobData(ctx context.Context, tx pgx.Tx, jobID string) (string, map[string]any, error) {
	var userID, name string
	err := tx.QueryRow(ctx, `SELECT user_id, name FROM jobs WHERE id = $1`, jobID).Scan(&userID, &name)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil, nil // deleted since: nobody to tell
	}
	if err != nil {
		return "", nil, fmt.Errorf("find job: %w", err)
	}
	data := map[string]any{"jobId": jobID, "name": name,
		"blueprintUrl": p.baseURL + workspace.BlueprintPath(jobID, workspace.StatusReady)}
	var productID, productName string
	err = tx.QueryRow(ctx, `SELECT id, name FROM products WHERE job_id = $1 AND user_id = $2 ORDER BY created_at LIMIT 1`,
		jobID, userID).Scan(&productID, &productName)
	switch {
	case err == nil:
		data["productId"], data["productName"] = productID, productName
	case !errors.Is(err, pgx.ErrNoRows):
		return "", nil, fmt.Errorf("find product of job: %w", err)
	}
	return userID, data, nil
}

// publicationData describes a product page: nil for blueprint/gallery links,
// which are not "product.published".
func (p Projection) publicationData(ctx context.Context, tx pgx.Tx, pubID string) (string, map[string]any, error) {
	var userID, productID, slug, name string
	err := tx.QueryRow(ctx, `SELECT pu.user_id, pu.product_id, pu.slug, coalesce(pr.name, '')
		FROM publications pu LEFT JOIN products pr ON pr.id = pu.product_id
		WHERE pu.id = $1`, pubID).Scan(&userID, &productID, &slug, &name)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, fmt.Errorf("find publication: %w", err)
	}
	if productID == "" {
		return "", nil, nil
	}
	links := publish.LinksFor(p.baseURL, slug)
	return userID, map[string]any{"productId": productID, "productName": name, "publicationId": pubID,
		"shareUrl": links.Share, "embedUrl": links.Embed, "qrUrl": links.QR,
		"embedCode": publish.EmbedCode(links.Embed, name)}, nil
}

// leadData describes a captured lead without the shopper's address: the
// delivery row keeps no personal data. The worker adds the email when it
// sends (withLeadEmail), from product_leads as it stands then, so a lead the
// merchant deletes is never sent afterwards and lives on nowhere (issue 28
// item 12). The address goes only to the merchant's own endpoints: the
// merchant already reads and exports it, and syncing leads into a CRM is
// what this event is for. It never enters the event log.
func (p Projection) leadData(ctx context.Context, tx pgx.Tx, ev events.ProductLeadCaptured) (string, map[string]any, error) {
	var userID, name, slug string
	err := tx.QueryRow(ctx, `SELECT l.user_id, coalesce(pr.name, ''), coalesce(pu.slug, '')
		FROM product_leads l LEFT JOIN products pr ON pr.id = l.product_id
		LEFT JOIN publications pu ON pu.id = l.publication_id
		WHERE l.id = $1`, ev.LeadID).Scan(&userID, &name, &slug)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil, nil // deleted by the merchant since
	}
	if err != nil {
		return "", nil, fmt.Errorf("find lead: %w", err)
	}
	data := map[string]any{"leadId": ev.LeadID, "productId": ev.ProductID, "productName": name,
		"publicationId": ev.PublicationID}
	if ev.VariantID != "" {
		data["variantId"] = ev.VariantID
	}
	if slug != "" {
		data["shareUrl"] = publish.LinksFor(p.baseURL, slug).Share
	}
	return userID, data, nil
}

// foldViews keeps the owner's subscription fold and queues
// publication.views_low once when the public-views balance drops under 10 %;
// climbing back above (a views pack, an upgrade) re-arms it.
func (p Projection) foldViews(ctx context.Context, tx pgx.Tx, e eventstore.Envelope, userID string) error {
	var raw []byte
	var alerted bool
	var u workspace.Usage
	err := tx.QueryRow(ctx, `SELECT usage, low_alerted FROM webhook_usage WHERE user_id = $1 FOR UPDATE`, userID).Scan(&raw, &alerted)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		return fmt.Errorf("load usage: %w", err)
	default:
		if err := json.Unmarshal(raw, &u); err != nil {
			return fmt.Errorf("decode usage of %s: %w", userID, err)
		}
	}
	u.Apply(e.Data, e.OccurredAt)
	pct, measured := u.ViewsUsedPercent(e.OccurredAt)
	low := measured && pct >= ViewsLowPercent
	if low && !alerted {
		limit, _ := u.ViewsLimit(e.OccurredAt)
		data := map[string]any{"viewsUsed": u.ViewsUsed, "viewsLimit": limit, "viewsLeft": max(limit-u.ViewsUsed, 0),
			"percentUsed": pct, "subscriptionUrl": p.baseURL + "/workspace/subscription"}
		if err := p.fanOut(ctx, tx, e, userID, EventViewsLow, data); err != nil {
			return err
		}
	}
	b, err := json.Marshal(u)
	if err != nil {
		return fmt.Errorf("encode usage: %w", err)
	}
	_, err = tx.Exec(ctx, `INSERT INTO webhook_usage (user_id, usage, low_alerted) VALUES ($1, $2, $3)
		ON CONFLICT (user_id) DO UPDATE SET usage = EXCLUDED.usage, low_alerted = EXCLUDED.low_alerted`, userID, string(b), low)
	if err != nil {
		return fmt.Errorf("save usage: %w", err)
	}
	return nil
}
