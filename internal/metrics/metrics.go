// Package metrics defines Photo3D's Prometheus metrics in one place so the
// api and the worker expose the same names. Metrics that describe shared
// state (River jobs by kind and state, projection lag) are read from Postgres
// at scrape time: any instance reports the truth, not its own slice of it.
package metrics

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/photo3d/photo3d/internal/projection"
)

// Set holds the metrics a process records itself.
type Set struct {
	Registry       *prometheus.Registry
	HTTPDuration   *prometheus.HistogramVec
	EventsAppended *prometheus.CounterVec
	JobDuration    *prometheus.HistogramVec
	ProjectedTotal *prometheus.CounterVec
	// MailSent and MailFailed count account mail by kind; a failure is one
	// that will not be retried (SMTP 5xx or retries exhausted).
	MailSent, MailFailed *prometheus.CounterVec
	// UnsafeSetting is 1 for each development-only setting this process
	// runs with (config.UnsafeSettings), so an alert can fire on it.
	UnsafeSetting *prometheus.GaugeVec
}

// New registers the process, Go runtime and Photo3D metrics on a fresh registry.
func New() *Set {
	reg := prometheus.NewRegistry()
	s := &Set{
		Registry: reg,
		HTTPDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "photo3d_http_request_duration_seconds",
			Help:    "HTTP request duration by chi route pattern, method and status.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route", "method", "status"}),
		EventsAppended: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "photo3d_events_appended_total",
			Help: "Domain events appended by this process, by event type.",
		}, []string{"type"}),
		JobDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "photo3d_river_job_duration_seconds",
			Help:    "River job run time by kind and outcome, as seen by this worker.",
			Buckets: []float64{.01, .05, .1, .25, .5, 1, 2, 5, 10, 30, 60, 120},
		}, []string{"kind", "outcome"}),
		ProjectedTotal: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "photo3d_projection_events_total",
			Help: "Events applied by async projections in this process.",
		}, []string{"projection"}),
		MailSent: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "photo3d_mail_sent_total",
			Help: "Account mail handed to the SMTP relay (or the dev outbox), by kind.",
		}, []string{"kind"}),
		MailFailed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "photo3d_mail_failed_total",
			Help: "Account mail given up for good (SMTP 5xx or retries exhausted), by kind.",
		}, []string{"kind"}),
		UnsafeSetting: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "photo3d_unsafe_setting",
			Help: "1 for each development-only setting this process runs with (BILLING_PROVIDER=test-mode, WEBHOOK_ALLOW_PRIVATE=true).",
		}, []string{"setting"}),
	}
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		s.HTTPDuration, s.EventsAppended, s.JobDuration, s.ProjectedTotal, s.MailSent, s.MailFailed, s.UnsafeSetting)
	return s
}

// ReportUnsafe logs each development-only setting the process runs with at
// error level (every start, so it is never missed in production logs) and
// sets photo3d_unsafe_setting for it.
func (s *Set) ReportUnsafe(log *slog.Logger, settings []string) {
	for _, name := range settings {
		log.Error("development-only setting in use: never run it in production", "setting", name)
		s.UnsafeSetting.WithLabelValues(name).Set(1)
	}
}

// RegisterDatabase adds scrape-time collectors for River jobs by kind and
// state and for projection lag.
func (s *Set) RegisterDatabase(pool *pgxpool.Pool, projections []string, log *slog.Logger) {
	s.Registry.MustRegister(&dbCollector{pool: pool, projections: projections, log: log})
}

var (
	jobsDesc = prometheus.NewDesc("photo3d_river_jobs", "River jobs by kind and state (from the river_job table).", []string{"kind", "state"}, nil)
	lagDesc  = prometheus.NewDesc("photo3d_projection_lag_events", "Committed events not yet applied by an async projection (capped at 100000).", []string{"projection"}, nil)
	upDesc   = prometheus.NewDesc("photo3d_database_up", "1 when the database answered the last scrape.", nil, nil)
)

type dbCollector struct {
	pool        *pgxpool.Pool
	projections []string
	log         *slog.Logger
}

func (c *dbCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- jobsDesc
	ch <- lagDesc
	ch <- upDesc
}

func (c *dbCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	up := 1.0
	rows, err := c.pool.Query(ctx, `SELECT kind, state::text, count(*) FROM river_job GROUP BY 1, 2`)
	if err == nil {
		for rows.Next() {
			var kind, state string
			var n int64
			if rows.Scan(&kind, &state, &n) == nil {
				ch <- prometheus.MustNewConstMetric(jobsDesc, prometheus.GaugeValue, float64(n), kind, state)
			}
		}
		rows.Close()
		err = rows.Err()
	}
	if err == nil && len(c.projections) > 0 {
		var lag map[string]int64
		lag, err = projection.Lag(ctx, c.pool, c.projections, 100000)
		for name, n := range lag {
			ch <- prometheus.MustNewConstMetric(lagDesc, prometheus.GaugeValue, float64(n), name)
		}
	}
	if err != nil {
		up = 0
		if c.log != nil {
			c.log.Warn("metrics scrape could not read the database", "err", err)
		}
	}
	ch <- prometheus.MustNewConstMetric(upDesc, prometheus.GaugeValue, up)
}

// MountPprof adds Go's profiles (/debug/pprof/…) to an internal listener's
// mux. Callers mount it only on the metrics listeners, never on the public
// port, and only when PPROF is set: a CPU profile of a server under load is
// how ops/sharebench.sh finds where a share page's time goes.
func MountPprof(mux *http.ServeMux) {
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
}
