package httpapi

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/photo3d/photo3d/internal/auth"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/publish"
	"github.com/photo3d/photo3d/internal/team"
)

// Teams (issue 51): workspaces, members, invitations, the approval rule and
// publish requests. Who may call each route is decided in access.go.

func mountTeamPublic(api chi.Router, teams *team.Service, tokens *auth.Tokens, limits AuthRateLimit) {
	if teams == nil {
		return
	}
	api.With(authIPLimit(limits)).Method("POST", "/team/invites/peek", peekInvite(teams))
	api.With(authIPLimit(limits)).Method("POST", "/team/invites/accept", acceptInvite(teams, tokens))
}

func mountTeam(priv chi.Router, teams *team.Service, tokens *auth.Tokens) {
	if teams == nil {
		return
	}
	priv.Method("GET", "/workspaces", listWorkspaces(teams))
	priv.Method("POST", "/workspaces/{id}/switch", switchWorkspace(teams, tokens))
	priv.Method("GET", "/team/members", teamMembers(teams))
	priv.Method("POST", "/team/invites", inviteMember(teams))
	priv.Method("DELETE", "/team/invites/{id}", revokeInvite(teams))
	priv.Method("PATCH", "/team/members/{userId}", changeRole(teams))
	priv.Method("DELETE", "/team/members/{userId}", removeMember(teams))
	priv.Method("POST", "/team/leave", leaveWorkspace(teams))
	priv.Method("POST", "/team/transfer", transferOwnership(teams))
	priv.Method("PUT", "/team/settings", teamSettings(teams))
	priv.Method("PUT", "/team/me", teamMe(teams))
	priv.Method("GET", "/approvals", listApprovals(teams))
	priv.Method("GET", "/approvals/{id}", getApproval(teams))
	priv.Method("POST", "/approvals/{id}/approve", decideApproval(teams, true))
	priv.Method("POST", "/approvals/{id}/reject", decideApproval(teams, false))
	priv.Method("POST", "/approvals/{id}/withdraw", withdrawApproval(teams))
	priv.Method("GET", "/products/{id}/activity", productActivity(teams))
}

// listWorkspaces serves GET /api/workspaces → {items:[…], current}.
func listWorkspaces(teams *team.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		items, err := teams.Workspaces(r.Context(), currentPerson(r))
		if err != nil {
			return err
		}
		current := ""
		if ws, ok := auth.WorkspaceFrom(r.Context()); ok {
			current = ws.ID
		}
		WriteJSON(w, http.StatusOK, map[string]any{"items": items, "current": current})
		return nil
	}
}

// switchWorkspace serves POST /api/workspaces/{id}/switch: a new session
// token whose current workspace is id (the person must be a member; 404
// otherwise).
func switchWorkspace(teams *team.Service, tokens *auth.Tokens) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		id := chi.URLParam(r, "id")
		acc, err := teams.Resolve(r.Context(), currentPerson(r), id)
		if err != nil {
			return err
		}
		sess, _ := auth.SessionFrom(r.Context())
		u, err := teams.Account(r.Context(), currentPerson(r))
		if err != nil {
			return err
		}
		token, exp, err := tokens.IssueSessionIn(u.ID, sess.Version, acc.WorkspaceID)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, map[string]any{"token": token, "expiresAt": exp.UnixMilli(), "user": u,
			"workspace": map[string]any{"id": acc.WorkspaceID, "role": acc.Role, "requireApproval": acc.RequireApproval}})
		return nil
	}
}

func teamMembers(teams *team.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, err := teams.Members(r.Context(), currentWorkspace(r))
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, t)
		return nil
	}
}

func inviteMember(teams *team.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Email string `json:"email"`
			Role  string `json:"role"`
		}
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		inv, err := teams.Invite(r.Context(), currentWorkspace(r), currentPerson(r), body.Email, team.Role(strings.ToLower(strings.TrimSpace(body.Role))))
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusCreated, inv.Invite)
		return nil
	}
}

func revokeInvite(teams *team.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := teams.RevokeInvite(r.Context(), currentWorkspace(r), chi.URLParam(r, "id")); err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, map[string]any{"id": chi.URLParam(r, "id"), "revoked": true})
		return nil
	}
}

// peekInvite serves POST /api/team/invites/peek {token}: what the link
// offers (workspace, role, address, whether it has an account), without
// using it. The token travels in a body, never in a logged URL.
func peekInvite(teams *team.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Token string `json:"token"`
		}
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		info, err := teams.PeekInvite(r.Context(), body.Token)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, info)
		return nil
	}
}

// acceptInvite serves POST /api/team/invites/accept {token, name, password}:
// 200 with a session in the invitation's workspace. name and password are
// needed only when the address has no account yet; the link proves the
// address.
func acceptInvite(teams *team.Service, tokens *auth.Tokens) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Token    string `json:"token"`
			Name     string `json:"name"`
			Password string `json:"password"`
		}
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		a, err := teams.Accept(r.Context(), body.Token, body.Name, body.Password)
		if err != nil {
			return err
		}
		u, err := teams.Account(r.Context(), a.UserID)
		if err != nil {
			return err
		}
		token, exp, err := tokens.IssueSessionIn(u.ID, u.SessionVersion, a.WorkspaceID)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, map[string]any{"token": token, "user": u, "expiresAt": exp.UnixMilli(),
			"workspaceId": a.WorkspaceID, "created": a.Created})
		return nil
	}
}

func changeRole(teams *team.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Role string `json:"role"`
		}
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		if err := teams.ChangeRole(r.Context(), currentWorkspace(r), chi.URLParam(r, "userId"), team.Role(strings.ToLower(strings.TrimSpace(body.Role)))); err != nil {
			return err
		}
		return writeTeam(w, r, teams)
	}
}

// removeMember serves DELETE /api/team/members/{userId}: the owner takes a
// member out; their next request in the workspace is refused.
func removeMember(teams *team.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := teams.RemoveMember(r.Context(), currentWorkspace(r), chi.URLParam(r, "userId")); err != nil {
			return err
		}
		return writeTeam(w, r, teams)
	}
}

// leaveWorkspace serves POST /api/team/leave: a member (not the owner)
// leaves the current workspace → {left: true}.
func leaveWorkspace(teams *team.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := teams.RemoveMember(r.Context(), currentWorkspace(r), currentPerson(r)); err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, map[string]any{"left": true})
		return nil
	}
}

func transferOwnership(teams *team.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			UserID string `json:"userId"`
		}
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		if err := teams.TransferOwnership(r.Context(), currentWorkspace(r), currentPerson(r), body.UserID); err != nil {
			return err
		}
		return writeTeam(w, r, teams)
	}
}

// teamSettings serves PUT /api/team/settings {requireApproval}. Turning
// approvals on pins every live product page (lockedPages says how many).
func teamSettings(teams *team.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			RequireApproval *bool `json:"requireApproval"`
		}
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		if body.RequireApproval == nil {
			return fault.Invalidf("fields_required", "Say whether publishing requires approval (requireApproval: true or false).")
		}
		n, err := teams.SetRequireApproval(r.Context(), currentWorkspace(r), *body.RequireApproval)
		if err != nil {
			return err
		}
		t, err := teams.Members(r.Context(), currentWorkspace(r))
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, map[string]any{"requireApproval": t.RequireApproval, "lockedPages": n})
		return nil
	}
}

// teamMe serves PUT /api/team/me {approvalMail}: the member's own choice of
// mail about approvals.
func teamMe(teams *team.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			ApprovalMail bool `json:"approvalMail"`
		}
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		if err := teams.SetApprovalMail(r.Context(), currentWorkspace(r), currentPerson(r), body.ApprovalMail); err != nil {
			return err
		}
		return writeTeam(w, r, teams)
	}
}

func writeTeam(w http.ResponseWriter, r *http.Request, teams *team.Service) error {
	t, err := teams.Members(r.Context(), currentWorkspace(r))
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, t)
	return nil
}

// listApprovals serves GET /api/approvals?state=&productId=.
func listApprovals(teams *team.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		q := r.URL.Query()
		state := q.Get("state")
		switch state {
		case "", team.StatePending, team.StateApproved, team.StateRejected, team.StateWithdrawn:
		default:
			return fault.Invalidf("invalid_state", "state must be pending, approved, rejected or withdrawn.")
		}
		items, err := teams.Approvals(r.Context(), currentWorkspace(r), q.Get("productId"), state)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, map[string]any{"items": items})
		return nil
	}
}

func getApproval(teams *team.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		a, err := teams.Approval(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"))
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, a)
		return nil
	}
}

// decideApproval serves POST /api/approvals/{id}/approve|reject {comment}.
func decideApproval(teams *team.Service, approve bool) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Comment string `json:"comment"`
		}
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		a, err := teams.Decide(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"), approve, body.Comment)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, a)
		return nil
	}
}

// withdrawApproval serves POST /api/approvals/{id}/withdraw: the requester
// (or the owner) takes a pending request back.
func withdrawApproval(teams *team.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		id := chi.URLParam(r, "id")
		if workspaceRole(r) != team.Owner {
			a, err := teams.Approval(r.Context(), currentWorkspace(r), id)
			if err != nil {
				return err
			}
			if a.RequestedBy.ID != actorOfRequest(r) {
				return fault.New(fault.Forbidden, "forbidden_role", "Only who asked, or the owner, can withdraw a request.")
			}
		}
		a, err := teams.Withdraw(r.Context(), currentWorkspace(r), id)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, a)
		return nil
	}
}

// productActivity serves GET /api/products/{id}/activity → {items:[…]}:
// who did what to the product, newest first.
func productActivity(teams *team.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		items, err := teams.Activity(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"), 200)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, map[string]any{"items": items})
		return nil
	}
}

// requestApproval answers an editor's Publish in a workspace that requires
// approval: 202 {status: "awaiting_approval", approvalId, approval}.
func requestApproval(teams *team.Service, w http.ResponseWriter, r *http.Request, productID string, set publish.ProductSettings) error {
	if teams == nil {
		return errApprovalRequired
	}
	a, err := teams.RequestPublish(r.Context(), currentWorkspace(r), productID, set)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusAccepted, map[string]any{"status": "awaiting_approval", "approvalId": a.ID, "approval": a})
	return nil
}

// actorOfRequest is the request's actor as events record it.
func actorOfRequest(r *http.Request) string { return eventstore.MetadataFrom(r.Context()).Actor }
