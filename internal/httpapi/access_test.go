package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/auth"
	"github.com/photo3d/photo3d/internal/dbtest"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/subscription"
	"github.com/photo3d/photo3d/internal/team"
)

// publicRoutes are the /api routes served without sign-in: routeAccess
// does not apply to them.
var publicRoutes = map[string]bool{
	"POST /api/auth/signup": true, "POST /api/auth/login": true, "POST /api/auth/google": true,
	"POST /api/auth/forgot-password": true, "POST /api/auth/reset-password": true, "POST /api/auth/verify-email": true,
	"POST /api/auth/confirm-email-change": true, "POST /api/auth/resend-verification": true, "POST /api/auth/google/nonce": true,
	"GET /api/config": true, "GET /api/openapi.json": true, "POST /api/billing/stripe/webhook": true,
	"POST /api/team/invites/peek": true, "POST /api/team/invites/accept": true,
}

// Every signed-in route has exactly one rule, and the table names no route
// the router does not serve: a new route is a decision about roles.
func TestRouteAccessCoversEveryRoute(t *testing.T) {
	t.Parallel()
	routed := routedAPI(t, NewRouter(everyRouteDeps()))
	var missing, stale []string
	for r := range routed {
		if _, ok := routeAccess[r]; !ok && !publicRoutes[r] {
			missing = append(missing, r)
		}
	}
	for r := range routeAccess {
		if !routed[r] {
			stale = append(stale, r)
		}
	}
	for r := range gatedRoutes {
		require.Equal(t, accessPublish, routeAccess[r], "gated route %s must be a publish route", r)
	}
	sort.Strings(missing)
	sort.Strings(stale)
	require.Empty(t, missing, "routes without an access rule (access.go)")
	require.Empty(t, stale, "rules for routes the router does not serve")
}

var routeParam = regexp.MustCompile(`\{[A-Za-z]+\}`)

// Every route × every role: a role the table refuses gets 403
// forbidden_role before the handler runs; a role it allows never does
// (whatever else the handler answers: the ids here are made up, so 404s and
// 400s are expected). The services behind the routes are empty shells
// (everyRouteDeps): an allowed request that reaches one may fail inside it,
// which is recovered as a 500 and still proves the rule let it through.
func TestRouteRoleTable(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	store := eventstore.New(events.Domain(), eventstore.WithInline(team.Projection{}))
	subs := subscription.NewService(store, subscription.TestMode{})
	accounts, err := account.NewService(db.Pool, store, subs, account.Options{PublicBaseURL: "http://test", Logger: log,
		HashParams: account.HashParams{MemoryKiB: 1024, Time: 1, Threads: 1, KeyLen: 32, SaltLen: 16}})
	require.NoError(t, err)
	teams := team.NewService(db.Pool, store, team.Options{Accounts: accounts, Subscriptions: subs})
	tokens := auth.NewTokens([]byte("0123456789abcdef0123456789abcdef"), "http://test")
	d := everyRouteDeps()
	d.Logger, d.DB, d.Tokens, d.Accounts, d.Teams, d.Subscriptions = log, db.Pool, tokens, accounts, teams, subs
	d.AuthRateLimit = AuthRateLimit{PerIP: 100000, PerEmail: 100000}
	h := NewRouter(d)

	owner := "00000000-0000-4000-8000-00000000000a"
	members := map[team.Role]string{team.Owner: owner}
	for i, r := range []team.Role{team.Editor, team.Reviewer, team.Analyst} {
		members[r] = "00000000-0000-4000-8000-00000000000" + string(rune('b'+i))
	}
	for _, id := range members {
		db.VerifiedUser(t, id)
	}
	_, err = db.Pool.Exec(ctx, `INSERT INTO workspaces (id, owner_id, created_at) VALUES ($1, $1, now())`, owner)
	require.NoError(t, err)
	// (Re)seats the team: POST /api/team/leave takes its caller out.
	seat := func() {
		_, err := db.Pool.Exec(ctx, `INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES ($1, $1, 'owner', now()),
			($1, $2, 'editor', now()), ($1, $3, 'reviewer', now()), ($1, $4, 'analyst', now()) ON CONFLICT DO NOTHING`,
			owner, members[team.Editor], members[team.Reviewer], members[team.Analyst])
		require.NoError(t, err)
	}
	seat()

	var routes []string
	for r := range routeAccess {
		routes = append(routes, r)
	}
	sort.Strings(routes)
	checked := 0
	for _, role := range team.Roles {
		for _, route := range routes {
			method, path, _ := strings.Cut(route, " ")
			path = routeParam.ReplaceAllString(path, "0196a3f0-0000-7000-8000-000000000001")
			u, err := accounts.Get(ctx, db.Pool, members[role])
			require.NoError(t, err)
			tok, _, err := tokens.IssueSessionIn(members[role], u.SessionVersion, owner)
			require.NoError(t, err)
			req := httptest.NewRequest(method, path, strings.NewReader("{}"))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+tok)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			var body struct {
				Error *struct {
					Code string `json:"code"`
				} `json:"error"`
			}
			_ = json.Unmarshal(rec.Body.Bytes(), &body)
			refused := rec.Code == http.StatusForbidden && body.Error != nil && body.Error.Code == "forbidden_role"
			want := allows(routeAccess[route], role)
			require.Equal(t, !want, refused, "%s as %s: %d %s", route, role, rec.Code, rec.Body.String())
			require.NotEqual(t, http.StatusUnauthorized, rec.Code, "%s as %s: the token must stay valid", route, role)
			checked++
			seat()
		}
	}
	require.Equal(t, len(routeAccess)*len(team.Roles), checked)
}
