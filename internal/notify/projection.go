// Package notify turns domain events into the workspace notifications behind
// the shell's bell ("Workspace updates") and the notifications page.
//
// Notifications are an asynchronous read model: the "notifications"
// projection in the worker derives them from the event log, so they never
// slow down the request that caused them, and `worker replay notifications`
// rebuilds them. Each notification's id is a hash of the event position and
// kind that produced it, so a replay re-creates identical rows; what a user
// has read is user state, kept in notification_reads, which replay leaves
// alone and which joins back to the re-created rows by id.
package notify

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/workspace"
)

// ProjectionName is the checkpoint key and the name `worker replay` takes.
const ProjectionName = "notifications"

// ViewsWarnPercent is the share of public views used at which the owner is
// warned, once per crossing.
const ViewsWarnPercent = 80

// Notification kinds (notifications.kind).
const (
	KindWelcome        = "welcome"
	KindJobCompleted   = "job_completed"
	KindJobFailed      = "job_failed"
	KindTrialStarted   = "trial_started"
	KindAddonPurchased = "addon_purchased"
	KindViewsLow       = "views_low"
	KindViewsExhausted = "views_exhausted"
	KindProductReady   = "product_ready"
	KindProductFailed  = "product_failed"
	KindPaymentFailed  = "payment_failed"
	KindPlanEnded      = "plan_ended"
	KindPagePublished  = "page_published"
	KindLeadCaptured   = "lead_captured"
	KindDataExport     = "data_export_ready"
	// Approvals (issue 51): the workspace's members all see them.
	KindApprovalRequested = "approval_requested"
	KindApprovalApproved  = "approval_approved"
	KindApprovalRejected  = "approval_rejected"
	// KindPagesOffline: published pages that shoppers can no longer open
	// because the plan in force includes no public views (issue 50 item 6).
	KindPagesOffline = "pages_offline"
)

const subscriptionPath = "/workspace/subscription"

// Projection writes notifications from events.
type Projection struct{}

// NewProjection returns the notifications projection.
func NewProjection() Projection { return Projection{} }

// Name implements projection.Projection.
func (Projection) Name() string { return ProjectionName }

// Reset implements projection.Projection. notification_reads is deliberately
// kept: read marks are the user's doing, not the log's.
func (Projection) Reset(ctx context.Context, tx pgx.Tx) error { return truncateDerived(ctx, tx) }

// note is one notification about to be written.
type note struct {
	userID, kind, title, message, link, subject string
}

// ID derives a notification's id from the event that produced it, so replay
// and incremental processing agree and read marks survive a replay. Hashing
// keeps the global event count out of what users see.
func ID(position int64, kind string) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "notification/%d/%s", position, kind))
	return hex.EncodeToString(sum[:16])
}

// Handle implements projection.Projection. Everything written depends only on
// the events (their positions and times), never on the clock.
func (Projection) Handle(ctx context.Context, tx pgx.Tx, e eventstore.Envelope) error {
	var n *note
	var err error
	switch ev := e.Data.(type) {
	case events.UserRegistered:
		n = &note{userID: ev.UserID, kind: KindWelcome, title: "Welcome to Photo3D",
			message: "Upload one product photo and we will turn it into an interactive 3D model you can share by link.",
			link:    "/workspace/upload"}
	case events.JobQueued:
		if err := rememberJob(ctx, tx, ev.JobID, ev.UserID, ev.Name); err != nil {
			return err
		}
	case events.BlueprintRenamed:
		if err := renameJob(ctx, tx, ev.JobID, ev.Name); err != nil {
			return err
		}
		if err := renameSubject(ctx, tx, subject(ev.JobID), jobKinds, jobName(ev.Name)); err != nil {
			return err
		}
	case events.ProductRenamed:
		if err := renameSubject(ctx, tx, "product-"+ev.ProductID, productKinds, ev.Name); err != nil {
			return err
		}
	case events.BlueprintDeleted:
		// The model is gone: keep the history but stop linking to it.
		if err := unlinkSubject(ctx, tx, subject(ev.JobID)); err != nil {
			return err
		}
	case events.JobCompleted:
		if n, err = productNote(ctx, tx, ev.JobID, false, "", e.Position); err != nil || n != nil {
			break
		}
		owner, name, ok, err := jobOwner(ctx, tx, ev.JobID)
		if err != nil || !ok {
			return err
		}
		n = &note{userID: owner, kind: KindJobCompleted, title: "Your 3D model is ready",
			message: namedMessage(KindJobCompleted, name, ""),
			link:    workspace.BlueprintPath(ev.JobID, workspace.StatusReady), subject: subject(ev.JobID)}
	case events.JobFailed:
		if n, err = productNote(ctx, tx, ev.JobID, true, ev.Reason, e.Position); err != nil || n != nil {
			break
		}
		owner, name, ok, err := jobOwner(ctx, tx, ev.JobID)
		if err != nil || !ok {
			return err
		}
		n = &note{userID: owner, kind: KindJobFailed, title: "Your 3D model could not be built",
			message: namedMessage(KindJobFailed, name, ev.Reason),
			link:    workspace.BlueprintPath(ev.JobID, workspace.StatusError), subject: subject(ev.JobID)}
	case events.UserDataExportReady:
		// The link itself is signed and short-lived: the profile mints it.
		n = &note{userID: ev.UserID, kind: KindDataExport, title: "Your data is ready to download",
			message: "The copy of your Photo3D data you asked for is ready. Download it from your profile within 7 days.",
			link:    "/workspace/profile"}
	case events.TrialStarted:
		n = &note{userID: ev.UserID, kind: KindTrialStarted, title: "Your Pro trial has started",
			message: fmt.Sprintf("Enjoy Pro features for %s: galleries, public share links and %d AI credits.",
				plural(int64(max(ev.Days, 1)), "day", "days"), workspace.ProCredits),
			link: subscriptionPath}
	case events.AddonPurchased:
		n = addonNote(ev)
	case events.PaymentFailed:
		n = &note{userID: ev.UserID, kind: KindPaymentFailed, title: "Your Pro payment failed",
			message: fmt.Sprintf("We could not charge your card for Pro. Pro stays active until %s; update your payment method in Manage billing to keep it.",
				ev.GraceUntil.UTC().Format("2 Jan 2006")),
			link: subscriptionPath}
	case events.PlanChanged:
		n, err = planNote(ctx, tx, ev, e)
	case events.PublicationCreated:
		if ev.ProductID != "" {
			n, err = productEventNote(ctx, tx, ev.ProductID, e.Position, KindPagePublished, "Your product page is live")
		}
	case events.ProductLeadCaptured:
		// The shopper's address is personal data: the note says a lead came
		// in and where to read it, never who.
		n, err = productEventNote(ctx, tx, ev.ProductID, e.Position, KindLeadCaptured, "New lead")
	case events.PublicViewsExhausted:
		n, err = exhaustedNote(ctx, tx, ev, e.OccurredAt)
	case events.ApprovalRequested:
		n, err = productEventNote(ctx, tx, ev.ProductID, e.Position, KindApprovalRequested, "Waiting for approval")
	case events.ApprovalDecided:
		if ev.Approved {
			n, err = productEventNote(ctx, tx, ev.ProductID, e.Position, KindApprovalApproved, "Publishing approved")
		} else {
			n, err = productEventNote(ctx, tx, ev.ProductID, e.Position, KindApprovalRejected, "Publishing not approved")
		}
	}
	if err != nil {
		return err
	}
	if n != nil {
		if err := insertNote(ctx, tx, *n, e.Position, e.OccurredAt); err != nil {
			return err
		}
	}
	if userID, ok := workspace.UsageUserID(e.Data); ok {
		return foldViews(ctx, tx, e, userID)
	}
	return nil
}

func subject(jobID string) string { return "blueprint-" + jobID }

// offlineAfter reports whether a user's pages are offline by plan once
// their subscription fold u holds at the instant at: the plan in force is
// Free (which includes no public views) and no bought views are left.
func offlineAfter(u workspace.Usage, at time.Time) bool {
	if u.EffectivePlan(at) != "free" {
		return false
	}
	limit, _ := u.ViewsLimit(at)
	return u.ViewsUsed >= limit
}

// planNote tells the merchant of a plan change that matters (issue 50 item
// 6): the end of Pro (grace over or cancelled) always, and a move to Free
// that takes live public pages offline, naming that cause, since shoppers
// only see "temporarily unavailable". Nothing is unpublished: upgrading
// brings the pages back.
func planNote(ctx context.Context, tx pgx.Tx, ev events.PlanChanged, e eventstore.Envelope) (*note, error) {
	ended := ev.Reason == "grace_expired" || ev.Reason == "subscription_canceled"
	before, _, err := loadViews(ctx, tx, ev.UserID)
	if err != nil {
		return nil, err
	}
	after := before
	after.Apply(ev, e.OccurredAt)
	live := 0
	if offlineAfter(after, e.OccurredAt) && !offlineAfter(before, e.OccurredAt) {
		if live, err = livePagesAt(ctx, tx, ev.UserID, e.Position); err != nil {
			return nil, err
		}
	}
	pages, are := plural(int64(live), "live page", "live pages"), "are"
	if live == 1 {
		are = "is"
	}
	switch {
	case ended && live > 0:
		return &note{userID: ev.UserID, kind: KindPlanEnded, title: "Your Pro plan has ended",
			message: fmt.Sprintf("You are on the Free plan now, which includes no public views, so your %s %s offline: shoppers see “temporarily unavailable”. Your products and pages are kept; upgrade to Pro to bring them back.", pages, are),
			link:    subscriptionPath}, nil
	case ended:
		return &note{userID: ev.UserID, kind: KindPlanEnded, title: "Your Pro plan has ended",
			message: "You are on the Free plan now. Your products are kept; upgrade again any time to share them publicly.",
			link:    subscriptionPath}, nil
	case live > 0:
		return &note{userID: ev.UserID, kind: KindPagesOffline, title: "Your public pages are offline",
			message: fmt.Sprintf("You switched to the Free plan, which includes no public views, so shoppers can no longer open your %s (they see “temporarily unavailable”). Nothing was unpublished: upgrade to Pro and they are back at once.", pages),
			link:    subscriptionPath}, nil
	}
	return nil, nil
}

// exhaustedNote tells the merchant that a shopper was turned away because
// no public views are left, with the real cause: the Free plan (after a
// switch or the end of a trial), which includes none, or a Pro allowance
// used up.
func exhaustedNote(ctx context.Context, tx pgx.Tx, ev events.PublicViewsExhausted, at time.Time) (*note, error) {
	u, _, err := loadViews(ctx, tx, ev.UserID)
	if err != nil {
		return nil, err
	}
	if u.EffectivePlan(at) != "free" {
		return &note{userID: ev.UserID, kind: KindViewsExhausted, title: "Public views used up",
			message: "Your share links cannot show your 3D models until you add more public views.",
			link:    subscriptionPath}, nil
	}
	why := "You are on the Free plan, which includes no public views"
	if u.TrialEndsAt != nil { // on Free with a trial on record: it ran out
		why = "Your Pro trial has ended, and the Free plan includes no public views"
	}
	if u.ViewsPurchased > 0 {
		why += ", and the views you bought are used up"
	}
	return &note{userID: ev.UserID, kind: KindPagesOffline, title: "A shopper could not open your page",
		message: why + ": your share links, embeds and QR codes show “temporarily unavailable”. Upgrade to Pro to bring them back; nothing was unpublished.",
		link:    subscriptionPath}, nil
}

// productEventNote is a note about a product as the log knew it before
// position (owner and name at that point: replay writes the same text); nil
// when the product does not exist or was deleted by then.
func productEventNote(ctx context.Context, tx pgx.Tx, productID string, position int64, kind, title string) (*note, error) {
	var owner, name *string
	err := tx.QueryRow(ctx, `
SELECT (SELECT c.data->>'userId' FROM events c WHERE c.stream_id = $1 AND c.type = 'product.created.v1' AND c.position < $2 LIMIT 1),
       (SELECT n.data->>'name' FROM events n WHERE n.stream_id = $1 AND n.position < $2
          AND n.type IN ('product.created.v1', 'product.renamed.v1') ORDER BY n.position DESC LIMIT 1)
WHERE NOT EXISTS (SELECT 1 FROM events d WHERE d.stream_id = $1 AND d.type = 'product.deleted.v1' AND d.position < $2)`,
		"product-"+productID, position).Scan(&owner, &name)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && (owner == nil || *owner == "")) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("product %s for a notification: %w", productID, err)
	}
	return &note{userID: *owner, kind: kind, title: title, message: namedMessage(kind, deref(name), ""),
		link: workspace.ProductPath(productID), subject: "product-" + productID}, nil
}

// productNote tells the merchant that a product's build finished or failed,
// linking to the product page instead of the bare blueprint. nil when the
// job builds no live product. One note per build: when several products
// share it (one blueprint attached twice while building) it names the first.
func productNote(ctx context.Context, tx pgx.Tx, jobID string, failed bool, reason string, position int64) (*note, error) {
	refs, err := workspace.ProductsBuiltBy(ctx, tx, jobID, position)
	if err != nil || len(refs) == 0 {
		return nil, err
	}
	p := refs[0]
	n := &note{userID: p.UserID, kind: KindProductReady, title: "Your product is ready in 3D",
		message: namedMessage(KindProductReady, p.Name, ""),
		link:    workspace.ProductPath(p.ID), subject: "product-" + p.ID}
	if failed {
		n.kind, n.title, n.message = KindProductFailed, "Your product's 3D build failed", namedMessage(KindProductFailed, p.Name, reason)
	}
	return n, nil
}

// namedMessage is the text of the notification kinds that name what they
// are about: name as the log held it (a job's name already defaulted by
// jobOwner), reason the build failure's. The erasure writes them again
// with the blanked name through here (EraseText), so both agree with what a
// replay of the redacted log writes. Other kinds answer "".
func namedMessage(kind, name, reason string) string {
	switch kind {
	case KindJobCompleted:
		return fmt.Sprintf("“%s” finished building. Open it to preview and share.", name)
	case KindProductReady:
		return fmt.Sprintf("“%s” finished building. Open it to configure and share.", name)
	case KindJobFailed, KindProductFailed:
		return failedMessage(name, reason)
	case KindPagePublished:
		return fmt.Sprintf("“%s” is public now: shoppers can open its share link, embed or QR code and view it in 3D and AR.", productLabel(name))
	case KindLeadCaptured:
		return fmt.Sprintf("A shopper left their email on “%s”. See it under Leads on the product page.", productLabel(name))
	case KindApprovalRequested:
		return fmt.Sprintf("An editor asked to publish “%s”. A reviewer or the owner can approve it under Approvals.", productLabel(name))
	case KindApprovalApproved:
		return fmt.Sprintf("“%s” was approved: shoppers now see the version that was requested.", productLabel(name))
	case KindApprovalRejected:
		return fmt.Sprintf("Publishing “%s” was not approved. The reviewer's comment is under Approvals.", productLabel(name))
	}
	return ""
}

// productLabel names a product in a note; a product without a name (or
// whose name was erased) is "your product".
func productLabel(name string) string {
	if strings.TrimSpace(name) != "" {
		return name
	}
	return "your product"
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func failedMessage(name, reason string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "“%s” could not be built", name)
	reason = strings.TrimSpace(reason)
	if r := []rune(reason); len(r) > 200 {
		reason = string(r[:200]) + "…"
	}
	if reason != "" {
		b.WriteString(": ")
		b.WriteString(reason)
		if !strings.ContainsAny(reason[len(reason)-1:], ".!?…") {
			b.WriteString(".")
		}
	} else {
		b.WriteString(".")
	}
	// Say each thing once (merchant walk 4, P15): a reason that already
	// says what to do, or that no credit was used, is not told again.
	if !strings.Contains(strings.ToLower(reason), "credit") {
		b.WriteString(" No credits were used.")
	}
	if !givesAdvice(reason) {
		b.WriteString(" " + FailedBuildAdvice)
	}
	return b.String()
}

// FailedBuildAdvice ends a failed build's note whose reason gives no advice.
const FailedBuildAdvice = "Try a photo of the product on a plain background."

// givesAdvice reports whether a failure reason already tells the merchant
// what to do next (the reconstructor's and the worker's reasons often do),
// or needs no photo advice at all (the blueprint was deleted mid-build).
func givesAdvice(reason string) bool {
	r := strings.ToLower(reason)
	for _, w := range []string{"try ", "retry", "use a ", "use one ", "plain background", "backdrop", "take a ", "upload a ", "deleted while"} {
		if strings.Contains(r, w) {
			return true
		}
	}
	return false
}

func addonNote(ev events.AddonPurchased) *note {
	switch ev.Kind {
	case "credits":
		return &note{userID: ev.UserID, kind: KindAddonPurchased,
			title:   "Added " + plural(ev.Amount, "AI credit", "AI credits"),
			message: "Your AI credits pack is ready to use for new 3D models.", link: subscriptionPath}
	case "views":
		return &note{userID: ev.UserID, kind: KindAddonPurchased,
			title:   "Added " + plural(ev.Amount, "view", "views"),
			message: "Your public views pack is active; your share links keep working.", link: subscriptionPath}
	}
	return nil
}

// foldViews keeps the user's subscription fold and warns once when public
// views used cross ViewsWarnPercent; dropping back below (a views pack, an
// upgrade) re-arms the warning. The plan in force is judged at the event's
// time, so a trial that lapsed is seen by the next event, deterministically.
func foldViews(ctx context.Context, tx pgx.Tx, e eventstore.Envelope, userID string) error {
	u, alerted, err := loadViews(ctx, tx, userID)
	if err != nil {
		return err
	}
	u.Apply(e.Data, e.OccurredAt)
	pct, measured := u.ViewsUsedPercent(e.OccurredAt)
	over := measured && pct >= ViewsWarnPercent
	if over && !alerted {
		limit, _ := u.ViewsLimit(e.OccurredAt)
		n := note{userID: userID, kind: KindViewsLow, title: "Public views running low",
			message: fmt.Sprintf("You have used %d%% of your public views (%s of %s). Add a views pack to keep your share links working.",
				pct, thousands(u.ViewsUsed), thousands(limit)),
			link: subscriptionPath}
		if err := insertNote(ctx, tx, n, e.Position, e.OccurredAt); err != nil {
			return err
		}
	}
	return saveViews(ctx, tx, userID, u, over)
}

// plural writes n with its noun ("1 AI credit", "10,000 views").
func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return thousands(n) + " " + many
}

// thousands formats n with comma separators, as the subscription page does.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
