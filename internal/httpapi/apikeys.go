package httpapi

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/httprate"

	"github.com/photo3d/photo3d/internal/apikey"
	"github.com/photo3d/photo3d/internal/auth"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/fault"
)

// DefaultAPIKeyRateLimit is requests per minute per API key
// (API_KEY_RATE_LIMIT): ten a second, ample for a store sync, low enough
// that one runaway script cannot crowd out everyone else.
const DefaultAPIKeyRateLimit = 600

var (
	errAPIKeyInvalid    = fault.New(fault.Unauthorized, "api_key_invalid", "This API key is not valid or has been revoked.")
	errAPIKeySessionOny = fault.New(fault.Forbidden, "session_required",
		"API keys cannot do this: sign in to the workspace to manage API keys, your password, your sessions, your plan, trials, add-ons or billing, your store connections, or your team and its approvals.")
	errAPIKeyRateLimited = fault.New(fault.RateLimited, "rate_limited", "Too many requests with this API key. Please wait a minute and try again.")
)

func errMissingScope(s apikey.Scope) error {
	return fault.New(fault.Forbidden, "insufficient_scope", `This API key does not have the "`+string(s)+`" scope this request needs.`)
}

// publishRoutes need the publish scope: they make something public (or stop
// it being public), which a merchant may want to keep for people even when
// a script may upload and build (a write-only key cannot publish).
var publishRoutes = map[string]bool{
	"POST /api/publications":                   true,
	"DELETE /api/publications/{id}":            true,
	"POST /api/publications/{id}/versions":     true,
	"POST /api/publications/{id}/lock":         true,
	"PUT /api/publications/{id}/embed-origins": true,
	"POST /api/products/{id}/publish":          true,
	"POST /api/galleries/{id}/publish":         true,
	// An experiment changes what shoppers see on the live page.
	"POST /api/products/{id}/experiments": true,
	"POST /api/experiments/{id}/pause":    true,
	"POST /api/experiments/{id}/resume":   true,
	"POST /api/experiments/{id}/stop":     true,
	"POST /api/experiments/{id}/apply":    true,
}

// sessionOnlyRoutes refuse API keys whatever their scopes. A key is a
// long-lived secret that sits in a shop's server config; if it leaks, the
// damage must stay within what it was made for. So a key cannot mint or
// revoke keys (a leaked key could otherwise make itself permanent), change
// the password, end sessions, or spend the merchant's money: plan changes,
// trials, add-on purchases and everything under sessionOnlyPrefixes
// (billing) stay with the person signed in. Nor can it manage the store
// connections: the Shopify Admin token is a credential (a key could point
// the connection at another store, or search the merchant's store with it),
// and rotating the Google feed URL breaks the feed in Merchant Center.
// "Send to Shopify" stays with write keys: pushing models to the store the
// merchant connected is what a sync script is for. Webhooks may be managed
// with a write key: registering them is exactly what integrators automate.
//
// This map and sessionOnlyPrefixes are the one place that decides it: a new
// route that must never be reached with a key is added here (or lives under
// a listed prefix), and TestSecurityAPIKeyCannotSpendMoney checks them.
var sessionOnlyRoutes = map[string]bool{
	"GET /api/api-keys":                true,
	"POST /api/api-keys":               true,
	"DELETE /api/api-keys/{id}":        true,
	"POST /api/auth/logout":            true,
	"POST /api/auth/logout-everywhere": true,
	"POST /api/users/me/password":      true,
	"POST /api/users/me/email":         true,
	"DELETE /api/users/me":             true,
	"POST /api/users/me/export":        true,
	"GET /api/users/me/export":         true,
	"POST /api/subscription/plan":      true,
	"POST /api/subscription/trial":     true,
	"POST /api/subscription/addons":    true,
	"GET /api/dev/outbox":              true,
	"POST /api/billing/checkout":       true,
	"POST /api/billing/portal":         true,

	// The team (issue 51): a key belongs to its workspace, not to a person,
	// so it neither lists a person's workspaces, nor manages members, nor
	// decides approvals (a leaked key must not approve its own requests).
	"GET /api/workspaces":               true,
	"POST /api/workspaces/{id}/switch":  true,
	"POST /api/team/invites":            true,
	"DELETE /api/team/invites/{id}":     true,
	"PATCH /api/team/members/{userId}":  true,
	"DELETE /api/team/members/{userId}": true,
	"POST /api/team/leave":              true,
	"POST /api/team/transfer":           true,
	"PUT /api/team/settings":            true,
	"PUT /api/team/me":                  true,
	"POST /api/approvals/{id}/approve":  true,
	"POST /api/approvals/{id}/reject":   true,
	"POST /api/approvals/{id}/withdraw": true,

	// The store connections (third security review, L4).
	"PUT /api/channels/shopify":             true,
	"DELETE /api/channels/shopify":          true,
	"GET /api/channels/shopify/products":    true,
	"POST /api/channels/google-feed/rotate": true,
}

// sessionOnlyPrefixes: every route under these paths, whatever its method,
// is session-only (billing: checkout, the customer portal, invoices).
var sessionOnlyPrefixes = []string{"/api/billing/"}

// sessionOnly says whether a route (its method and chi pattern) refuses API keys.
func sessionOnly(method, pattern string) bool {
	if sessionOnlyRoutes[method+" "+pattern] {
		return true
	}
	for _, p := range sessionOnlyPrefixes {
		if strings.HasPrefix(pattern, p) || pattern+"/" == p {
			return true
		}
	}
	return false
}

// scopeFor is the scope a request needs, decided from its method and route
// pattern (never from anything the client says); session-only routes answer
// ok=false.
func scopeFor(r *http.Request) (apikey.Scope, bool) {
	pattern := routePattern(r)
	route := r.Method + " " + pattern
	switch {
	case sessionOnly(r.Method, pattern):
		return "", false
	case publishRoutes[route]:
		return apikey.ScopePublish, true
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		return apikey.ScopeRead, true
	}
	return apikey.ScopeWrite, true
}

// keyAuth authenticates `Bearer p3d_…` requests for requireAuth.
type keyAuth struct {
	keys    *apikey.Service
	limiter *httprate.RateLimiter
}

func newKeyAuth(keys *apikey.Service, perMinute int) *keyAuth {
	if keys == nil {
		return nil
	}
	if perMinute <= 0 {
		perMinute = DefaultAPIKeyRateLimit
	}
	return &keyAuth{keys: keys, limiter: httprate.NewRateLimiter(perMinute, time.Minute)}
}

// admit checks the key, its rate and its scope for r and returns the
// request context signed in as the key's owner (actor "apikey-<id>").
func (k *keyAuth) admit(w http.ResponseWriter, r *http.Request, key string) (context.Context, error) {
	if k == nil {
		return nil, errAPIKeyInvalid
	}
	p, ok, err := k.keys.Authenticate(r.Context(), key)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errAPIKeyInvalid
	}
	// The limiter sets Retry-After (and X-RateLimit-*) on w itself.
	if k.limiter.OnLimit(w, r, p.KeyID) {
		return nil, errAPIKeyRateLimited
	}
	need, allowed := scopeFor(r)
	if !allowed {
		return nil, errAPIKeySessionOny
	}
	if !p.Has(need) {
		return nil, errMissingScope(need)
	}
	ctx := auth.WithUser(r.Context(), p.UserID)
	ctx = auth.WithWorkspace(ctx, auth.Workspace{ID: p.UserID, Role: "key", RequireApproval: p.RequireApproval})
	md := eventstore.MetadataFrom(ctx)
	md.Actor = "apikey-" + p.KeyID
	return eventstore.WithMetadata(ctx, md), nil
}

// isAPIKey says whether a bearer token is an API key.
func isAPIKey(token string) bool { return apikey.LooksLikeKey(token) }

func mountAPIKeys(priv chi.Router, keys *apikey.Service) {
	if keys == nil {
		return
	}
	priv.Method("GET", "/api-keys", listAPIKeys(keys))
	priv.Method("POST", "/api-keys", createAPIKey(keys))
	priv.Method("DELETE", "/api-keys/{id}", revokeAPIKey(keys))
}

func listAPIKeys(keys *apikey.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		items, err := keys.List(r.Context(), currentWorkspace(r))
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, map[string]any{"items": items, "maxActive": apikey.MaxActiveKeys})
		return nil
	}
}

func createAPIKey(keys *apikey.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Name   string   `json:"name"`
			Scopes []string `json:"scopes"`
		}
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		created, err := keys.Create(r.Context(), currentWorkspace(r), body.Name, body.Scopes)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusCreated, created)
		return nil
	}
}

func revokeAPIKey(keys *apikey.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		id := strings.TrimSpace(chi.URLParam(r, "id"))
		if err := keys.Revoke(r.Context(), currentWorkspace(r), id); err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, map[string]any{"id": id, "revoked": true})
		return nil
	}
}
