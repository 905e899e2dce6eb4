package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

func healthz(w http.ResponseWriter, r *http.Request) {
	WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readyz answers 503 when the database cannot be reached, so a load balancer
// stops sending traffic to an instance that would only fail.
func readyz(pool *pgxpool.Pool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if pool == nil {
			writeErrorBody(w, http.StatusServiceUnavailable, "not_ready", "The database is not configured.")
			return
		}
		if err := pool.Ping(ctx); err != nil {
			LoggerFrom(r.Context()).Warn("readiness check failed", "err", err)
			writeErrorBody(w, http.StatusServiceUnavailable, "not_ready", "The database is not reachable.")
			return
		}
		WriteJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	}
}
