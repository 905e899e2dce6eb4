package httpapi

import (
	"net/http"
	"strings"

	"github.com/photo3d/photo3d/internal/auth"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/team"
)

// Who may call which route (issue 51): every signed-in route has exactly
// one access class here, decided from its method and chi pattern (never
// from anything the client says), the way sessionOnlyRoutes decides API
// keys. A route missing from routeAccess is refused for everyone (fail
// closed), and TestRouteAccessCoversEveryRoute keeps the table equal to the
// router; TestRouteRoleTable calls every route as every role.
type access int

const (
	// accessPerson: the signed-in person's own things (profile, password,
	// sessions, their list of workspaces). Allowed whatever their role, and
	// even when their current workspace is gone.
	accessPerson access = iota + 1
	// accessMember: every role (notifications, the plan and its usage, the team list).
	accessMember
	// accessInsights: analytics and its exports, for analysts too.
	accessInsights
	// accessRead: seeing the catalogue and everything else (owner, editor, reviewer).
	accessRead
	// accessEdit: changing the catalogue (owner, editor).
	accessEdit
	// accessPublish: what shoppers see (owner, editor); under approvals an
	// editor's product Publish becomes a request and gatedRoutes refuse
	// editors outright.
	accessPublish
	// accessDecide: approving or rejecting publish requests (owner, reviewer).
	accessDecide
	// accessOwner: billing, the workspace's brand and settings, its members.
	accessOwner
)

var classRoles = map[access][]team.Role{
	accessMember:   {team.Owner, team.Editor, team.Reviewer, team.Analyst},
	accessInsights: {team.Owner, team.Editor, team.Reviewer, team.Analyst},
	accessRead:     {team.Owner, team.Editor, team.Reviewer},
	accessEdit:     {team.Owner, team.Editor},
	accessPublish:  {team.Owner, team.Editor},
	accessDecide:   {team.Owner, team.Reviewer},
	accessOwner:    {team.Owner},
}

// routeAccess is the one table of route rules.
var routeAccess = map[string]access{
	// The person.
	"GET /api/users/me":                     accessPerson,
	"PATCH /api/users/me":                   accessPerson,
	"DELETE /api/users/me":                  accessPerson,
	"POST /api/users/me/avatar":             accessPerson,
	"DELETE /api/users/me/avatar":           accessPerson,
	"POST /api/users/me/email":              accessPerson,
	"POST /api/users/me/password":           accessPerson,
	"POST /api/users/me/verify-email":       accessPerson,
	"POST /api/auth/logout":                 accessPerson,
	"POST /api/auth/logout-everywhere":      accessPerson,
	"GET /api/dev/outbox":                   accessPerson,
	"GET /api/workspaces":                   accessPerson,
	"POST /api/workspaces/{id}/switch":      accessPerson,
	"GET /api/notifications":                accessMember,
	"POST /api/notifications/read-all":      accessMember,
	"POST /api/notifications/{id}/read":     accessMember,
	"GET /api/subscription":                 accessMember,
	"GET /api/team/members":                 accessMember,
	"PUT /api/team/me":                      accessMember,
	"POST /api/team/leave":                  accessMember, // any member but the owner leaves
	"DELETE /api/team/members/{userId}":     accessOwner,
	"GET /api/branding":                     accessMember,
	"GET /api/settings/store":               accessMember,
	"GET /api/analytics":                    accessInsights,
	"GET /api/analytics/breakdowns":         accessInsights,
	"GET /api/analytics/export.csv":         accessInsights,
	"GET /api/products/{id}/analytics":      accessInsights,
	"GET /api/dashboard":                    accessInsights,
	"GET /api/users/me/export":              accessOwner,
	"POST /api/users/me/export":             accessOwner,
	"PUT /api/branding":                     accessOwner,
	"POST /api/branding/logo":               accessOwner,
	"DELETE /api/branding/logo":             accessOwner,
	"PUT /api/settings/store":               accessOwner,
	"POST /api/subscription/trial":          accessOwner,
	"POST /api/subscription/addons":         accessOwner,
	"POST /api/subscription/plan":           accessOwner,
	"POST /api/billing/checkout":            accessOwner,
	"POST /api/billing/portal":              accessOwner,
	"PUT /api/channels/shopify":             accessOwner,
	"DELETE /api/channels/shopify":          accessOwner,
	"POST /api/channels/google-feed/rotate": accessOwner,
	"POST /api/team/invites":                accessOwner,
	"DELETE /api/team/invites/{id}":         accessOwner,
	"PATCH /api/team/members/{userId}":      accessOwner,
	"POST /api/team/transfer":               accessOwner,
	"PUT /api/team/settings":                accessOwner,

	// Seeing.
	"GET /api/search":                             accessRead,
	"GET /api/jobs/typical-duration":              accessRead,
	"GET /api/jobs/{id}":                          accessRead,
	"GET /api/jobs/{id}/thumbnail":                accessRead,
	"GET /api/assets/{id}":                        accessRead,
	"GET /api/assets/{id}/file":                   accessRead,
	"GET /api/blueprints":                         accessRead,
	"GET /api/blueprints/{id}":                    accessRead,
	"GET /api/uploads/{id}/image":                 accessRead,
	"GET /api/uploads/{id}/cutout":                accessRead,
	"GET /api/catalogs":                           accessRead,
	"GET /api/catalogs/{id}":                      accessRead,
	"GET /api/catalogs/{id}/products":             accessRead,
	"GET /api/products":                           accessRead,
	"GET /api/products/{id}":                      accessRead,
	"GET /api/products/{id}/model/{submissionId}": accessRead,
	"GET /api/products/{id}/checks":               accessRead,
	"GET /api/products/{id}/channels":             accessRead,
	"GET /api/products/{id}/leads":                accessRead,
	"GET /api/products/{id}/leads.csv":            accessRead,
	"GET /api/products/{id}/experiments":          accessRead,
	"GET /api/products/{id}/activity":             accessRead,
	"GET /api/experiments/{id}":                   accessRead,
	"GET /api/galleries":                          accessRead,
	"GET /api/galleries/{id}":                     accessRead,
	"GET /api/link-platform":                      accessRead,
	"GET /api/publications":                       accessRead,
	"GET /api/publications/{id}":                  accessRead,
	"GET /api/publications/{id}/qr.png":           accessRead,
	"GET /api/webhooks":                           accessRead,
	"GET /api/webhooks/{id}/deliveries":           accessRead,
	"GET /api/channels/google-feed":               accessRead,
	"GET /api/channels/shopify":                   accessRead,
	"GET /api/approvals":                          accessRead,
	"GET /api/approvals/{id}":                     accessRead,

	// Changing the catalogue.
	"GET /api/jobs/debug/test":                       accessEdit,
	"GET /api/jobs/debug/inference/{id}":             accessEdit,
	"GET /api/api-keys":                              accessEdit,
	"POST /api/api-keys":                             accessEdit,
	"DELETE /api/api-keys/{id}":                      accessEdit,
	"GET /api/channels/shopify/products":             accessEdit,
	"POST /api/uploads":                              accessEdit,
	"POST /api/uploads/content":                      accessEdit,
	"POST /api/uploads/{id}/cutout":                  accessEdit,
	"POST /api/jobs":                                 accessEdit,
	"POST /api/jobs/{id}/retry":                      accessEdit,
	"PATCH /api/blueprints/{id}":                     accessEdit,
	"DELETE /api/blueprints/{id}":                    accessEdit,
	"POST /api/catalogs":                             accessEdit,
	"PATCH /api/catalogs/{id}":                       accessEdit,
	"DELETE /api/catalogs/{id}":                      accessEdit,
	"POST /api/catalogs/{id}/products":               accessEdit,
	"POST /api/products":                             accessEdit,
	"PATCH /api/products/{id}":                       accessEdit,
	"DELETE /api/products/{id}":                      accessEdit,
	"POST /api/products/{id}/rebuild":                accessEdit,
	"POST /api/products/{id}/describe":               accessEdit,
	"POST /api/products/{id}/photo":                  accessEdit,
	"POST /api/products/{id}/model":                  accessEdit,
	"POST /api/products/{id}/variants":               accessEdit,
	"PATCH /api/products/{id}/variants/{variantId}":  accessEdit,
	"DELETE /api/products/{id}/variants/{variantId}": accessEdit,
	"POST /api/products/{id}/hotspots":               accessEdit,
	"PATCH /api/products/{id}/hotspots/{hotspotId}":  accessEdit,
	"DELETE /api/products/{id}/hotspots/{hotspotId}": accessEdit,
	"POST /api/products/{id}/links":                  accessEdit,
	"DELETE /api/products/{id}/links/{linkId}":       accessEdit,
	"PUT /api/products/{id}/presets":                 accessEdit,
	"DELETE /api/products/{id}/leads/{leadId}":       accessEdit,
	"POST /api/products/{id}/channels/shopify":       accessEdit,
	"POST /api/galleries":                            accessEdit,
	"PATCH /api/galleries/{id}":                      accessEdit,
	"DELETE /api/galleries/{id}":                     accessEdit,
	"PUT /api/galleries/{id}/products":               accessEdit,
	"POST /api/webhooks":                             accessEdit,
	"DELETE /api/webhooks/{id}":                      accessEdit,
	"POST /api/webhooks/{id}/test":                   accessEdit,

	// What shoppers see.
	"POST /api/products/{id}/publish":          accessPublish,
	"POST /api/publications":                   accessPublish,
	"DELETE /api/publications/{id}":            accessPublish,
	"POST /api/publications/{id}/versions":     accessPublish,
	"POST /api/publications/{id}/lock":         accessPublish,
	"PUT /api/publications/{id}/embed-origins": accessPublish,
	"POST /api/galleries/{id}/publish":         accessPublish,
	"POST /api/products/{id}/experiments":      accessPublish,
	"POST /api/experiments/{id}/pause":         accessPublish,
	"POST /api/experiments/{id}/resume":        accessPublish,
	"POST /api/experiments/{id}/stop":          accessPublish,
	"POST /api/experiments/{id}/apply":         accessPublish,
	"POST /api/approvals/{id}/withdraw":        accessPublish,

	// Deciding.
	"POST /api/approvals/{id}/approve": accessDecide,
	"POST /api/approvals/{id}/reject":  accessDecide,
}

// gatedRoutes put something new in front of shoppers, or let later edits
// reach them (unlocking, a new version, resuming an experiment). In a
// workspace that requires approval an editor (or an API key) is refused
// them: the product's Publish is the way, and it asks for approval. Taking a
// page down, pausing or stopping an experiment and narrowing the embed
// sites stay open: they show shoppers less, never something unapproved. So
// does an experiment's "make this the default": it changes the product's
// presets, and a page under approvals is pinned, so the change reaches
// shoppers only through an approved Publish.
var gatedRoutes = map[string]bool{
	"POST /api/publications":               true,
	"POST /api/publications/{id}/versions": true,
	"POST /api/publications/{id}/lock":     true,
	"POST /api/galleries/{id}/publish":     true,
	"POST /api/products/{id}/experiments":  true,
	"POST /api/experiments/{id}/resume":    true,
}

var (
	errNoAccessRule     = fault.New(fault.Forbidden, "forbidden_role", "This route is not open to any role.")
	errApprovalRequired = fault.New(fault.Forbidden, "approval_required",
		"This workspace requires approval before anything goes live. Use Publish on the product page to request it.")
)

// roleNames are the roles as people read them.
var roleNames = map[team.Role]string{team.Owner: "Owner", team.Editor: "Editor", team.Reviewer: "Reviewer", team.Analyst: "Analyst"}

func errRoleRefused(r team.Role) error {
	return fault.New(fault.Forbidden, "forbidden_role",
		"Your role in this workspace ("+roleNames[r]+") does not allow this. Ask the workspace owner.")
}

// allows says whether role may use a route of class c.
func allows(c access, role team.Role) bool {
	if c == accessPerson {
		return true
	}
	for _, r := range classRoles[c] {
		if r == role {
			return true
		}
	}
	return false
}

// inWorkspace resolves the workspace a signed-in request acts in and checks
// the route's rule for the caller's role there. A session acts in the
// workspace X-Workspace names (if the person is a member: otherwise 404),
// else in its current one (a person removed from it gets 403 on their next
// request), else in the account's own. An API key acts in its own
// workspace. teams nil: every account acts as the owner of its own.
func inWorkspace(teams *team.Service) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			route := r.Method + " " + routePattern(r)
			class, ok := routeAccess[route]
			if !ok {
				WriteError(w, r, errNoAccessRule)
				return
			}
			ws, err := resolveWorkspace(r, teams, class, route)
			if err != nil {
				WriteError(w, r, err)
				return
			}
			if ws.ID == "" {
				next.ServeHTTP(w, r) // a person route with no workspace to act in
				return
			}
			next.ServeHTTP(w, r.WithContext(auth.WithWorkspace(r.Context(), ws)))
		})
	}
}

func resolveWorkspace(r *http.Request, teams *team.Service, class access, route string) (auth.Workspace, error) {
	ctx := r.Context()
	uid, _ := auth.UserID(ctx)
	sess, isSession := auth.SessionFrom(ctx)
	if !isSession { // an API key (sessionOnlyRoutes kept it off the team's routes): its workspace is its owner
		ws, ok := auth.WorkspaceFrom(ctx) // keyAuth.admit read the approval rule with the key
		if !ok {
			ws = auth.Workspace{ID: uid, Role: "key"}
		}
		if ws.RequireApproval && gatedRoutes[route] {
			return auth.Workspace{}, errApprovalRequired
		}
		return ws, nil
	}
	if teams == nil {
		return auth.Workspace{ID: uid, Role: string(team.Owner)}, nil
	}
	want, fromHeader := wantedWorkspace(r, sess)
	var acc team.Access
	var err error
	if res, ok := ctx.Value(resolvedKey{}).(resolved); ok && res.access.WorkspaceID == want {
		// read with the session (requireAuthOrKey): no second statement
		if acc = res.access; !res.member {
			err = team.ErrNoWorkspace
		}
	} else {
		acc, err = teams.Resolve(ctx, uid, want)
	}
	if err != nil {
		if class == accessPerson && team.IsNoWorkspace(err) {
			return auth.Workspace{}, nil
		}
		if team.IsNoWorkspace(err) && !fromHeader {
			return auth.Workspace{}, team.ErrNotAMember
		}
		return auth.Workspace{}, err
	}
	if !allows(class, acc.Role) {
		return auth.Workspace{}, errRoleRefused(acc.Role)
	}
	if acc.RequireApproval && acc.Role == team.Editor && gatedRoutes[route] {
		return auth.Workspace{}, errApprovalRequired
	}
	return auth.Workspace{ID: acc.WorkspaceID, Role: string(acc.Role), RequireApproval: acc.RequireApproval}, nil
}

// underApproval says whether this request's Publish must become a request
// for approval: an editor's or an API key's in a workspace that requires it.
func underApproval(r *http.Request) bool {
	ws, ok := auth.WorkspaceFrom(r.Context())
	return ok && ws.RequireApproval && (ws.Role == string(team.Editor) || ws.Role == "key")
}

// workspaceRole is the caller's role in the request's workspace.
func workspaceRole(r *http.Request) team.Role {
	if ws, ok := auth.WorkspaceFrom(r.Context()); ok {
		return team.Role(ws.Role)
	}
	return team.Owner
}

// wantedWorkspace is the workspace a session's request asks to act in: the
// X-Workspace header (fromHeader), else the session's current one, else the
// account's own. Membership is checked by the caller.
func wantedWorkspace(r *http.Request, sess auth.Session) (id string, fromHeader bool) {
	if h := strings.TrimSpace(r.Header.Get("X-Workspace")); h != "" {
		return h, true
	}
	if sess.Workspace != "" {
		return sess.Workspace, false
	}
	return sess.UserID, false
}

// resolved is the membership read with the session (teamSessionCheck).
type resolved struct {
	access team.Access
	member bool
}

type resolvedKey struct{}
