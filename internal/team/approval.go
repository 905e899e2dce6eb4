package team

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/mail"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/publish"
)

// Approval states.
const (
	StatePending   = "pending"
	StateApproved  = "approved"
	StateRejected  = "rejected"
	StateWithdrawn = "withdrawn"
)

// MaxCommentLength bounds a decision's comment.
const MaxCommentLength = 2000

// Approval is one publish request.
type Approval struct {
	ID             string              `json:"id"`
	ProductID      string              `json:"productId"`
	ProductName    string              `json:"productName"`
	PageVersion    int                 `json:"pageVersion"` // the page version it publishes
	RequireEmail   bool                `json:"requireEmail"`
	AllowDeepLinks bool                `json:"allowDeepLinks"`
	Status         string              `json:"status"`
	WithdrawReason string              `json:"withdrawReason,omitempty"`
	RequestedBy    Actor               `json:"requestedBy"`
	RequestedAt    time.Time           `json:"requestedAt"`
	DecidedBy      *Actor              `json:"decidedBy,omitempty"`
	DecidedAt      *time.Time          `json:"decidedAt,omitempty"`
	Comment        string              `json:"comment"`
	Comparison     *publish.Comparison `json:"comparison,omitempty"` // what would go live next to what is live (pending only)
}

var (
	errApprovalNotFound = fault.NotFoundf("No such approval request in this workspace.")
	errCommentTooLong   = fault.New(fault.Invalid, "comment_too_long",
		fmt.Sprintf("A comment can be at most %d characters long.", MaxCommentLength))
)

// RequestPublish records an editor's Publish as a request for approval. The
// product must be ready, the plan must allow public pages (both are what
// the approval will need). A pending request for the same product is
// replaced. NotifyUserIDs are the owner and the reviewers.
func (s *Service) RequestPublish(ctx context.Context, wsID, productID string, set publish.ProductSettings) (Approval, error) {
	var answer Approval
	err := pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		var id string
		answered := func() (err error) {
			answer, err = s.approvalIn(ctx, tx, wsID, id)
			return err
		}
		now := s.now().UTC()
		if _, err := ensureWorkspace(ctx, tx, wsID, now); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT 1 FROM products WHERE id = $1 FOR UPDATE`, productID); err != nil {
			return fmt.Errorf("lock product: %w", err)
		}
		cmp, err := s.pubs.Compare(ctx, tx, wsID, productID, set)
		if err != nil {
			return err
		}
		if err := s.pubs.CheckSharing(ctx, wsID); err != nil {
			return err
		}
		version, err := s.store.Version(ctx, tx, events.Stream{Type: events.StreamProduct, ID: productID})
		if err != nil {
			return err
		}
		var old struct {
			id          string
			version     int64
			email, deep bool
		}
		var changed bool
		err = tx.QueryRow(ctx, `SELECT a.id, a.product_version, a.require_email, a.allow_deep_links, `+changedSince("$2")+`
			FROM approvals a WHERE a.product_id = $1 AND a.state = 'pending' FOR UPDATE`, productID, contentTypes).
			Scan(&old.id, &old.version, &old.email, &old.deep, &changed)
		switch {
		case err == nil && !changed && old.email == set.RequireEmail && old.deep == set.AllowDeepLinks:
			id = old.id // asked again for the same thing: the request stands
			return answered()
		case err == nil:
			reason := "replaced"
			if changed {
				reason = "changed"
			}
			if err := s.append(ctx, tx, approvalStream(old.id), events.ApprovalWithdrawn{ApprovalID: old.id, WorkspaceID: wsID,
				ProductID: productID, Reason: reason, At: now}); err != nil {
				return err
			}
		case !errors.Is(err, pgx.ErrNoRows):
			return fmt.Errorf("read pending request: %w", err)
		}
		notify, err := deciders(ctx, tx, wsID)
		if err != nil {
			return err
		}
		id = newID()
		ev := events.ApprovalRequested{ApprovalID: id, WorkspaceID: wsID, ProductID: productID, ProductVersion: version, PageVersion: cmp.Next.Version,
			RequireEmail: set.RequireEmail, AllowDeepLinks: set.AllowDeepLinks, RequestedBy: actorOf(ctx),
			NotifyUserIDs: notify, At: now}
		if err := s.append(ctx, tx, approvalStream(id), ev); err != nil {
			return err
		}
		if err := s.mailApproval(ctx, tx, wsID, notify, productID, "requested"); err != nil {
			return err
		}
		return answered()
	})
	if err != nil {
		return Approval{}, err
	}
	return answer, nil
}

// deciders are the members who may approve: the owner and the reviewers.
func deciders(ctx context.Context, tx pgx.Tx, wsID string) ([]string, error) {
	rows, err := tx.Query(ctx, `SELECT user_id FROM workspace_members WHERE workspace_id = $1 AND role IN ('owner', 'reviewer')
		ORDER BY role <> 'owner', joined_at, user_id`, wsID)
	if err != nil {
		return nil, fmt.Errorf("list reviewers: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// Decide approves or rejects a pending request. Approving publishes the
// product exactly as requested (a change after the request withdrew it, so
// the product is as it was then) and pins the page to that version.
func (s *Service) Decide(ctx context.Context, wsID, approvalID string, approve bool, comment string) (Approval, error) {
	comment = strings.TrimSpace(comment)
	if utf8.RuneCountInString(comment) > MaxCommentLength {
		return Approval{}, errCommentTooLong
	}
	var refusal error
	var answer Approval
	err := pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		now := s.now().UTC()
		pa, err := lockPending(ctx, tx, wsID, approvalID)
		if err != nil {
			return err
		}
		productID, requestedBy, set := pa.productID, pa.requestedBy, pa.set
		// With the product row locked no change can slip in: if none came
		// after the request, the product is exactly what was requested, and
		// publishing it now publishes that. A change withdraws the request,
		// which is recorded here and refused.
		if _, err := tx.Exec(ctx, `SELECT 1 FROM products WHERE id = $1 FOR UPDATE`, productID); err != nil {
			return fmt.Errorf("lock product: %w", err)
		}
		var changed bool
		if err := tx.QueryRow(ctx, `SELECT `+changedSince("$2")+` FROM approvals a WHERE a.id = $1`, approvalID, contentTypes).Scan(&changed); err != nil {
			return fmt.Errorf("check product changes: %w", err)
		}
		if changed {
			refusal = notPending(StateWithdrawn, "changed")
			return s.append(ctx, tx, approvalStream(approvalID), events.ApprovalWithdrawn{ApprovalID: approvalID, WorkspaceID: wsID,
				ProductID: productID, Reason: "changed", At: now})
		}
		if approve {
			if _, _, err := s.pubs.PublishApproved(ctx, tx, wsID, productID, set); err != nil {
				return err
			}
		}
		if err := s.append(ctx, tx, approvalStream(approvalID), events.ApprovalDecided{ApprovalID: approvalID, WorkspaceID: wsID,
			ProductID: productID, Approved: approve, Comment: comment, DecidedBy: actorOf(ctx), RequestedBy: requestedBy, At: now}); err != nil {
			return err
		}
		kind := "rejected"
		if approve {
			kind = "approved"
		}
		if id, ok := strings.CutPrefix(requestedBy, "user-"); ok {
			if err := s.mailApproval(ctx, tx, wsID, []string{id}, productID, kind); err != nil {
				return err
			}
		}
		answer, err = s.approvalIn(ctx, tx, wsID, approvalID)
		return err
	})
	if err == nil {
		err = refusal
	}
	if err != nil {
		return Approval{}, err
	}
	return answer, nil
}

// pendingApproval is what a decision or a withdrawal needs of a request.
type pendingApproval struct {
	productID, requestedBy string
	set                    publish.ProductSettings
}

// lockPending locks a request of the workspace in tx; one that is no longer
// pending (as recorded) is refused with what became of it.
func lockPending(ctx context.Context, tx pgx.Tx, wsID, id string) (pendingApproval, error) {
	var pa pendingApproval
	var state, reason string
	err := tx.QueryRow(ctx, `SELECT product_id, state, withdraw_reason, require_email, allow_deep_links, requested_by
		FROM approvals WHERE id = $1 AND workspace_id = $2 FOR UPDATE`, id, wsID).
		Scan(&pa.productID, &state, &reason, &pa.set.RequireEmail, &pa.set.AllowDeepLinks, &pa.requestedBy)
	if errors.Is(err, pgx.ErrNoRows) {
		return pa, errApprovalNotFound
	}
	if err != nil {
		return pa, fmt.Errorf("read approval: %w", err)
	}
	if state != StatePending {
		return pa, notPending(state, reason)
	}
	return pa, nil
}

func notPending(state, reason string) error {
	switch {
	case state == StateApproved:
		return fault.New(fault.Conflict, "approval_decided", "This request was already approved.")
	case state == StateRejected:
		return fault.New(fault.Conflict, "approval_decided", "This request was already rejected.")
	case reason == "changed":
		return fault.New(fault.Conflict, "approval_withdrawn",
			"The product changed after publishing was requested, so the request was withdrawn. The editor can request it again.")
	}
	return fault.New(fault.Conflict, "approval_withdrawn", "This request was withdrawn.")
}

// Withdraw cancels a pending request (its requester or the owner).
func (s *Service) Withdraw(ctx context.Context, wsID, approvalID string) (Approval, error) {
	var answer Approval
	err := pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		pa, err := lockPending(ctx, tx, wsID, approvalID)
		if err != nil {
			return err
		}
		if err := s.append(ctx, tx, approvalStream(approvalID), events.ApprovalWithdrawn{ApprovalID: approvalID, WorkspaceID: wsID,
			ProductID: pa.productID, Reason: "cancelled", At: s.now().UTC()}); err != nil {
			return err
		}
		answer, err = s.approvalIn(ctx, tx, wsID, approvalID)
		return err
	})
	if err != nil {
		return Approval{}, err
	}
	return answer, nil
}

// approvalColumns read a request as it stands: a pending one whose product
// changed since is withdrawn ("changed"), though nothing recorded it yet
// ($1 names contentTypes).
var approvalColumns = `a.id, a.product_id, coalesce(p.name, ''), a.page_version, a.require_email, a.allow_deep_links,
	CASE WHEN a.state = 'pending' AND ` + changedSince("$1") + ` THEN 'withdrawn' ELSE a.state END,
	CASE WHEN a.state = 'pending' AND ` + changedSince("$1") + ` THEN 'changed' ELSE a.withdraw_reason END,
	a.requested_by, a.requested_at, a.decided_by, a.decided_at, a.comment`

func scanApproval(r pgx.CollectableRow) (Approval, error) {
	var a Approval
	var requestedBy, decidedBy string
	err := r.Scan(&a.ID, &a.ProductID, &a.ProductName, &a.PageVersion, &a.RequireEmail, &a.AllowDeepLinks, &a.Status,
		&a.WithdrawReason, &requestedBy, &a.RequestedAt, &decidedBy, &a.DecidedAt, &a.Comment)
	a.RequestedBy = Actor{ID: requestedBy}
	if decidedBy != "" {
		a.DecidedBy = &Actor{ID: decidedBy}
	}
	return a, err
}

// Approvals lists the workspace's requests, pending first, newest first;
// productID narrows to one product, state to one state.
func (s *Service) Approvals(ctx context.Context, wsID, productID, state string) ([]Approval, error) {
	rows, err := s.db.Query(ctx, `SELECT * FROM (SELECT `+approvalColumns+` FROM approvals a LEFT JOIN products p ON p.id = a.product_id
		WHERE a.workspace_id = $2 AND ($3 = '' OR a.product_id = $3)) r (id, product_id, name, page_version, require_email,
			allow_deep_links, state, withdraw_reason, requested_by, requested_at, decided_by, decided_at, comment)
		WHERE ($4 = '' OR r.state = $4)
		ORDER BY r.state <> 'pending', r.requested_at DESC, r.id LIMIT 200`, contentTypes, wsID, productID, state)
	if err != nil {
		return nil, fmt.Errorf("list approvals: %w", err)
	}
	out, err := pgx.CollectRows(rows, scanApproval)
	if err != nil {
		return nil, fmt.Errorf("list approvals: %w", err)
	}
	for i := range out { // pending ones (one per product at most) carry their comparison
		if a := &out[i]; a.Status == StatePending {
			if c, err := s.pubs.Compare(ctx, s.db, wsID, a.ProductID, publish.ProductSettings{RequireEmail: a.RequireEmail, AllowDeepLinks: a.AllowDeepLinks}); err == nil {
				a.Comparison = &c
			}
		}
	}
	if err := s.nameActors(ctx, s.db, approvalActors(out)); err != nil {
		return nil, err
	}
	return out, nil
}

func approvalActors(as []Approval) []*Actor {
	var out []*Actor
	for i := range as {
		out = append(out, &as[i].RequestedBy)
		if as[i].DecidedBy != nil {
			out = append(out, as[i].DecidedBy)
		}
	}
	return out
}

// Approval returns one request; a pending one carries what would go live
// next to what is live now.
func (s *Service) Approval(ctx context.Context, wsID, id string) (Approval, error) {
	return s.approvalIn(ctx, s.db, wsID, id)
}

// approvalIn is Approval read through q. A request, a decision or a
// withdrawal reads its answer with it inside its own transaction: read after
// the COMMIT, a lost connection would answer an error for a change that was
// made, and the retry would be refused as already decided.
func (s *Service) approvalIn(ctx context.Context, q pgdb.Querier, wsID, id string) (Approval, error) {
	rows, err := q.Query(ctx, `SELECT `+approvalColumns+` FROM approvals a LEFT JOIN products p ON p.id = a.product_id
		WHERE a.id = $2 AND a.workspace_id = $3`, contentTypes, id, wsID)
	if err != nil {
		return Approval{}, fmt.Errorf("read approval: %w", err)
	}
	as, err := pgx.CollectRows(rows, scanApproval)
	if err != nil {
		return Approval{}, fmt.Errorf("read approval: %w", err)
	}
	if len(as) == 0 {
		return Approval{}, errApprovalNotFound
	}
	a := &as[0]
	if a.Status == StatePending {
		// A product that cannot be shown (rebuilding) has no comparison; the
		// request itself is still answered.
		if c, err := s.pubs.Compare(ctx, q, wsID, a.ProductID, publish.ProductSettings{RequireEmail: a.RequireEmail, AllowDeepLinks: a.AllowDeepLinks}); err == nil {
			a.Comparison = &c
		}
	}
	if err := s.nameActors(ctx, q, approvalActors(as)); err != nil {
		return Approval{}, err
	}
	return as[0], nil
}

// mailApproval mails the members in userIDs who opted in about a request
// (kind "requested") or a decision ("approved", "rejected").
func (s *Service) mailApproval(ctx context.Context, tx pgx.Tx, wsID string, userIDs []string, productID, kind string) error {
	if s.mailer == nil || len(userIDs) == 0 {
		return nil
	}
	rows, err := tx.Query(ctx, `SELECT p.email FROM workspace_members m JOIN user_pii p ON p.user_id = m.user_id
		WHERE m.workspace_id = $1 AND m.user_id = ANY($2) AND m.approval_mail ORDER BY m.user_id`, wsID, userIDs)
	if err != nil {
		return fmt.Errorf("read approval mail recipients: %w", err)
	}
	to, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(to) == 0 {
		return err
	}
	p, _, err := catalog.LoadProduct(ctx, tx, productID)
	if err != nil {
		return err
	}
	name := p.Name
	if name == "" {
		name = "A product"
	}
	link := s.baseURL + "/approvals"
	subject, body := "", ""
	switch kind {
	case "requested":
		subject = name + " is waiting for your approval"
		body = "An editor asked to publish " + name + ". Review what would go live next to what is live now, then approve or reject:\n\n" + link + "\n"
	case "approved":
		subject = name + " was approved and is live"
		body = "Your request to publish " + name + " was approved; the page now shows the version you asked for.\n\n" + link + "\n"
	default:
		subject = name + " was not approved"
		body = "Your request to publish " + name + " was rejected. The reviewer's comment is on the approvals page:\n\n" + link + "\n"
	}
	body += "\nYou get this mail because you turned on approval mail in Team settings.\n"
	for _, addr := range to {
		if err := s.mailer.Enqueue(ctx, tx, mail.Mail{UserID: wsID, To: addr, Kind: mail.KindText,
			Data: map[string]string{"subject": subject, "body": body}}); err != nil {
			return err
		}
	}
	return nil
}
