// Package team is who works in a workspace (issue 51): members and their
// roles, invitations, the approval rule, publish requests and their
// decisions, and the activity of a product with who did what.
//
// A workspace owns the merchant data. Every account has its own workspace
// whose id is the account's id, so every merchant-data table's user_id
// column names the owning workspace and nothing was rewritten when teams
// arrived. An account's own workspace exists before its workspaces row does
// (an account registered by a store without team.Projection): Resolve treats
// it as owned by the account until a row says otherwise.
package team

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/mail"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/publish"
	"github.com/photo3d/photo3d/internal/subscription"
)

// Role is a member's role in a workspace.
type Role string

// The four roles (issue 51 §2).
const (
	Owner    Role = events.RoleOwner    // billing, members, deleting the workspace; everything else too
	Editor   Role = events.RoleEditor   // the catalogue; publishing subject to approvals
	Reviewer Role = events.RoleReviewer // sees everything, approves or rejects, changes nothing else
	Analyst  Role = events.RoleAnalyst  // analytics and exports only
)

// Roles lists every role, owner first.
var Roles = []Role{Owner, Editor, Reviewer, Analyst}

// InviteLifetime: "An invite expires in 7 days".
const InviteLifetime = 7 * 24 * time.Hour

// Seats is how many members (the owner included) and open invitations a
// plan allows: Free 1, Pro 5, Enterprise unlimited (0).
func Seats(p subscription.Plan) int {
	switch p {
	case subscription.PlanPro:
		return 5
	case subscription.PlanEnterprise:
		return 0
	}
	return 1
}

// Access is what a request may do in its workspace.
type Access struct {
	WorkspaceID     string
	Role            Role
	RequireApproval bool
}

// Service runs the team commands. Team events are projected by the service
// itself in the command's transaction (Project); Projection handles the
// events of other aggregates that change team read models.
type Service struct {
	db       *pgxpool.Pool
	store    *eventstore.Store
	accounts *account.Service
	subs     *subscription.Service
	pubs     *publish.Service
	mailer   mail.Enqueuer
	baseURL  string
	now      func() time.Time
}

// Options configure a Service.
type Options struct {
	Accounts      *account.Service
	Subscriptions *subscription.Service
	Publications  *publish.Service
	Mailer        mail.Enqueuer // invitations and opted-in approval mail
	PublicBaseURL string        // invitation links start here
}

// NewService builds the team service.
func NewService(db *pgxpool.Pool, store *eventstore.Store, o Options) *Service {
	return &Service{db: db, store: store, accounts: o.Accounts, subs: o.Subscriptions, pubs: o.Publications,
		mailer: o.Mailer, baseURL: strings.TrimRight(o.PublicBaseURL, "/"), now: time.Now}
}

// WithClock returns a copy using now (tests of expiry).
func (s *Service) WithClock(now func() time.Time) *Service {
	c := *s
	c.now = now
	return &c
}

func workspaceStream(id string) events.Stream {
	return events.Stream{Type: events.StreamWorkspace, ID: id}
}

func approvalStream(id string) events.Stream {
	return events.Stream{Type: events.StreamApproval, ID: id}
}

// Errors a member can be shown.
var (
	errNoWorkspace = fault.NotFoundf("No such workspace.")
	// ErrNotAMember answers a session whose current workspace the person
	// was removed from: 403 on the next request (issue 51 §3).
	ErrNotAMember = fault.New(fault.Forbidden, "not_a_member",
		"You are no longer a member of this workspace. Switch to another workspace.")
	errRole = fault.New(fault.Invalid, "invalid_role",
		"Choose a role: editor, reviewer or analyst.")
	errInviteEmail   = fault.New(fault.Invalid, "email_invalid", account.MsgValidEmail)
	errInviteInvalid = fault.New(fault.NotFound, "invite_invalid",
		"This invitation link is not valid. Ask the workspace owner to invite you again.")
	errInviteUsed = fault.New(fault.Conflict, "invite_used",
		"This invitation was already accepted. Sign in to open the workspace.")
	errInviteRevoked = fault.New(fault.Conflict, "invite_revoked",
		"This invitation was withdrawn by the workspace owner.")
	errMemberNotFound = fault.NotFoundf("No such member in this workspace.")
	errOwnerFixed     = fault.New(fault.Conflict, "owner_role",
		"The owner's role changes only by transferring ownership to another member.")
)

// ResolveOwn is Resolve for the account's own workspace.
func (s *Service) ResolveOwn(ctx context.Context, userID string) (Access, error) {
	return s.Resolve(ctx, userID, userID)
}

// Resolve says what userID may do in workspace wsID, read on every request
// so that a removal or a role change takes effect on the next one. Someone
// who is not a member gets errNoWorkspace (404); the caller turns that into
// ErrNotAMember when the workspace came from the person's own session.
func (s *Service) Resolve(ctx context.Context, userID, wsID string) (Access, error) {
	var exists, requireApproval bool
	var role string
	err := s.db.QueryRow(ctx, `SELECT w.id IS NOT NULL, coalesce(w.require_approval, false), coalesce(m.role, '')
		FROM (SELECT $1::text AS id) x
		LEFT JOIN workspaces w ON w.id = x.id
		LEFT JOIN workspace_members m ON m.workspace_id = x.id AND m.user_id = $2`, wsID, userID).
		Scan(&exists, &requireApproval, &role)
	if err != nil {
		return Access{}, fmt.Errorf("resolve workspace: %w", err)
	}
	if role == "" && !exists && wsID == userID {
		role = string(Owner) // the account's own workspace before its row exists
	}
	if role == "" {
		return Access{}, errNoWorkspace
	}
	return Access{WorkspaceID: wsID, Role: Role(role), RequireApproval: requireApproval}, nil
}

// IsNoWorkspace says whether err is Resolve's "not a member".
func IsNoWorkspace(err error) bool { return errors.Is(err, errNoWorkspace) }

// ErrNoWorkspace is Resolve's "not a member" (404), for callers that read
// the membership another way (SessionIn).
var ErrNoWorkspace error = errNoWorkspace

// ensureWorkspace creates the row of an account's own workspace (and its
// owner membership) if the account predates it, then locks the row.
func ensureWorkspace(ctx context.Context, tx pgx.Tx, wsID string, now time.Time) (ownerID string, err error) {
	if _, err := tx.Exec(ctx, `INSERT INTO workspaces (id, owner_id, created_at)
		SELECT $1, $1, $2 WHERE NOT EXISTS (SELECT 1 FROM workspaces WHERE id = $1)
		  AND EXISTS (SELECT 1 FROM users WHERE id = $1 AND erased_at IS NULL)
		ON CONFLICT (id) DO NOTHING`, wsID, now); err != nil {
		return "", fmt.Errorf("create workspace: %w", err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO workspace_members (workspace_id, user_id, role, joined_at)
		SELECT id, owner_id, 'owner', created_at FROM workspaces WHERE id = $1 AND owner_id = $1
		ON CONFLICT DO NOTHING`, wsID); err != nil {
		return "", fmt.Errorf("create workspace owner: %w", err)
	}
	err = tx.QueryRow(ctx, `SELECT owner_id FROM workspaces WHERE id = $1 FOR UPDATE`, wsID).Scan(&ownerID)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", errNoWorkspace
	}
	if err != nil {
		return "", fmt.Errorf("lock workspace: %w", err)
	}
	return ownerID, nil
}

// append records team events in tx and projects them.
func (s *Service) append(ctx context.Context, tx pgx.Tx, stream events.Stream, evs ...events.Event) error {
	envs, err := s.store.Append(ctx, tx, stream, eventstore.AnyVersion, evs...)
	if err != nil {
		return err
	}
	for _, e := range envs {
		if err := Project(ctx, tx, e); err != nil {
			return err
		}
	}
	return nil
}

func newToken() (string, []byte) {
	t := rand.Text() + rand.Text()
	return t, hashToken(t)
}

func hashToken(t string) []byte {
	h := sha256.Sum256([]byte(t))
	return h[:]
}

// Workspace is one workspace in a person's list.
type Workspace struct {
	ID              string `json:"id"`
	Name            string `json:"name"`
	Role            Role   `json:"role"`
	Own             bool   `json:"own"` // the account's own workspace
	RequireApproval bool   `json:"requireApproval"`
	Members         int    `json:"members"`
}

// nameSQL names a workspace: its brand when it has one, else its owner's
// name ("Ada Lovelace's workspace").
const nameSQL = `coalesce(nullif(nullif(b.brand_name, ''), '` + account.DefaultBrandName + `'),
	coalesce(nullif(p.name, ''), 'A former member') || '''s workspace')`

// Workspaces lists the workspaces userID belongs to, their own first.
func (s *Service) Workspaces(ctx context.Context, userID string) ([]Workspace, error) {
	rows, err := s.db.Query(ctx, `WITH mine AS (
			SELECT m.workspace_id AS id, m.role FROM workspace_members m WHERE m.user_id = $1
			UNION ALL
			SELECT $1, 'owner' WHERE NOT EXISTS (SELECT 1 FROM workspaces WHERE id = $1))
		SELECT mine.id, mine.role, `+nameSQL+`, coalesce(w.require_approval, false),
			(SELECT count(*) FROM workspace_members c WHERE c.workspace_id = mine.id)
		FROM mine
		LEFT JOIN workspaces w ON w.id = mine.id
		LEFT JOIN branding b ON b.user_id = mine.id
		LEFT JOIN user_pii p ON p.user_id = coalesce(w.owner_id, mine.id)
		ORDER BY mine.id <> $1, 3, 1`, userID)
	if err != nil {
		return nil, fmt.Errorf("list workspaces: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Workspace, error) {
		var w Workspace
		err := r.Scan(&w.ID, &w.Role, &w.Name, &w.RequireApproval, &w.Members)
		w.Own = w.ID == userID
		w.Members = max(w.Members, 1)
		return w, err
	})
	if err != nil {
		return nil, fmt.Errorf("list workspaces: %w", err)
	}
	return out, nil
}

// Member is one person in a workspace.
type Member struct {
	UserID   string    `json:"userId"`
	Role     Role      `json:"role"`
	Name     string    `json:"name"`
	Email    string    `json:"email"`
	JoinedAt time.Time `json:"joinedAt"`
	MailMe   bool      `json:"approvalMail"` // mail about approvals (opted in)
}

// Invite is an open invitation.
type Invite struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	Role      Role      `json:"role"`
	ExpiresAt time.Time `json:"expiresAt"`
	CreatedAt time.Time `json:"createdAt"`
}

// Team is GET /api/team/members.
type Team struct {
	WorkspaceID     string   `json:"workspaceId"`
	Name            string   `json:"name"`
	RequireApproval bool     `json:"requireApproval"`
	Seats           int      `json:"seats"` // 0: unlimited
	Members         []Member `json:"members"`
	Invites         []Invite `json:"invites"`
}

// Members returns the workspace's members and its open invitations.
func (s *Service) Members(ctx context.Context, wsID string) (Team, error) {
	t := Team{WorkspaceID: wsID, Members: []Member{}, Invites: []Invite{}}
	err := s.db.QueryRow(ctx, `SELECT `+nameSQL+`, coalesce(w.require_approval, false)
		FROM (SELECT $1::text AS id) x
		LEFT JOIN workspaces w ON w.id = x.id
		LEFT JOIN branding b ON b.user_id = x.id
		LEFT JOIN user_pii p ON p.user_id = coalesce(w.owner_id, x.id)`, wsID).Scan(&t.Name, &t.RequireApproval)
	if err != nil {
		return Team{}, fmt.Errorf("read workspace: %w", err)
	}
	rows, err := s.db.Query(ctx, `SELECT m.user_id, m.role, coalesce(p.name, ''), coalesce(p.email, ''), m.joined_at, m.approval_mail
		FROM workspace_members m LEFT JOIN user_pii p ON p.user_id = m.user_id
		WHERE m.workspace_id = $1 ORDER BY m.role <> 'owner', m.joined_at, m.user_id`, wsID)
	if err != nil {
		return Team{}, fmt.Errorf("list members: %w", err)
	}
	t.Members, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (Member, error) {
		var m Member
		return m, r.Scan(&m.UserID, &m.Role, &m.Name, &m.Email, &m.JoinedAt, &m.MailMe)
	})
	if err != nil {
		return Team{}, fmt.Errorf("list members: %w", err)
	}
	if len(t.Members) == 0 { // the own workspace before its row exists
		u, err := s.accounts.Get(ctx, s.db, wsID)
		if err != nil {
			return Team{}, err
		}
		t.Members = []Member{{UserID: wsID, Role: Owner, Name: u.Name, Email: u.Email, JoinedAt: u.CreatedAt}}
	}
	rows, err = s.db.Query(ctx, `SELECT id, email, role, expires_at, created_at FROM team_invites
		WHERE workspace_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $2
		ORDER BY created_at, id`, wsID, s.now().UTC())
	if err != nil {
		return Team{}, fmt.Errorf("list invites: %w", err)
	}
	t.Invites, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (Invite, error) {
		var i Invite
		return i, r.Scan(&i.ID, &i.Email, &i.Role, &i.ExpiresAt, &i.CreatedAt)
	})
	if err != nil {
		return Team{}, fmt.Errorf("list invites: %w", err)
	}
	if t.Seats, err = s.seats(ctx, s.db, wsID); err != nil {
		return Team{}, err
	}
	return t, nil
}

func (s *Service) seats(ctx context.Context, q pgdb.Querier, wsID string) (int, error) {
	v, err := s.subs.Get(ctx, q, wsID)
	if err != nil {
		return 0, err
	}
	return Seats(v.EffectivePlan), nil
}

func validInviteRole(r Role) bool { return r == Editor || r == Reviewer || r == Analyst }

// CreatedInvite is an invitation just sent; the token is only in the mail.
type CreatedInvite struct {
	Invite
	Link string `json:"-"` // tests read the link the mail holds
}

// Invite invites email to the workspace with role, in one transaction with
// its mail. An open invitation for the same address is replaced (its link
// stops working). Refusals say why: a bad role or address, an address that
// is already a member, no seat left on the plan.
func (s *Service) Invite(ctx context.Context, wsID, inviterID, email string, role Role) (CreatedInvite, error) {
	email = account.NormalizeEmail(email)
	if !validInviteRole(role) {
		return CreatedInvite{}, errRole
	}
	if email == "" || !strings.Contains(email, "@") || strings.ContainsAny(email, " \t\r\n<>,;") {
		return CreatedInvite{}, errInviteEmail
	}
	var out CreatedInvite
	err := pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		now := s.now().UTC()
		if _, err := ensureWorkspace(ctx, tx, wsID, now); err != nil {
			return err
		}
		var member bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM workspace_members m JOIN user_pii p ON p.user_id = m.user_id
			WHERE m.workspace_id = $1 AND p.email = $2)`, wsID, email).Scan(&member); err != nil {
			return fmt.Errorf("check member: %w", err)
		}
		if member {
			return fault.New(fault.Conflict, "already_member", email+" is already a member of this workspace.")
		}
		if _, err := tx.Exec(ctx, `UPDATE team_invites SET revoked_at = $3
			WHERE workspace_id = $1 AND email = $2 AND accepted_at IS NULL AND revoked_at IS NULL`, wsID, email, now); err != nil {
			return fmt.Errorf("replace invitation: %w", err)
		}
		seats, err := s.seats(ctx, tx, wsID)
		if err != nil {
			return err
		}
		if seats > 0 {
			var used int
			if err := tx.QueryRow(ctx, `SELECT (SELECT count(*) FROM workspace_members WHERE workspace_id = $1)
				+ (SELECT count(*) FROM team_invites WHERE workspace_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $2)`,
				wsID, now).Scan(&used); err != nil {
				return fmt.Errorf("count seats: %w", err)
			}
			if used >= seats {
				return seatsRefusal(seats)
			}
		}
		token, hash := newToken()
		out = CreatedInvite{Invite: Invite{ID: rand.Text(), Email: email, Role: role, ExpiresAt: now.Add(InviteLifetime), CreatedAt: now}}
		if _, err := tx.Exec(ctx, `INSERT INTO team_invites (id, workspace_id, email, role, token_hash, invited_by, created_at, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, out.ID, wsID, email, string(role), hash, inviterID, now, out.ExpiresAt); err != nil {
			return fmt.Errorf("store invitation: %w", err)
		}
		if err := s.append(ctx, tx, workspaceStream(wsID), events.TeamMemberInvited{InviteID: out.ID, WorkspaceID: wsID,
			Role: string(role), ExpiresAt: out.ExpiresAt, At: now}); err != nil {
			return err
		}
		out.Link = s.baseURL + "/accept-invite?invite=" + token
		return s.mailInvite(ctx, tx, wsID, inviterID, out)
	})
	return out, err
}

func seatsRefusal(seats int) error {
	if seats == 1 {
		return fault.New(fault.Forbidden, "upgrade_required",
			"The Free plan has one seat, and you use it. Upgrade to Pro to invite up to 4 teammates.")
	}
	return fault.New(fault.Forbidden, "seats_exhausted", fmt.Sprintf(
		"All %d seats of your plan are taken by members and open invitations. Remove a member or an invitation, or upgrade to Enterprise for unlimited seats.", seats))
}

func (s *Service) mailInvite(ctx context.Context, tx pgx.Tx, wsID, inviterID string, inv CreatedInvite) error {
	if s.mailer == nil {
		return errors.New("invite: no mailer configured")
	}
	var inviter, wsName string
	if err := tx.QueryRow(ctx, `SELECT coalesce((SELECT name FROM user_pii WHERE user_id = $2), 'A teammate'), `+nameSQL+`
		FROM (SELECT $1::text AS id) x
		LEFT JOIN workspaces w ON w.id = x.id
		LEFT JOIN branding b ON b.user_id = x.id
		LEFT JOIN user_pii p ON p.user_id = coalesce(w.owner_id, x.id)`, wsID, inviterID).Scan(&inviter, &wsName); err != nil {
		return fmt.Errorf("read invitation names: %w", err)
	}
	subject := inviter + " invited you to " + wsName + " on Photo3D"
	body := inviter + " invited you to join " + wsName + " on Photo3D as " + roleWithArticle(inv.Role) + ".\n\n" +
		"Open this link within 7 days to accept:\n\n" + inv.Link + "\n\n" +
		"If you have no Photo3D account yet, the page creates one for this address. " +
		"If you did not expect this invitation, ignore this mail.\n"
	return s.mailer.Enqueue(ctx, tx, mail.Mail{UserID: wsID, To: inv.Email, Kind: mail.KindText,
		Data: map[string]string{"subject": subject, "body": body}})
}

func roleWithArticle(r Role) string {
	if r == Analyst {
		return "an analyst"
	}
	return "a " + string(r)
}

// RevokeInvite takes an open invitation back; its link stops working.
func (s *Service) RevokeInvite(ctx context.Context, wsID, inviteID string) error {
	return pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		now := s.now().UTC()
		tag, err := tx.Exec(ctx, `UPDATE team_invites SET revoked_at = $3
			WHERE id = $1 AND workspace_id = $2 AND accepted_at IS NULL AND revoked_at IS NULL`, inviteID, wsID, now)
		if err != nil {
			return fmt.Errorf("revoke invitation: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return fault.NotFoundf("No open invitation with this id.")
		}
		return s.append(ctx, tx, workspaceStream(wsID), events.TeamInviteRevoked{InviteID: inviteID, WorkspaceID: wsID, At: now})
	})
}

// InviteInfo is what the accept page shows before anyone signs in.
type InviteInfo struct {
	WorkspaceName string    `json:"workspaceName"`
	Role          Role      `json:"role"`
	Email         string    `json:"email"`
	HasAccount    bool      `json:"hasAccount"` // the page asks for a name and password only when false
	ExpiresAt     time.Time `json:"expiresAt"`
}

// lockInvite reads an invitation by its token in tx, checking it is open.
func (s *Service) lockInvite(ctx context.Context, q pgx.Tx, token string) (wsID string, inv Invite, err error) {
	if strings.TrimSpace(token) == "" {
		return "", Invite{}, errInviteInvalid
	}
	var accepted, revoked *time.Time
	err = q.QueryRow(ctx, `SELECT workspace_id, id, email, role, expires_at, accepted_at, revoked_at
		FROM team_invites WHERE token_hash = $1 FOR UPDATE`, hashToken(strings.TrimSpace(token))).
		Scan(&wsID, &inv.ID, &inv.Email, &inv.Role, &inv.ExpiresAt, &accepted, &revoked)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return "", Invite{}, errInviteInvalid
	case err != nil:
		return "", Invite{}, fmt.Errorf("read invitation: %w", err)
	case accepted != nil:
		return "", Invite{}, errInviteUsed
	case revoked != nil:
		return "", Invite{}, errInviteRevoked
	case !s.now().Before(inv.ExpiresAt):
		return "", Invite{}, fault.New(fault.Conflict, "invite_expired", "This invitation expired on "+
			inv.ExpiresAt.UTC().Format("2 January 2006")+". Ask the workspace owner to invite you again.")
	}
	return wsID, inv, nil
}

// PeekInvite returns what an invitation link offers, without using it.
func (s *Service) PeekInvite(ctx context.Context, token string) (InviteInfo, error) {
	var info InviteInfo
	err := pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		wsID, inv, err := s.lockInvite(ctx, tx, token)
		if err != nil {
			return err
		}
		info = InviteInfo{Role: inv.Role, Email: inv.Email, ExpiresAt: inv.ExpiresAt}
		if info.HasAccount, err = s.accounts.HasAccount(ctx, tx, inv.Email); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `SELECT `+nameSQL+` FROM workspaces w
			LEFT JOIN branding b ON b.user_id = w.id LEFT JOIN user_pii p ON p.user_id = w.owner_id
			WHERE w.id = $1`, wsID).Scan(&info.WorkspaceName)
	})
	return info, err
}

// Accepted is the result of accepting an invitation.
type Accepted struct {
	UserID      string
	WorkspaceID string
	Created     bool // a new account was made for the address
}

// Accept uses an invitation: the address's account (created with name and
// password when it has none) joins the workspace with the invited role.
func (s *Service) Accept(ctx context.Context, token, name, password string) (Accepted, error) {
	var out Accepted
	err := pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		wsID, inv, err := s.lockInvite(ctx, tx, token)
		if err != nil {
			return err
		}
		if _, err := ensureWorkspace(ctx, tx, wsID, s.now().UTC()); err != nil {
			return err
		}
		u, created, err := s.accounts.InvitedAccount(ctx, tx, inv.Email, name, password)
		if err != nil {
			return err
		}
		out = Accepted{UserID: u.ID, WorkspaceID: wsID, Created: created}
		now := s.now().UTC()
		if _, err := tx.Exec(ctx, `UPDATE team_invites SET accepted_at = $2, accepted_by = $3 WHERE id = $1`, inv.ID, now, u.ID); err != nil {
			return fmt.Errorf("use invitation: %w", err)
		}
		var member bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM workspace_members WHERE workspace_id = $1 AND user_id = $2)`,
			wsID, u.ID).Scan(&member); err != nil {
			return fmt.Errorf("check member: %w", err)
		}
		if member {
			return nil
		}
		ctx := withActor(ctx, u.ID)
		return s.append(ctx, tx, workspaceStream(wsID), events.TeamMemberJoined{WorkspaceID: wsID, UserID: u.ID,
			InviteID: inv.ID, Role: string(inv.Role), At: now})
	})
	return out, err
}

func withActor(ctx context.Context, userID string) context.Context {
	md := eventstore.MetadataFrom(ctx)
	md.Actor = "user-" + userID
	return eventstore.WithMetadata(ctx, md)
}

// lockMember locks the workspace and reads a member's role.
func lockMember(ctx context.Context, tx pgx.Tx, wsID, userID string, now time.Time) (Role, string, error) {
	ownerID, err := ensureWorkspace(ctx, tx, wsID, now)
	if err != nil {
		return "", "", err
	}
	var role Role
	err = tx.QueryRow(ctx, `SELECT role FROM workspace_members WHERE workspace_id = $1 AND user_id = $2`, wsID, userID).Scan(&role)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", ownerID, errMemberNotFound
	}
	if err != nil {
		return "", "", fmt.Errorf("read member: %w", err)
	}
	return role, ownerID, nil
}

// ChangeRole gives a member another role; it applies from their next request.
func (s *Service) ChangeRole(ctx context.Context, wsID, userID string, role Role) error {
	if !validInviteRole(role) {
		return errRole
	}
	return pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		now := s.now().UTC()
		cur, _, err := lockMember(ctx, tx, wsID, userID, now)
		if err != nil {
			return err
		}
		if cur == Owner {
			return errOwnerFixed
		}
		if cur == role {
			return nil
		}
		return s.append(ctx, tx, workspaceStream(wsID), events.TeamMemberRoleChanged{WorkspaceID: wsID, UserID: userID, Role: string(role), At: now})
	})
}

// RemoveMember takes a member out of the workspace (the owner removing
// someone, or a member leaving). Their next request in it is refused. What
// they made stays with the workspace, API keys included.
func (s *Service) RemoveMember(ctx context.Context, wsID, userID string) error {
	return pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		return s.removeTx(ctx, tx, wsID, userID, events.LeftRemoved)
	})
}

func (s *Service) removeTx(ctx context.Context, tx pgx.Tx, wsID, userID, reason string) error {
	now := s.now().UTC()
	cur, _, err := lockMember(ctx, tx, wsID, userID, now)
	if err != nil {
		return err
	}
	if cur == Owner && reason != events.LeftWorkspaceDeleted {
		return fault.New(fault.Conflict, "owner_cannot_leave",
			"The owner cannot leave the workspace. Transfer ownership to another member first.")
	}
	return s.append(ctx, tx, workspaceStream(wsID), events.TeamMemberRemoved{WorkspaceID: wsID, UserID: userID, Reason: reason, At: now})
}

// TransferOwnership makes another member the owner; the old owner stays as
// an editor. Billing follows the workspace, not the person.
func (s *Service) TransferOwnership(ctx context.Context, wsID, fromUserID, toUserID string) error {
	return pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		now := s.now().UTC()
		role, ownerID, err := lockMember(ctx, tx, wsID, toUserID, now)
		if err != nil {
			return err
		}
		if ownerID != fromUserID {
			return fault.New(fault.Forbidden, "forbidden_role", "Only the owner can transfer ownership.")
		}
		if role == Owner {
			return nil
		}
		return s.append(ctx, tx, workspaceStream(wsID), events.TeamOwnershipTransferred{WorkspaceID: wsID,
			FromUserID: fromUserID, ToUserID: toUserID, At: now})
	})
}

// SetRequireApproval turns the approval rule on or off. Turning it on pins
// every live product page to what shoppers see now, so later edits wait for
// an approval.
func (s *Service) SetRequireApproval(ctx context.Context, wsID string, on bool) (int, error) {
	locked := 0
	err := pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		now := s.now().UTC()
		if _, err := ensureWorkspace(ctx, tx, wsID, now); err != nil {
			return err
		}
		var cur bool
		if err := tx.QueryRow(ctx, `SELECT require_approval FROM workspaces WHERE id = $1`, wsID).Scan(&cur); err != nil {
			return fmt.Errorf("read settings: %w", err)
		}
		if cur == on {
			return nil
		}
		if on && s.pubs != nil {
			n, err := s.pubs.LockAllLive(ctx, tx, wsID)
			if err != nil {
				return err
			}
			locked = n
		}
		return s.append(ctx, tx, workspaceStream(wsID), events.TeamSettingsChanged{WorkspaceID: wsID, RequireApproval: on, At: now})
	})
	return locked, err
}

// SetApprovalMail records whether a member wants mail about approvals
// (opted in; off by default). It is the member's own setting, not an event.
func (s *Service) SetApprovalMail(ctx context.Context, wsID, userID string, on bool) error {
	return pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		if _, _, err := lockMember(ctx, tx, wsID, userID, s.now().UTC()); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE workspace_members SET approval_mail = $3 WHERE workspace_id = $1 AND user_id = $2`, wsID, userID, on)
		return err
	})
}

// OwnedWithMembers lists the workspaces userID owns that have other
// members: an owner deleting their account must transfer them first or
// delete them with the account.
func (s *Service) OwnedWithMembers(ctx context.Context, userID string) ([]string, error) {
	rows, err := s.db.Query(ctx, `SELECT w.id FROM workspaces w WHERE w.owner_id = $1
		AND EXISTS (SELECT 1 FROM workspace_members m WHERE m.workspace_id = w.id AND m.user_id <> $1) ORDER BY w.id`, userID)
	if err != nil {
		return nil, fmt.Errorf("list owned workspaces: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// Account returns a member's account (for the session an accepted
// invitation answers with).
func (s *Service) Account(ctx context.Context, userID string) (account.User, error) {
	return s.accounts.Get(ctx, s.db, userID)
}

// PrepareErasure applies the team rules in an account erasure's request
// transaction (account.Options.BeforeErasure):
//   - a workspace the person owns other than their own must be transferred
//     first (its data is not theirs to delete);
//   - their own workspace, if it still has other members, is deleted with
//     the account only when they confirmed it (deleteWorkspace): the members
//     leave it and are told by mail; otherwise the request is refused with
//     both ways out;
//   - their memberships in other workspaces end; what they made there stays.
func (s *Service) PrepareErasure(ctx context.Context, tx pgx.Tx, userID string, deleteWorkspace bool) error {
	now := s.now().UTC()
	rows, err := tx.Query(ctx, `SELECT w.id, (SELECT count(*) FROM workspace_members m WHERE m.workspace_id = w.id AND m.user_id <> $1)
		FROM workspaces w WHERE w.owner_id = $1 ORDER BY w.id FOR UPDATE`, userID)
	if err != nil {
		return fmt.Errorf("read owned workspaces: %w", err)
	}
	type owned struct {
		id      string
		members int
	}
	ws, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (owned, error) {
		var o owned
		return o, r.Scan(&o.id, &o.members)
	})
	if err != nil {
		return fmt.Errorf("read owned workspaces: %w", err)
	}
	for _, w := range ws {
		if w.id != userID {
			return fault.New(fault.Conflict, "transfer_first",
				"You own a workspace you were given. Transfer its ownership to another member in Team settings before deleting your account.")
		}
		if w.members == 0 {
			continue
		}
		if !deleteWorkspace {
			return fault.New(fault.Conflict, "workspace_has_members", fmt.Sprintf(
				"Your workspace has %d other %s. Transfer its ownership to one of them in Team settings to leave it with them, or confirm deleting the workspace with your account: its members lose access to everything in it.",
				w.members, plural(w.members, "member", "members")))
		}
		if err := s.dissolve(ctx, tx, w.id, userID, now); err != nil {
			return err
		}
	}
	rows, err = tx.Query(ctx, `SELECT workspace_id FROM workspace_members WHERE user_id = $1 AND role <> 'owner' ORDER BY workspace_id`, userID)
	if err != nil {
		return fmt.Errorf("read memberships: %w", err)
	}
	others, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("read memberships: %w", err)
	}
	for _, id := range others {
		if err := s.append(ctx, tx, workspaceStream(id), events.TeamMemberRemoved{WorkspaceID: id, UserID: userID,
			Reason: events.LeftAccountDeleted, At: now}); err != nil {
			return err
		}
	}
	return nil
}

// dissolve takes every other member out of a workspace deleted with its
// owner's account, and mails each of them why they lost access.
func (s *Service) dissolve(ctx context.Context, tx pgx.Tx, wsID, ownerID string, now time.Time) error {
	var wsName string
	if err := tx.QueryRow(ctx, `SELECT `+nameSQL+` FROM workspaces w
		LEFT JOIN branding b ON b.user_id = w.id LEFT JOIN user_pii p ON p.user_id = w.owner_id WHERE w.id = $1`, wsID).Scan(&wsName); err != nil {
		return fmt.Errorf("read workspace name: %w", err)
	}
	rows, err := tx.Query(ctx, `SELECT m.user_id, coalesce(p.email, '') FROM workspace_members m LEFT JOIN user_pii p ON p.user_id = m.user_id
		WHERE m.workspace_id = $1 AND m.user_id <> $2 ORDER BY m.user_id`, wsID, ownerID)
	if err != nil {
		return fmt.Errorf("read members: %w", err)
	}
	type member struct{ id, email string }
	ms, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (member, error) {
		var m member
		return m, r.Scan(&m.id, &m.email)
	})
	if err != nil {
		return fmt.Errorf("read members: %w", err)
	}
	for _, m := range ms {
		if err := s.append(ctx, tx, workspaceStream(wsID), events.TeamMemberRemoved{WorkspaceID: wsID, UserID: m.id,
			Reason: events.LeftWorkspaceDeleted, At: now}); err != nil {
			return err
		}
		if m.email == "" || s.mailer == nil {
			continue
		}
		if err := s.mailer.Enqueue(ctx, tx, mail.Mail{UserID: m.id, To: m.email, Kind: mail.KindText, Data: map[string]string{
			"subject": wsName + " was deleted",
			"body": "The owner of " + wsName + " deleted their Photo3D account and the workspace with it, so you no longer have access to it. " +
				"Your own account and your other workspaces are not affected.\n",
		}}); err != nil {
			return err
		}
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// SessionIn is account.Service.SessionValid and Resolve in one statement,
// for the request path: whether a token of userID minted at version with id
// tokenID may still be used, and what userID may do in wsID (member false:
// not a member; see Resolve).
func (s *Service) SessionIn(ctx context.Context, userID string, version int64, tokenID, wsID string) (valid bool, acc Access, member bool, err error) {
	var current int64
	var revoked, exists bool
	var role string
	err = s.db.QueryRow(ctx, `SELECT `+account.SessionColumns+`, w.id IS NOT NULL, coalesce(w.require_approval, false), coalesce(m.role, '')
		FROM users u
		LEFT JOIN workspaces w ON w.id = $3
		LEFT JOIN workspace_members m ON m.workspace_id = $3 AND m.user_id = u.id
		WHERE u.id = $1 AND u.erasure_requested_at IS NULL`, userID, tokenID, wsID).
		Scan(&current, &revoked, &exists, &acc.RequireApproval, &role)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, Access{}, false, nil
	}
	if err != nil {
		return false, Access{}, false, fmt.Errorf("check session: %w", err)
	}
	if role == "" && !exists && wsID == userID {
		role = string(Owner) // the account's own workspace before its row exists
	}
	acc.WorkspaceID, acc.Role = wsID, Role(role)
	return current == version && !revoked, acc, role != "", nil
}
