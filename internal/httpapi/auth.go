package httpapi

import (
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

// requireAuth admits requests carrying a valid bearer token and puts the user
// id on the context (and on event metadata as the actor). Anything else is a
// 401 envelope, which makes the web client clear its token and sign out.
func requireAuth(tokens *auth.Tokens) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h := r.Header.Get("Authorization")
			scheme, token, ok := strings.Cut(h, " ")
			if h == "" || !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
				WriteError(w, r, errSignInRequired)
				return
			}
			userID, err := tokens.Verify(strings.TrimSpace(token))
			if err != nil {
				WriteError(w, r, errSessionExpired)
				return
			}
			ctx := auth.WithUser(r.Context(), userID)
			md := eventstore.MetadataFrom(ctx)
			md.Actor = "user-" + userID
			ctx = eventstore.WithMetadata(ctx, md)
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}

// currentUser returns the authenticated user's id; handlers behind
// requireAuth can rely on it.
func currentUser(r *http.Request) string {
	id, _ := auth.UserID(r.Context())
	return id
}
