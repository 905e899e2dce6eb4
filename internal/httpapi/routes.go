package httpapi

import (
	"log/slog"
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/photo3d/photo3d/internal/auth"
	"github.com/photo3d/photo3d/internal/dashboard"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/metrics"
	"github.com/photo3d/photo3d/internal/notify"
	"github.com/photo3d/photo3d/internal/workspace"
)

// Deps is everything the HTTP surface needs; run() in cmd/api builds it.
type Deps struct {
	Logger       *slog.Logger
	DB           *pgxpool.Pool
	Metrics      *metrics.Set
	Web          http.Handler // the embedded single-page app
	CORSOrigins  []string
	MaxBodyBytes int64
	Tokens       *auth.Tokens

	Notifications *notify.Service    // workspace updates (bell, notifications page)
	Workspace     *workspace.Reader  // search over the caller's items
	Dashboard     *dashboard.Service // /my-home
}

// NewRouter returns the complete HTTP surface of the api binary.
func NewRouter(d Deps) http.Handler {
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	if d.MaxBodyBytes <= 0 {
		d.MaxBodyBytes = 1 << 20
	}
	r := chi.NewRouter()
	r.Use(requestID(d.Logger))
	var hist = d.Metrics
	if hist != nil {
		r.Use(observe(hist.HTTPDuration))
	} else {
		r.Use(observe(nil))
	}
	r.Use(recoverer, securityHeaders, cors(d.CORSOrigins), limitBody(d.MaxBodyBytes))

	r.Get("/healthz", healthz)
	r.Get("/readyz", readyz(d.DB))
	if d.Metrics != nil {
		r.Handle("/metrics", promhttp.HandlerFor(d.Metrics.Registry, promhttp.HandlerOpts{}))
	}

	r.Route("/api", func(api chi.Router) {
		// Public API routes (no sign-in) go here.

		// Routes for signed-in users.
		api.Group(func(priv chi.Router) {
			priv.Use(requireAuth(d.Tokens))

			priv.Method("GET", "/notifications", listNotifications(d.Notifications))
			priv.Method("POST", "/notifications/read-all", markAllNotificationsRead(d.Notifications))
			priv.Method("POST", "/notifications/{id}/read", markNotificationRead(d.Notifications))
			priv.Method("GET", "/search", searchWorkspace(d.Workspace))
			priv.Method("GET", "/dashboard", getDashboard(d.Dashboard))
		})

		api.NotFound(func(w http.ResponseWriter, r *http.Request) {
			WriteError(w, r, fault.NotFoundf("No API route %s %s.", r.Method, r.URL.Path))
		})
		api.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
			writeErrorBody(w, http.StatusMethodNotAllowed, "method_not_allowed", "This method is not allowed here.")
		})
	})

	if d.Web != nil {
		r.NotFound(d.Web.ServeHTTP)
	}
	return r
}
