package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/analytics"
	"github.com/photo3d/photo3d/internal/apikey"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/job/jobtest"
	"github.com/photo3d/photo3d/internal/mail"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/privacy"
	"github.com/photo3d/photo3d/internal/team"
)

// teamStack is the product publishing stack with accounts and teams, wired
// as cmd/api wires them (one event store, team.Projection inline).
type teamStack struct {
	productPubStack
	accounts *account.Service
	teams    *team.Service
	outbox   *mail.Outbox
	eraser   *privacy.EraseWorker
}

func newTeamStack(t *testing.T) *teamStack {
	t.Helper()
	ts := &teamStack{outbox: mail.NewOutbox(100)}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	mailer := mail.Immediate{Sender: mail.Log{Logger: log, Outbox: ts.outbox}}
	ts.productPubStack = buildProductPubStackWith(t, func(d *Deps, store *eventstore.Store, env *jobtest.Env) {
		accounts, err := account.NewService(d.DB, store, d.Subscriptions, account.Options{PublicBaseURL: creationBase,
			Mailer: mailer, Logger: log, HashParams: account.HashParams{MemoryKiB: 1024, Time: 1, Threads: 1, KeyLen: 32, SaltLen: 16},
			Erasure: privacy.Scheduler(env.River), Bucket: env.Blobs.Bucket,
			BeforeErasure: func(ctx context.Context, tx pgx.Tx, userID string, deleteWorkspace bool) error {
				return ts.teams.PrepareErasure(ctx, tx, userID, deleteWorkspace)
			}})
		require.NoError(t, err)
		ts.accounts = accounts
		ts.teams = team.NewService(d.DB, store, team.Options{Accounts: accounts, Subscriptions: d.Subscriptions,
			Publications: d.Publications, Mailer: mailer, PublicBaseURL: creationBase})
		d.Accounts, d.Teams = accounts, ts.teams
		ts.eraser = &privacy.EraseWorker{DB: d.DB, Store: store, Bucket: env.Blobs.Bucket, Mailer: mail.Log{Logger: log, Outbox: ts.outbox},
			Logger: log, BaseURL: creationBase}
		d.Analytics = &analytics.Reader{DB: d.DB}
		d.APIKeys = apikey.NewService(d.DB, store)
	})
	return ts
}

// tokenIn is a session token of user acting in workspace ws.
func (s *teamStack) tokenIn(t *testing.T, user, ws string) string {
	t.Helper()
	u, err := s.accounts.Get(context.Background(), s.env.DB.Pool, user)
	require.NoError(t, err)
	tok, _, err := s.tokens.IssueSessionIn(user, u.SessionVersion, ws)
	require.NoError(t, err)
	return tok
}

// as sends a request with a bearer token and optional header pairs.
func (s *teamStack) as(t *testing.T, token, method, path string, body any, header ...string) (*httptest.ResponseRecorder, reply) {
	t.Helper()
	var b []byte
	if body != nil {
		var err error
		b, err = json.Marshal(body)
		require.NoError(t, err)
	}
	req := httptest.NewRequest(method, path, bytes.NewReader(b))
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	var r reply
	if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &r), rec.Body.String())
	}
	return rec, r
}

func (s *teamStack) must(t *testing.T, want int, token, method, path string, body any, header ...string) json.RawMessage {
	t.Helper()
	rec, r := s.as(t, token, method, path, body, header...)
	require.Equal(t, want, rec.Code, "%s %s: %s", method, path, rec.Body.String())
	return r.Data
}

func (s *teamStack) refused(t *testing.T, want int, code, token, method, path string, body any, header ...string) string {
	t.Helper()
	rec, r := s.as(t, token, method, path, body, header...)
	require.Equal(t, want, rec.Code, "%s %s: %s", method, path, rec.Body.String())
	require.NotNil(t, r.Error, rec.Body.String())
	require.Equal(t, code, r.Error.Code, rec.Body.String())
	return r.Error.Message
}

var inviteLink = regexp.MustCompile(`/accept-invite\?invite=([A-Za-z0-9]+)`)

// inviteToken is the token of the last invitation mailed to addr.
func (s *teamStack) inviteToken(t *testing.T, addr string) string {
	t.Helper()
	var token string
	for _, m := range s.outbox.List() {
		if strings.EqualFold(m.To, addr) {
			if g := inviteLink.FindStringSubmatch(m.Body); g != nil {
				token = g[1]
			}
		}
	}
	require.NotEmpty(t, token, "no invitation mailed to %s", addr)
	return token
}

func (s *teamStack) setName(t *testing.T, user, name string) {
	t.Helper()
	_, err := s.env.DB.Pool.Exec(context.Background(), `UPDATE user_pii SET name = $2 WHERE user_id = $1`, user, name)
	require.NoError(t, err)
}

func emailOf(user string) string { return strings.ToLower(user) + "@example.test" }

type approvalReply struct {
	ID             string `json:"id"`
	Status         string `json:"status"`
	WithdrawReason string `json:"withdrawReason"`
	PageVersion    int    `json:"pageVersion"`
	Comment        string `json:"comment"`
	RequestedBy    struct {
		Name string `json:"name"`
	} `json:"requestedBy"`
	DecidedBy *struct {
		Name string `json:"name"`
	} `json:"decidedBy"`
	Comparison *struct {
		Next struct {
			Version  int `json:"version"`
			Variants []struct {
				Name string `json:"name"`
			} `json:"variants"`
		} `json:"next"`
		Live *struct {
			Version int `json:"version"`
		} `json:"live"`
	} `json:"comparison"`
}

// The issue's story through the API: an owner invites an editor (new
// address) and a reviewer (existing account); approvals are required; the
// editor's Publish waits; a change withdraws the request; the reviewer
// approves the new one and exactly that version goes live and stays live
// through later edits; the activity says who did what; a removed editor's
// next request is refused.
func TestTeamInviteApprovePublishAndRemove(t *testing.T) {
	t.Parallel()
	s := newTeamStack(t)
	ctx := context.Background()
	owner, pid := s.readyProduct(t, "Oak chair")
	s.setName(t, owner, "Olga Owner")
	ownerTok := s.tokenIn(t, owner, "")

	// Free plan: one seat, used by the owner.
	msg := s.refused(t, 403, "upgrade_required", ownerTok, "POST", "/api/team/invites", map[string]any{"email": "ed@shop.test", "role": "editor"})
	require.Contains(t, msg, "Free plan has one seat")
	startTrialFor(t, s.creationStack, owner)

	s.refused(t, 400, "invalid_role", ownerTok, "POST", "/api/team/invites", map[string]any{"email": "ed@shop.test", "role": "owner"})
	s.refused(t, 400, "email_invalid", ownerTok, "POST", "/api/team/invites", map[string]any{"email": "not-an-address", "role": "editor"})
	s.refused(t, 409, "already_member", ownerTok, "POST", "/api/team/invites", map[string]any{"email": emailOf(owner), "role": "editor"})
	s.must(t, 201, ownerTok, "POST", "/api/team/invites", map[string]any{"email": "Ed@Shop.test", "role": "editor"})
	reviewer := s.env.User(t)
	s.setName(t, reviewer, "Rita Reviewer")
	s.must(t, 201, ownerTok, "POST", "/api/team/invites", map[string]any{"email": emailOf(reviewer), "role": "reviewer"})
	tm := decodeAs[team.Team](t, s.must(t, 200, ownerTok, "GET", "/api/team/members", nil))
	require.Len(t, tm.Members, 1)
	require.Len(t, tm.Invites, 2)
	require.Equal(t, "ed@shop.test", tm.Invites[0].Email)
	require.Equal(t, 5, tm.Seats)

	// The editor's address has no account: the link creates it.
	edToken := s.inviteToken(t, "ed@shop.test")
	peek := decodeAs[team.InviteInfo](t, s.must(t, 200, "", "POST", "/api/team/invites/peek", map[string]any{"token": edToken}))
	require.False(t, peek.HasAccount)
	require.Equal(t, team.Editor, peek.Role)
	require.Equal(t, "Olga Owner's workspace", peek.WorkspaceName)
	s.refused(t, 400, "fields_required", "", "POST", "/api/team/invites/accept", map[string]any{"token": edToken})
	s.refused(t, 404, "invite_invalid", "", "POST", "/api/team/invites/accept", map[string]any{"token": "nope", "name": "X", "password": "long enough"})
	var accepted struct {
		Token       string `json:"token"`
		WorkspaceID string `json:"workspaceId"`
		Created     bool   `json:"created"`
		User        struct {
			ID string `json:"id"`
		} `json:"user"`
	}
	accepted = decodeAs[struct {
		Token       string `json:"token"`
		WorkspaceID string `json:"workspaceId"`
		Created     bool   `json:"created"`
		User        struct {
			ID string `json:"id"`
		} `json:"user"`
	}](t, s.must(t, 200, "", "POST", "/api/team/invites/accept", map[string]any{"token": edToken, "name": "Ada Editor", "password": "correct horse"}))
	require.True(t, accepted.Created)
	require.Equal(t, owner, accepted.WorkspaceID)
	editor, edTok := accepted.User.ID, accepted.Token
	s.refused(t, 409, "invite_used", "", "POST", "/api/team/invites/accept", map[string]any{"token": edToken, "name": "Ada", "password": "correct horse"})
	// The new account signs in with its password: the link proved the address.
	rec, _ := s.as(t, "", "POST", "/api/auth/login", map[string]any{"email": "ed@shop.test", "password": "correct horse"})
	require.Equal(t, 200, rec.Code, rec.Body.String())

	// The reviewer already has an account: the token alone joins.
	rvTok := decodeAs[struct {
		Token string `json:"token"`
	}](t, s.must(t, 200, "", "POST", "/api/team/invites/accept", map[string]any{"token": s.inviteToken(t, emailOf(reviewer))})).Token

	var ws struct {
		Items []team.Workspace `json:"items"`
	}
	ws = decodeAs[struct {
		Items []team.Workspace `json:"items"`
	}](t, s.must(t, 200, edTok, "GET", "/api/workspaces", nil))
	require.Len(t, ws.Items, 2)
	require.Equal(t, editor, ws.Items[0].ID)
	require.True(t, ws.Items[0].Own)
	require.Equal(t, owner, ws.Items[1].ID)
	require.Equal(t, team.Editor, ws.Items[1].Role)

	// The workspace's data is seen in it, and only in it.
	s.must(t, 200, edTok, "GET", "/api/products/"+pid, nil)
	edOwnTok := s.tokenIn(t, editor, "")
	s.refused(t, 404, "not_found", edOwnTok, "GET", "/api/products/"+pid, nil)
	s.must(t, 200, edOwnTok, "GET", "/api/products/"+pid, nil, "X-Workspace", owner)
	s.refused(t, 404, "not_found", edOwnTok, "GET", "/api/products", nil, "X-Workspace", s.env.User(t))
	// Switching: a token whose current workspace is the owner's.
	sw := decodeAs[struct {
		Token string `json:"token"`
	}](t, s.must(t, 200, edOwnTok, "POST", "/api/workspaces/"+owner+"/switch", nil))
	s.must(t, 200, sw.Token, "GET", "/api/products/"+pid, nil)
	s.refused(t, 404, "not_found", edOwnTok, "POST", "/api/workspaces/"+s.env.User(t)+"/switch", nil)

	// A fresh token (sign out everywhere) keeps the device in its workspace.
	fresh := decodeAs[struct {
		Token string `json:"token"`
	}](t, s.must(t, 200, sw.Token, "POST", "/api/auth/logout-everywhere", nil)).Token
	s.refused(t, 401, "token_invalid", sw.Token, "GET", "/api/products/"+pid, nil)
	s.must(t, 200, fresh, "GET", "/api/products/"+pid, nil)
	edTok = s.tokenIn(t, editor, owner)
	edOwnTok = s.tokenIn(t, editor, "")

	// Idempotency keys belong to who sent them: the same key from two people
	// of one workspace makes two catalogs, and each person's retry replays
	// their own.
	cat1 := s.must(t, 201, ownerTok, "POST", "/api/catalogs", map[string]any{"name": "Spring"}, IdempotencyHeader, "new-catalog-1")
	rec, _ = s.as(t, edTok, "POST", "/api/catalogs", map[string]any{"name": "Spring"}, IdempotencyHeader, "new-catalog-1")
	require.Equal(t, 201, rec.Code, rec.Body.String())
	require.Empty(t, rec.Header().Get("Idempotent-Replayed"), "not the owner's answer")
	require.NotEqual(t, decodeAs[struct{ ID string }](t, cat1).ID, decodeAs[struct {
		Data struct{ ID string }
	}](t, rec.Body.Bytes()).Data.ID)
	rec, _ = s.as(t, edTok, "POST", "/api/catalogs", map[string]any{"name": "Spring"}, IdempotencyHeader, "new-catalog-1")
	require.Equal(t, "true", rec.Header().Get("Idempotent-Replayed"), "the editor's retry replays the editor's answer")

	// Roles: a reviewer changes nothing; an editor manages no members.
	s.refused(t, 403, "forbidden_role", rvTok, "PATCH", "/api/products/"+pid, map[string]any{"name": "x"})
	s.refused(t, 403, "forbidden_role", edTok, "POST", "/api/team/invites", map[string]any{"email": "z@shop.test", "role": "editor"})
	s.refused(t, 403, "forbidden_role", edTok, "PUT", "/api/team/settings", map[string]any{"requireApproval": false})

	// The reviewer opts in to approval mail; the editor does not.
	tm = decodeAs[team.Team](t, s.must(t, 200, rvTok, "PUT", "/api/team/me", map[string]any{"approvalMail": true}))
	for _, m := range tm.Members {
		require.Equal(t, m.UserID == reviewer, m.MailMe, m.Name)
	}
	mailsTo := func(addr, subject string) int {
		n := 0
		for _, m := range s.outbox.List() {
			if strings.EqualFold(m.To, addr) && strings.Contains(m.Subject, subject) {
				n++
			}
		}
		return n
	}

	// Approvals on.
	settings := decodeAs[struct {
		RequireApproval bool `json:"requireApproval"`
	}](t, s.must(t, 200, ownerTok, "PUT", "/api/team/settings", map[string]any{"requireApproval": true}))
	require.True(t, settings.RequireApproval)
	var first struct {
		Status     string `json:"status"`
		ApprovalID string `json:"approvalId"`
	}
	first = decodeAs[struct {
		Status     string `json:"status"`
		ApprovalID string `json:"approvalId"`
	}](t, s.must(t, 202, edTok, "POST", "/api/products/"+pid+"/publish", map[string]any{"requireEmail": false}))
	require.Equal(t, "awaiting_approval", first.Status)
	require.Equal(t, 0, s.eventCount(t, "publication.created.v1"), "nothing went live")
	msg = s.refused(t, 403, "approval_required", edTok, "POST", "/api/publications", map[string]any{"blueprintId": "x"})
	require.Contains(t, msg, "requires approval")
	require.Equal(t, 1, mailsTo(emailOf(reviewer), "is waiting for your approval"), "the reviewer opted in")
	require.Zero(t, mailsTo(emailOf(owner), "is waiting for your approval"), "the owner did not")
	a := decodeAs[approvalReply](t, s.must(t, 200, rvTok, "GET", "/api/approvals/"+first.ApprovalID, nil))
	require.Equal(t, "pending", a.Status)
	require.Equal(t, "Ada Editor", a.RequestedBy.Name)
	require.NotNil(t, a.Comparison)
	require.Equal(t, 1, a.Comparison.Next.Version)
	require.Nil(t, a.Comparison.Live, "nothing is live yet")
	pending := decodeAs[struct {
		Items []approvalReply `json:"items"`
	}](t, s.must(t, 200, rvTok, "GET", "/api/approvals?state=pending", nil)).Items
	require.Len(t, pending, 1)
	require.NotNil(t, pending[0].Comparison, "the list carries the comparison of a pending request")

	// A change after the request withdraws it.
	s.must(t, 200, edTok, "PATCH", "/api/products/"+pid, map[string]any{"name": "Oak chair, natural"})
	a = decodeAs[approvalReply](t, s.must(t, 200, rvTok, "GET", "/api/approvals/"+first.ApprovalID, nil))
	require.Equal(t, "withdrawn", a.Status)
	require.Equal(t, "changed", a.WithdrawReason)
	msg = s.refused(t, 409, "approval_withdrawn", rvTok, "POST", "/api/approvals/"+first.ApprovalID+"/approve", map[string]any{})
	require.Contains(t, msg, "changed after publishing was requested")

	s.must(t, 200, edTok, "PUT", "/api/team/me", map[string]any{"approvalMail": true})
	second := decodeAs[struct {
		ApprovalID string `json:"approvalId"`
	}](t, s.must(t, 202, edTok, "POST", "/api/products/"+pid+"/publish", map[string]any{"requireEmail": false})).ApprovalID
	s.refused(t, 403, "forbidden_role", edTok, "POST", "/api/approvals/"+second+"/approve", map[string]any{})
	a = decodeAs[approvalReply](t, s.must(t, 200, rvTok, "POST", "/api/approvals/"+second+"/approve", map[string]any{"comment": "Looks good"}))
	require.Equal(t, "approved", a.Status)
	require.Equal(t, "Rita Reviewer", a.DecidedBy.Name)
	require.Equal(t, 1, mailsTo("ed@shop.test", "was approved and is live"), "the editor opted in before asking again")
	s.refused(t, 409, "approval_decided", rvTok, "POST", "/api/approvals/"+second+"/reject", map[string]any{})

	// Live at the requested version, pinned: a later edit waits for approval.
	var slug string
	require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT slug FROM publications WHERE product_id = $1`, pid).Scan(&slug))
	page := s.shopper(t, "GET", "/v/"+slug, "")
	require.Equal(t, 200, page.Code)
	require.Contains(t, page.Body.String(), "Oak chair, natural")
	s.must(t, 200, edTok, "PATCH", "/api/products/"+pid, map[string]any{"name": "Oak chair, stained"})
	page = s.shopper(t, "GET", "/v/"+slug, "")
	require.Contains(t, page.Body.String(), "Oak chair, natural")
	require.NotContains(t, page.Body.String(), "stained", "an edit after approval is not live without a new approval")

	// A rejected request publishes nothing: the page stays at v1.
	third := decodeAs[struct {
		ApprovalID string `json:"approvalId"`
	}](t, s.must(t, 202, edTok, "POST", "/api/products/"+pid+"/publish", map[string]any{"requireEmail": false})).ApprovalID
	a = decodeAs[approvalReply](t, s.must(t, 200, rvTok, "GET", "/api/approvals/"+third, nil))
	require.Equal(t, 2, a.Comparison.Next.Version)
	require.Equal(t, 1, a.Comparison.Live.Version)
	a = decodeAs[approvalReply](t, s.must(t, 200, ownerTok, "POST", "/api/approvals/"+third+"/reject", map[string]any{"comment": "Not the stain"}))
	require.Equal(t, "rejected", a.Status)
	page = s.shopper(t, "GET", "/v/"+slug, "")
	require.NotContains(t, page.Body.String(), "stained", "a rejected request publishes nothing")
	var versions int
	require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT current_version FROM publications WHERE product_id = $1`, pid).Scan(&versions))
	require.Equal(t, 1, versions)

	// Who did what.
	var act struct {
		Items []team.ActivityEntry `json:"items"`
	}
	act = decodeAs[struct {
		Items []team.ActivityEntry `json:"items"`
	}](t, s.must(t, 200, rvTok, "GET", "/api/products/"+pid+"/activity", nil))
	lines := map[string]string{}
	for _, e := range act.Items {
		lines[e.Actor.Name+" "+e.Action] = e.Detail
	}
	require.Contains(t, lines, "Ada Editor requested approval for v1")
	require.Contains(t, lines, "Rita Reviewer approved v1")
	require.Equal(t, "Looks good", lines["Rita Reviewer approved v1"])
	require.Contains(t, lines, "Ada Editor renamed the product")
	require.Equal(t, "Not the stain", lines["Olga Owner rejected v2"])
	require.Contains(t, lines, "Photo3D withdrew the request for v1: the product changed after it")
	for _, e := range act.Items {
		require.NotContains(t, e.Actor.Name, "@", "never an address")
		require.False(t, e.Actor.Name == "Rita Reviewer" && strings.HasPrefix(e.Action, "published"),
			"the page events of an approval are told by the approval: %s", e.Action)
	}
	s.refused(t, 404, "not_found", edOwnTok, "GET", "/api/products/"+pid+"/activity", nil)

	// The owner removes the editor: their next request in the workspace is
	// refused, and the workspace's ids are not found from anywhere else.
	s.must(t, 200, ownerTok, "DELETE", "/api/team/members/"+editor, nil)
	s.refused(t, 403, "not_a_member", edTok, "GET", "/api/products/"+pid, nil)
	s.refused(t, 404, "not_found", edOwnTok, "GET", "/api/products/"+pid, nil, "X-Workspace", owner)
	s.refused(t, 404, "not_found", edOwnTok, "GET", "/api/products/"+pid, nil)
	s.must(t, 200, edTok, "GET", "/api/users/me", nil) // their own things stay theirs
	ws = decodeAs[struct {
		Items []team.Workspace `json:"items"`
	}](t, s.must(t, 200, edTok, "GET", "/api/workspaces", nil))
	require.Len(t, ws.Items, 1)

	// A replay of the log rebuilds the same team read models.
	before := teamTables(t, s)
	require.NoError(t, pgdb.WithTx(ctx, s.env.DB.Pool, func(tx pgx.Tx) error { return team.Rebuild(ctx, tx, s.store) }))
	require.Equal(t, before, teamTables(t, s))
}

// teamTables dumps the team read models, sorted, for comparisons.
func teamTables(t *testing.T, s *teamStack) []string {
	t.Helper()
	rows, err := s.env.DB.Pool.Query(context.Background(), `
		SELECT 'w ' || t::text FROM workspaces t
		UNION ALL SELECT 'm ' || (t.workspace_id, t.user_id, t.role, t.approval_mail)::text FROM workspace_members t
		UNION ALL SELECT 'a ' || t::text FROM approvals t
		ORDER BY 1`)
	require.NoError(t, err)
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.NotEmpty(t, out)
	return out
}

// Seats by plan, invitations that expire, are replaced or revoked, roles
// that change on the next request, ownership that moves, and an analyst who
// sees analytics only.
func TestTeamSeatsRolesAndOwnership(t *testing.T) {
	t.Parallel()
	s := newTeamStack(t)
	owner := s.env.User(t)
	startTrialFor(t, s.creationStack, owner)
	ownerTok := s.tokenIn(t, owner, "")
	join := func(role string) (string, string) {
		u := s.env.User(t)
		s.must(t, 201, ownerTok, "POST", "/api/team/invites", map[string]any{"email": emailOf(u), "role": role})
		tok := decodeAs[struct {
			Token string `json:"token"`
		}](t, s.must(t, 200, "", "POST", "/api/team/invites/accept", map[string]any{"token": s.inviteToken(t, emailOf(u))})).Token
		return u, tok
	}
	analyst, anTok := join("analyst")
	s.must(t, 200, anTok, "GET", "/api/analytics", nil)
	s.refused(t, 403, "forbidden_role", anTok, "GET", "/api/products", nil)

	// The owner makes the analyst a reviewer: the next request sees it.
	s.must(t, 200, ownerTok, "PATCH", "/api/team/members/"+analyst, map[string]any{"role": "reviewer"})
	s.must(t, 200, anTok, "GET", "/api/products", nil)
	s.refused(t, 409, "owner_role", ownerTok, "PATCH", "/api/team/members/"+owner, map[string]any{"role": "editor"})

	// A member's API key belongs to the workspace: it keeps working after the
	// member is removed, until the owner revokes it.
	ed2, ed2Tok := join("editor")
	key := decodeAs[apikey.Created](t, s.must(t, 201, ed2Tok, "POST", "/api/api-keys", map[string]any{"name": "script", "scopes": []string{"read"}}))
	s.must(t, 200, ownerTok, "DELETE", "/api/team/members/"+ed2, nil)
	s.must(t, 200, key.Secret, "GET", "/api/products", nil)
	s.must(t, 200, ownerTok, "DELETE", "/api/api-keys/"+key.ID, nil)
	s.refused(t, 401, "api_key_invalid", key.Secret, "GET", "/api/products", nil)

	// Pro: five seats, open invitations included.
	editor, edTok := join("editor")
	s.must(t, 201, ownerTok, "POST", "/api/team/invites", map[string]any{"email": "three@shop.test", "role": "editor"})
	// Inviting the same address again replaces the invitation: no seat used twice.
	s.must(t, 201, ownerTok, "POST", "/api/team/invites", map[string]any{"email": "three@shop.test", "role": "reviewer"})
	last := s.must(t, 201, ownerTok, "POST", "/api/team/invites", map[string]any{"email": "four@shop.test", "role": "analyst"})
	msg := s.refused(t, 403, "seats_exhausted", ownerTok, "POST", "/api/team/invites", map[string]any{"email": "five@shop.test", "role": "analyst"})
	require.Contains(t, msg, "All 5 seats")
	// Revoking frees the seat, and the link stops working.
	four := s.inviteToken(t, "four@shop.test")
	s.must(t, 200, ownerTok, "DELETE", "/api/team/invites/"+decodeAs[team.Invite](t, last).ID, nil)
	s.refused(t, 409, "invite_revoked", "", "POST", "/api/team/invites/accept", map[string]any{"token": four, "name": "Four", "password": "long enough"})
	s.must(t, 201, ownerTok, "POST", "/api/team/invites", map[string]any{"email": "five@shop.test", "role": "analyst"})
	// An invitation expires after 7 days.
	s.teams = s.teams.WithClock(func() time.Time { return time.Now().Add(team.InviteLifetime + time.Minute) })
	_, err := s.teams.PeekInvite(context.Background(), s.inviteToken(t, "five@shop.test"))
	require.ErrorContains(t, err, "This invitation expired on")

	// Ownership moves: the old owner stays as an editor; billing goes with it.
	s.refused(t, 403, "forbidden_role", edTok, "POST", "/api/team/transfer", map[string]any{"userId": editor})
	s.must(t, 200, ownerTok, "POST", "/api/team/transfer", map[string]any{"userId": editor})
	s.refused(t, 403, "forbidden_role", ownerTok, "POST", "/api/subscription/trial", map[string]any{})
	s.must(t, 200, edTok, "GET", "/api/team/members", nil)
	tm := decodeAs[team.Team](t, s.must(t, 200, edTok, "GET", "/api/team/members", nil))
	roles := map[string]team.Role{}
	for _, m := range tm.Members {
		roles[m.UserID] = m.Role
	}
	require.Equal(t, team.Owner, roles[editor])
	require.Equal(t, team.Editor, roles[owner])
	// A member leaves on their own.
	s.must(t, 200, anTok, "POST", "/api/team/leave", nil)
	s.refused(t, 409, "owner_cannot_leave", edTok, "POST", "/api/team/leave", nil)
	s.refused(t, 403, "not_a_member", anTok, "GET", "/api/products", nil)
}

// Credits belong to the workspace: N members building at once spend its one
// balance, never more than it holds (no double spend), and another
// workspace's balance is untouched.
func TestTeamCreditsMeteredPerWorkspace(t *testing.T) {
	t.Parallel()
	s := newTeamStack(t)
	ctx := context.Background()
	owner := s.env.User(t)
	startTrialFor(t, s.creationStack, owner)
	ownerTok := s.tokenIn(t, owner, "")
	toks := []string{ownerTok}
	for range 2 {
		u := s.env.User(t)
		s.must(t, 201, ownerTok, "POST", "/api/team/invites", map[string]any{"email": emailOf(u), "role": "editor"})
		toks = append(toks, decodeAs[struct {
			Token string `json:"token"`
		}](t, s.must(t, 200, "", "POST", "/api/team/invites/accept", map[string]any{"token": s.inviteToken(t, emailOf(u))})).Token)
	}
	// Three credits left in the workspace (and fewer builds than its waiting
	// limit, five); each member's own workspace has its own Free balance,
	// which this must not touch.
	_, err := s.env.DB.Pool.Exec(ctx, `UPDATE subscriptions SET ai_credits_used = 47 WHERE user_id = $1`, owner)
	require.NoError(t, err)
	const perMember = 2
	var images []string
	for range len(toks) * perMember {
		images = append(images, s.put(t, owner, jobtest.PNG(t, 64, 64)))
	}
	codes := make(chan int, len(images))
	var wg sync.WaitGroup
	for i, img := range images {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec, _ := s.as(t, toks[i%len(toks)], "POST", "/api/jobs", map[string]any{"imageURL": img})
			codes <- rec.Code
		}()
	}
	wg.Wait()
	close(codes)
	count := map[int]int{}
	for c := range codes {
		count[c]++
	}
	require.Equal(t, 3, count[201], "%v", count)
	require.Equal(t, len(images)-3, count[402], "%v", count)
	var used, reserved int64
	require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT ai_credits_used, ai_credits_reserved FROM subscriptions WHERE user_id = $1`, owner).
		Scan(&used, &reserved))
	require.Equal(t, int64(50), used+reserved, "the workspace spent exactly its balance")
	var others int64
	require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT coalesce(sum(ai_credits_used + ai_credits_reserved), 0) FROM subscriptions WHERE user_id <> $1`, owner).
		Scan(&others))
	require.Zero(t, others, "the members' own workspaces paid nothing")
}

// joinNew invites a new address into the workspace of ownerTok and accepts
// it with a password: the new account (which has its own workspace too),
// its session in the inviting workspace, and its password.
func (s *teamStack) joinNew(t *testing.T, ownerTok, addr, name, role string) (string, string, string) {
	t.Helper()
	s.must(t, 201, ownerTok, "POST", "/api/team/invites", map[string]any{"email": addr, "role": role})
	const password = "a long passphrase"
	a := decodeAs[struct {
		Token string `json:"token"`
		User  struct {
			ID string `json:"id"`
		} `json:"user"`
	}](t, s.must(t, 200, "", "POST", "/api/team/invites/accept", map[string]any{"token": s.inviteToken(t, addr), "name": name, "password": password}))
	return a.User.ID, a.Token, password
}

// Erasure and teams: an owner cannot take a workspace with members down
// unasked; confirming it takes the members out and tells them; a founder
// who transferred the workspace leaves it, its brand and its owner intact;
// a member's account deletion ends their memberships only.
func TestTeamErasureRules(t *testing.T) {
	t.Parallel()
	s := newTeamStack(t)
	ctx := context.Background()
	hub := s.env.User(t)
	startTrialFor(t, s.creationStack, hub)
	hubTok := s.tokenIn(t, hub, "")

	// Fern founds a workspace (their own) and brings Milo in.
	fern, _, fernPW := s.joinNew(t, hubTok, "fern@shop.test", "Fern Founder", "editor")
	startTrialFor(t, s.creationStack, fern)
	fernTok := s.tokenIn(t, fern, "")
	s.must(t, 200, fernTok, "PUT", "/api/branding", map[string]any{"brandName": "Fern & Co", "brandColor": "#225533"})
	milo, miloTok, _ := s.joinNew(t, fernTok, "milo@shop.test", "Milo Member", "editor")
	key := decodeAs[apikey.Created](t, s.must(t, 201, fernTok, "POST", "/api/api-keys", map[string]any{"name": "shop sync", "scopes": []string{"read"}}))

	msg := s.refused(t, 409, "workspace_has_members", fernTok, "DELETE", "/api/users/me", map[string]any{"password": fernPW})
	require.Contains(t, msg, "1 other member")
	s.must(t, 200, fernTok, "POST", "/api/team/transfer", map[string]any{"userId": milo})
	s.must(t, 202, fernTok, "DELETE", "/api/users/me", map[string]any{"password": fernPW})
	require.NoError(t, s.eraser.Erase(ctx, fern))

	var erased bool
	require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT erased_at IS NOT NULL FROM users WHERE id = $1`, fern).Scan(&erased))
	require.True(t, erased)
	brand := decodeAs[struct {
		BrandName string `json:"brandName"`
	}](t, s.must(t, 200, miloTok, "GET", "/api/branding", nil))
	require.Equal(t, "Fern & Co", brand.BrandName, "the workspace's data stayed with its new owner")
	s.must(t, 200, key.Secret, "GET", "/api/products", nil) // and so did its API keys
	tm := decodeAs[team.Team](t, s.must(t, 200, miloTok, "GET", "/api/team/members", nil))
	require.Len(t, tm.Members, 1)
	require.Equal(t, milo, tm.Members[0].UserID)
	require.Equal(t, team.Owner, tm.Members[0].Role)
	var inHub bool
	require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM workspace_members WHERE workspace_id = $1 AND user_id = $2)`,
		hub, fern).Scan(&inHub))
	require.False(t, inHub, "an erased account leaves the workspaces it was in")

	// Quinn deletes their account with their workspace: Nora is told.
	quinn, _, quinnPW := s.joinNew(t, hubTok, "quinn@shop.test", "Quinn Quits", "reviewer")
	startTrialFor(t, s.creationStack, quinn)
	quinnTok := s.tokenIn(t, quinn, "")
	_, noraTok, _ := s.joinNew(t, quinnTok, "nora@shop.test", "Nora Newby", "analyst")
	s.must(t, 202, quinnTok, "DELETE", "/api/users/me", map[string]any{"password": quinnPW, "deleteWorkspace": true})
	s.refused(t, 403, "not_a_member", noraTok, "GET", "/api/analytics", nil)
	told := false
	for _, m := range s.outbox.List() {
		if m.To == "nora@shop.test" && strings.Contains(m.Subject, "was deleted") {
			told = true
		}
	}
	require.True(t, told, "the members of a deleted workspace are told")
}

// A member of two workspaces, acting in one, reaches nothing of the other:
// every signed-in route that names a resource answers the other workspace's
// ids (its product, variant, hotspot, link, catalog, gallery, publication,
// build, upload, experiment, approval, invitation, member…) exactly as ids
// that exist nowhere: 404, or for a few routes the same refusal of the
// request body that any id gets. So does someone who was never a member.
func TestTeamCrossWorkspaceProbesAnswer404(t *testing.T) {
	t.Parallel()
	s := newTeamStack(t)
	ctx := context.Background()
	owner, pid := s.readyProduct(t, "Walnut desk")
	startTrialFor(t, s.creationStack, owner)
	ownerTok := s.tokenIn(t, owner, "")
	s.must(t, 201, ownerTok, "POST", "/api/products/"+pid+"/variants", map[string]any{"name": "Black", "material": "matte-black"})
	s.must(t, 201, ownerTok, "POST", "/api/products/"+pid+"/hotspots", map[string]any{"position": []float64{0, 0, 0}, "normal": []float64{0, 0, 1}, "title": "Top"})
	s.must(t, 201, ownerTok, "POST", "/api/products/"+pid+"/links", map[string]any{"url": "https://shop.example/desk"})
	s.must(t, 201, ownerTok, "POST", "/api/products/"+pid+"/publish", map[string]any{"requireEmail": true})
	cat := decodeAs[struct{ ID string }](t, s.must(t, 201, ownerTok, "POST", "/api/catalogs", map[string]any{"name": "Desks"})).ID
	gal := decodeAs[struct{ ID string }](t, s.must(t, 201, ownerTok, "POST", "/api/galleries", map[string]any{"name": "Office"})).ID
	exp := decodeAs[struct{ ID string }](t, s.must(t, 201, ownerTok, "POST", "/api/products/"+pid+"/experiments",
		map[string]any{"goal": "clicks", "arms": []map[string]any{{"name": "Control"}, {"name": "Dark", "preset": map[string]any{"lighting": "Dramatic"}}}})).ID
	hook := decodeAs[struct{ ID string }](t, s.must(t, 201, ownerTok, "POST", "/api/webhooks", map[string]any{"url": "https://shop.example/hook", "events": []string{"lead.captured"}})).ID
	inv := decodeAs[team.Invite](t, s.must(t, 201, ownerTok, "POST", "/api/team/invites", map[string]any{"email": "later@shop.test", "role": "analyst"})).ID
	img := s.put(t, owner, jobtest.PNG(t, 64, 64))
	upload, err := s.env.Uploads.ParseImageURL(img)
	require.NoError(t, err)
	job := decodeAs[struct{ ID string }](t, s.must(t, 201, ownerTok, "POST", "/api/jobs", map[string]any{"imageURL": img})).ID
	var pubID, hotspot, link, bp string
	require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT id FROM publications WHERE product_id = $1`, pid).Scan(&pubID))
	require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT config->'hotspots'->0->>'id', config->'links'->0->>'id', coalesce(job_id, '')
		FROM products WHERE id = $1`, pid).Scan(&hotspot, &link, &bp))
	// An approval request of the owner's workspace (an editor's Publish).
	s.must(t, 200, ownerTok, "PUT", "/api/team/settings", map[string]any{"requireApproval": true})
	dual, dualTok, _ := s.joinNew(t, ownerTok, "dual@shop.test", "Dana Dual", "editor")
	s.must(t, 200, dualTok, "PATCH", "/api/products/"+pid, map[string]any{"name": "Walnut desk II"})
	approval := decodeAs[struct {
		ApprovalID string `json:"approvalId"`
	}](t, s.must(t, 202, dualTok, "POST", "/api/products/"+pid+"/publish", map[string]any{"requireEmail": true})).ApprovalID

	ids := map[string]string{"variantId": "v2", "hotspotId": hotspot, "linkId": link, "leadId": "0196a3f0-0000-7000-8000-0000000000ff",
		"submissionId": "0196a3f0-0000-7000-8000-0000000000fe", "userId": owner}
	idFor := func(route string) string {
		switch {
		case strings.HasPrefix(route, "/api/products/"):
			return pid
		case strings.HasPrefix(route, "/api/catalogs/"):
			return cat
		case strings.HasPrefix(route, "/api/galleries/"):
			return gal
		case strings.HasPrefix(route, "/api/publications/"):
			return pubID
		case strings.HasPrefix(route, "/api/experiments/"):
			return exp
		case strings.HasPrefix(route, "/api/webhooks/"):
			return hook
		case strings.HasPrefix(route, "/api/team/invites/"):
			return inv
		case strings.HasPrefix(route, "/api/approvals/"):
			return approval
		case strings.HasPrefix(route, "/api/uploads/"):
			return upload
		case strings.HasPrefix(route, "/api/jobs/"), strings.HasPrefix(route, "/api/assets/"):
			return job
		case strings.HasPrefix(route, "/api/blueprints/"):
			return cmpOr(bp, job)
		}
		return ""
	}
	// Dana acts in her own workspace; Otto was never a member of the owner's.
	otto := s.env.User(t)
	probers := map[string]string{"member acting in another workspace": s.tokenIn(t, dual, dual), "never a member": s.tokenIn(t, otto, "")}
	routed := routedAPI(t, s.h)
	probed, notFound := 0, 0
	for route := range routeAccess {
		method, path, _ := strings.Cut(route, " ")
		if !routed[route] || !strings.Contains(path, "{") || routeAccess[route] == accessPerson || strings.HasPrefix(path, "/api/jobs/debug/") {
			continue
		}
		id := idFor(path)
		if id == "" { // a route whose only parameter is not a resource of the workspace
			continue
		}
		concrete := routeParam.ReplaceAllStringFunc(path, func(p string) string {
			if p == "{id}" {
				return id
			}
			return ids[strings.Trim(p, "{}")]
		})
		// The same route with ids that exist nowhere: a foreign id must be
		// answered exactly as a missing one (never a success, never a
		// different refusal that would tell the two apart).
		missing := routeParam.ReplaceAllString(path, "0196a3f0-0000-7000-8000-00000000dead")
		for who, tok := range probers {
			rec, r := s.as(t, tok, method, concrete, map[string]any{})
			base, rb := s.as(t, tok, method, missing, map[string]any{})
			require.GreaterOrEqual(t, rec.Code, 400, "%s %s (%s): %s", method, concrete, who, rec.Body.String())
			require.Equal(t, base.Code, rec.Code, "%s %s (%s): %s", method, concrete, who, rec.Body.String())
			require.Equal(t, rb.Error.Code, r.Error.Code, "%s %s (%s)", method, concrete, who)
			require.NotContains(t, r.Error.Message, "No API route", "%s is served", route)
			if rec.Code == 404 {
				notFound++
			} else {
				t.Logf("%s (%s): %d %s, as for a missing id", route, who, rec.Code, r.Error.Code)
			}
		}
		probed++
	}
	require.GreaterOrEqual(t, probed, 50, "routes probed")
	require.GreaterOrEqual(t, notFound, 2*probed*8/10, "most probes are plain 404s; the rest refuse the body first, for any id")
	// And nothing changed: the owner's product is as the owner left it.
	detail := decodeAs[productReply](t, s.must(t, 200, ownerTok, "GET", "/api/products/"+pid, nil))
	require.Equal(t, "Walnut desk II", detail.Name)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
