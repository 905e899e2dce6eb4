package httpapi

import (
	"context"
	"net/http"
	"strings"

	"github.com/photo3d/photo3d/internal/auth"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/fault"
)

var (
	errSignInRequired = fault.New(fault.Unauthorized, "unauthorized", "Please sign in to continue.")
	errSessionExpired = fault.New(fault.Unauthorized, "token_invalid", "Your session has expired. Please sign in again.")
)

// SessionChecker says whether a verified token's session is still open
// (account.Service: session version current, token not signed out).
type SessionChecker interface {
	SessionValid(ctx context.Context, userID string, version int64, tokenID string) (bool, error)
}

// requireAuth admits requests carrying a valid bearer token whose session
// is still open (checked on every request, so a password change or "sign
// out everywhere" takes effect at once) and puts the user id on the context
// (and on event metadata as the actor). Anything else is a 401 envelope,
// which makes the web client clear its token and sign out. sessions may be
// nil (routers without accounts, tests of the token alone).
func requireAuth(tokens *auth.Tokens, sessions ...SessionChecker) func(http.Handler) http.Handler {
	return requireAuthOrKey(tokens, nil, sessions...)
}

// requireAuthOrKey is requireAuth that also admits API keys
// (`Bearer p3d_…`, issue 17): same routes, same owner scoping, plus the
// key's rate limit and scopes (apikeys.go). A p3d_ token is only ever
// checked as a key; keys nil refuses every key.
func requireAuthOrKey(tokens *auth.Tokens, keys *keyAuth, sessions ...SessionChecker) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h := r.Header.Get("Authorization")
			scheme, token, ok := strings.Cut(h, " ")
			if h == "" || !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
				WriteError(w, r, errSignInRequired)
				return
			}
			if token = strings.TrimSpace(token); isAPIKey(token) {
				ctx, err := keys.admit(w, r, token)
				if err != nil {
					WriteError(w, r, err)
					return
				}
				next.ServeHTTP(w, r.WithContext(ctx))
				return
			}
			sess, err := tokens.VerifySession(token)
			if err != nil {
				WriteError(w, r, errSessionExpired)
				return
			}
			ctx := r.Context()
			for _, check := range sessions {
				if check == nil {
					continue
				}
				var ok bool
				var err error
				if tc, isTeam := check.(teamSessionCheck); isTeam {
					// The session and the membership of the workspace the
					// request asks for, read together (inWorkspace uses it).
					var res resolved
					want, _ := wantedWorkspace(r, sess)
					ok, res.access, res.member, err = tc.teams.SessionIn(ctx, sess.UserID, sess.Version, sess.ID, want)
					ctx = context.WithValue(ctx, resolvedKey{}, res)
				} else {
					ok, err = check.SessionValid(ctx, sess.UserID, sess.Version, sess.ID)
				}
				if err != nil {
					WriteError(w, r, err)
					return
				}
				if !ok {
					WriteError(w, r, errSessionExpired)
					return
				}
			}
			ctx = auth.WithSession(ctx, sess)
			md := eventstore.MetadataFrom(ctx)
			md.Actor = "user-" + sess.UserID
			ctx = eventstore.WithMetadata(ctx, md)
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}

// currentWorkspace returns the id of the workspace the request acts in
// (issue 51): the merchant data it reads and writes belongs to it. For an
// API key it is the key's workspace; without a resolved workspace (routers
// built without teams) it is the signed-in account's own.
func currentWorkspace(r *http.Request) string {
	if ws, ok := auth.WorkspaceFrom(r.Context()); ok {
		return ws.ID
	}
	id, _ := auth.UserID(r.Context())
	return id
}

// currentPerson returns the signed-in person's account id, for what is
// theirs rather than their workspace's (profile, password, sessions). For
// an API key it is the key's workspace, as before teams.
func currentPerson(r *http.Request) string {
	id, _ := auth.UserID(r.Context())
	return id
}
