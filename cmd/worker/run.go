package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/analytics"
	"github.com/photo3d/photo3d/internal/blobstore"
	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/channels"
	"github.com/photo3d/photo3d/internal/config"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/job"
	"github.com/photo3d/photo3d/internal/mail"
	"github.com/photo3d/photo3d/internal/metrics"
	"github.com/photo3d/photo3d/internal/migrate"
	"github.com/photo3d/photo3d/internal/notify"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/privacy"
	"github.com/photo3d/photo3d/internal/projection"
	"github.com/photo3d/photo3d/internal/publish"
	"github.com/photo3d/photo3d/internal/subscription"
	"github.com/photo3d/photo3d/internal/subscription/stripebilling"
	"github.com/photo3d/photo3d/internal/team"
	"github.com/photo3d/photo3d/internal/upload"
	"github.com/photo3d/photo3d/internal/webhook"
	"github.com/photo3d/photo3d/internal/workspace"
)

// deps is what every long-running part of the worker shares.
type deps struct {
	cfg     *config.Config
	log     *slog.Logger
	pool    *pgxpool.Pool
	store   *eventstore.Store
	metrics *metrics.Set
}

func open(ctx context.Context, name string, args []string, getenv func(string) string, stdout, stderr io.Writer) (*deps, error) {
	cfg, err := config.Load(name, args, getenv, stderr)
	if err != nil {
		return nil, err
	}
	if err := cfg.RequireDatabase(); err != nil {
		return nil, err
	}
	log := cfg.Logger(stdout)
	pool, err := pgdb.Open(ctx, cfg.DatabaseURL, int32(cfg.ReconstructWorkers+10))
	if err != nil {
		return nil, err
	}
	ms := metrics.New()
	ms.ReportUnsafe(log, cfg.UnsafeSettings())
	// Insert-only, for the inline projection below: a model prepared for a
	// product with a live page queues that page's channel files in the
	// same transaction.
	inserts, err := river.NewClient(riverpgxv5.New(pool), &river.Config{Logger: log})
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("create river client: %w", err)
	}
	store := eventstore.New(events.Domain(),
		eventstore.WithInline(upload.Projection{}, job.Projection{}, catalog.Projection{}, publish.ChannelFilesOnChange{River: inserts},
			team.Projection{}), // a build's product change withdraws its publish request
		eventstore.WithObserver(func(t string) { ms.EventsAppended.WithLabelValues(t).Inc() }),
		// One coalesced NOTIFY for concurrent appends (pgdb.Notifier); after
		// ctx ends the projections' poll covers what is left.
		eventstore.WithNotifier(pgdb.StartNotifier(ctx, pool, eventstore.NotifyChannel)))
	return &deps{cfg: cfg, log: log, pool: pool, store: store, metrics: ms}, nil
}

// projections lists every async read model the worker maintains. rc inserts
// the webhook deliveries' jobs in the projection's transaction.
func (d *deps) projections(rc *river.Client[pgx.Tx]) []projection.Projection {
	return []projection.Projection{
		notify.NewProjection(),
		workspace.NewProjection(),
		webhook.NewProjection(rc, d.publicBaseURL()),
	}
}

func (d *deps) publicBaseURL() string {
	if d.cfg == nil {
		return ""
	}
	return d.cfg.PublicBaseURL
}

// workers registers every River worker and returns the bundle, how many
// workers it holds, and the periodic jobs.
func (d *deps) workers() (*river.Workers, int, []*river.PeriodicJob, error) {
	w := river.NewWorkers()
	n := 0
	if err := d.addReconstructWorker(w); err != nil {
		return nil, 0, nil, err
	}
	n++
	// Storage clean-up: unused uploads after a day, files of deleted blueprints.
	blobs, err := blobstore.Open(context.Background(), d.cfg.BlobURL)
	if err != nil {
		return nil, 0, nil, fmt.Errorf("open blob store: %w", err)
	}
	if err := river.AddWorkerSafely(w, &upload.CleanupWorker{DB: d.pool, Blobs: blobs, Logger: d.log}); err != nil {
		return nil, 0, nil, err
	}
	n++
	// Background removal for the add-product wizard, on its own queue.
	if err := river.AddWorkerSafely(w, &upload.CutoutWorker{DB: d.pool, Blobs: blobs, Logger: d.log}); err != nil {
		return nil, 0, nil, err
	}
	n++
	// Merchants' own models, on their own queue with a deadline per model.
	if err := river.AddWorkerSafely(w, &catalog.PrepareModelWorker{DB: d.pool, Store: d.store, Blobs: blobs,
		Height: d.cfg.ModelHeightMetres, Logger: d.log}); err != nil {
		return nil, 0, nil, err
	}
	n++
	// Product pages' channel files (AR GLBs, commerce GLBs, USDZ) on the
	// model queue, each run within its deadline (security review 3, H1:
	// never in the api).
	if err := river.AddWorkerSafely(w, &publish.ChannelFilesWorker{DB: d.pool, Packager: channels.NewPackager(blobs.Bucket),
		Logger: d.log, Deadline: min(publish.ChannelFilesTimeout, d.cfg.ReconstructTimeout)}); err != nil {
		return nil, 0, nil, err
	}
	n++
	// Shopper analytics: partitions ahead, retention, shopper_days rollup.
	retention := time.Duration(d.cfg.AnalyticsRetentionDays) * 24 * time.Hour
	if err := river.AddWorkerSafely(w, &analytics.RollupWorker{DB: d.pool, Retention: retention, Logger: d.log}); err != nil {
		return nil, 0, nil, err
	}
	n++
	// Webhook deliveries (default queue): signed POSTs through the SSRF guard.
	if err := river.AddWorkerSafely(w, &webhook.DeliverWorker{DB: d.pool, Logger: d.log, Window: d.cfg.WebhookRetryWindow,
		Client: webhook.Guard{AllowPrivate: d.cfg.WebhookAllowPrivate}.Client()}); err != nil {
		return nil, 0, nil, err
	}
	n++
	if err := river.AddWorkerSafely(w, &webhook.PruneWorker{DB: d.pool}); err != nil {
		return nil, 0, nil, err
	}
	n++
	// Account mail (default queue) from the transactional outbox.
	if err := river.AddWorkerSafely(w, &mail.SendWorker{DB: d.pool, Sender: mailSender(d.cfg, d.log), Logger: d.log,
		Sent: d.metrics.MailSent, Failed: d.metrics.MailFailed}); err != nil {
		return nil, 0, nil, err
	}
	n++
	periodic := []*river.PeriodicJob{upload.PeriodicCleanup(), analytics.PeriodicRollup(d.cfg.AnalyticsRollupInterval), webhook.PeriodicPrune()}
	// Billing reconciliation (BILLING_PROVIDER=stripe): repairs missed
	// webhooks and ends grace periods that ran out.
	stripeProvider, err := stripebilling.FromConfig(d.cfg.BillingProvider, d.cfg.Stripe)
	if err != nil {
		return nil, 0, nil, err
	}
	// Account erasure (DELETE /api/users/me): files, rows, the provider's
	// customer, personal data.
	if err := river.AddWorkerSafely(w, d.eraseWorker(stripeProvider, blobs.Bucket)); err != nil {
		return nil, 0, nil, err
	}
	n++
	// "Download my data": the ZIP, and the hourly clean-up of expired ones.
	if err := river.AddWorkerSafely(w, d.exportWorker(blobs.Bucket)); err != nil {
		return nil, 0, nil, err
	}
	if err := river.AddWorkerSafely(w, &privacy.ExportCleanupWorker{DB: d.pool, Bucket: blobs.Bucket}); err != nil {
		return nil, 0, nil, err
	}
	n += 2
	periodic = append(periodic, privacy.PeriodicExportCleanup())
	if stripeProvider != nil {
		subs := subscription.NewService(d.store, subscription.BillingFor(d.cfg.BillingProvider)).
			WithCheckout(stripeProvider, d.cfg.BillingGracePeriod)
		if err := river.AddWorkerSafely(w, &subscription.ReconcileWorker{DB: d.pool, Service: subs, Logger: d.log}); err != nil {
			return nil, 0, nil, err
		}
		n++
		periodic = append(periodic, subscription.PeriodicReconcile(d.cfg.BillingReconcileInterval))
	}
	return w, n, periodic, nil
}

// mailSender is the SMTP relay when SMTP_ADDR is set; otherwise DEV_MODE
// keeps mail under DATA_DIR/outbox (the api lists it at /dev/mail) and a
// server without either drops it with a warning.
func mailSender(cfg *config.Config, log *slog.Logger) mail.Sender {
	if cfg.SMTPAddr != "" {
		return mail.SMTP{Addr: cfg.SMTPAddr, User: cfg.SMTPUser, Password: cfg.SMTPPassword, From: cfg.MailFrom}
	}
	if cfg.DevMode {
		return mail.Log{Logger: log, Dir: filepath.Join(cfg.DataDir, "outbox")}
	}
	return mail.Log{Logger: log}
}

// run starts River and the projection runner and stops both gracefully:
// River gets a soft stop (finish running jobs) for SHUTDOWN_TIMEOUT, then a
// hard stop that cancels them (they are idempotent and River retries them).
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	d, err := open(ctx, "worker", args, getenv, stdout, stderr)
	if err != nil {
		return err
	}
	defer d.pool.Close()

	workers, nWorkers, periodic, err := d.workers()
	if err != nil {
		return err
	}
	var queues map[string]river.QueueConfig // River refuses queues without workers
	for _, q := range d.cfg.Queues {
		if nWorkers == 0 {
			break
		}
		if queues == nil {
			queues = map[string]river.QueueConfig{}
		}
		n := 10
		if q == "reconstruct" {
			n = max(1, d.cfg.ReconstructWorkers)
		}
		if q == upload.QueueCutout {
			// CPU-bound and short: one slot per core keeps the merchant's wait
			// at the cutout's own run time.
			n = max(2, runtime.GOMAXPROCS(0))
		}
		if q == catalog.QueueModel {
			// Preparing a model may take a core and a few hundred MB for
			// a while: a small fixed number per process bounds both.
			n = catalog.ModelWorkers
		}
		queues[q] = river.QueueConfig{MaxWorkers: n}
	}
	rc, err := river.NewClient(riverpgxv5.New(d.pool), &river.Config{
		Logger:       d.log,
		Queues:       queues,
		Workers:      workersOrNil(workers, nWorkers),
		PeriodicJobs: periodic,
		JobTimeout:   d.cfg.ReconstructTimeout,
		// A job is only rescued once it has certainly outlived its timeout (a
		// spin set's, the longest: job.SpinTimeout), so a slow job is never
		// run twice at the same time; the margin scales with short timeouts so
		// a killed worker's job is re-run soon. The cost: a job whose worker
		// was killed waits that long before it runs again.
		RescueStuckJobsAfter: job.SpinTimeout(d.cfg.ReconstructTimeout) + min(time.Minute, d.cfg.ReconstructTimeout),
		FetchCooldown:        50 * time.Millisecond,
	})
	if err != nil {
		return fmt.Errorf("create river client: %w", err)
	}
	if nWorkers > 0 {
		d.observeJobs(ctx, rc)
	}

	projs := d.projections(rc)
	runner := projection.NewRunner(d.pool, d.store, projection.Config{
		Logger:  d.log,
		OnBatch: func(name string, n int) { d.metrics.ProjectedTotal.WithLabelValues(name).Add(float64(n)) },
	}, projs...)
	d.metrics.RegisterDatabase(d.pool, runner.Names(), d.log)

	srv, err := d.serveMetrics()
	if err != nil {
		return err
	}

	if nWorkers > 0 {
		if err := rc.Start(ctx); err != nil {
			return fmt.Errorf("start river: %w", err)
		}
	}
	d.log.Info("worker started", "queues", d.cfg.Queues, "projections", runner.Names(), "reconstructor", d.cfg.Reconstructor)

	var wg sync.WaitGroup
	projCtx, stopProj := context.WithCancel(context.WithoutCancel(ctx))
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := runner.Run(projCtx); err != nil {
			d.log.Error("projection runner stopped", "err", err)
		}
	}()

	<-ctx.Done()
	d.log.Info("worker shutting down", "grace", d.cfg.ShutdownTimeout.String())
	softCtx, cancelSoft := context.WithTimeout(context.WithoutCancel(ctx), d.cfg.ShutdownTimeout)
	defer cancelSoft()
	if nWorkers == 0 {
		// River was never started.
	} else if err := rc.Stop(softCtx); err != nil {
		d.log.Warn("soft stop timed out; cancelling running jobs", "err", err)
		hardCtx, cancelHard := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancelHard()
		if err := rc.StopAndCancel(hardCtx); err != nil {
			d.log.Error("hard stop failed", "err", err)
		}
	}
	stopProj()
	wg.Wait()
	_ = srv.Shutdown(context.WithoutCancel(ctx))
	d.log.Info("worker stopped")
	return nil
}

// observeJobs feeds River's completion events into the job duration histogram.
func (d *deps) observeJobs(ctx context.Context, rc *river.Client[pgx.Tx]) {
	sub, cancel := rc.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed, river.EventKindJobCancelled, river.EventKindJobSnoozed)
	go func() {
		defer cancel()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-sub:
				if !ok {
					return
				}
				if ev.Job == nil || ev.JobStats == nil {
					continue
				}
				d.metrics.JobDuration.WithLabelValues(ev.Job.Kind, string(ev.Kind)).Observe(ev.JobStats.RunDuration.Seconds())
			}
		}
	}()
}

// serveMetrics exposes /metrics and /healthz for the worker on its own address.
func (d *deps) serveMetrics() (*http.Server, error) {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(d.metrics.Registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("ok\n")) })
	if d.cfg.Pprof {
		metrics.MountPprof(mux)
	}
	ln, err := net.Listen("tcp", d.cfg.WorkerMetricsAddr)
	if err != nil {
		return nil, fmt.Errorf("listen for worker metrics on %s: %w", d.cfg.WorkerMetricsAddr, err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			d.log.Error("worker metrics server stopped", "err", err)
		}
	}()
	return srv, nil
}

func migrateCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	d, err := open(ctx, "worker migrate", args, getenv, stdout, stderr)
	if err != nil {
		return err
	}
	defer d.pool.Close()
	applied, err := migrate.Up(ctx, d.pool)
	if err != nil {
		return err
	}
	if len(applied) == 0 {
		fmt.Fprintln(stdout, "database is up to date")
	}
	for _, a := range applied {
		fmt.Fprintln(stdout, "applied", a)
	}
	return nil
}

func replayCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) < 1 || args[0] == "" || args[0][0] == '-' {
		return errors.New("usage: worker replay NAME (notifications, workspace_items, accounts, subscriptions, catalogue, publications, teams, analytics)")
	}
	name := args[0]
	d, err := open(ctx, "worker replay", args[1:], getenv, stdout, stderr)
	if err != nil {
		return err
	}
	defer d.pool.Close()
	// Inline read models (the api reads them back at once) are rebuilt in one
	// transaction: readers see the old model until the new one commits.
	inline := map[string]func(context.Context, pgx.Tx, *eventstore.Store) error{
		"accounts":      account.Rebuild,
		"subscriptions": subscription.Rebuild,
		"catalogue": func(ctx context.Context, tx pgx.Tx, _ *eventstore.Store) error {
			return catalog.Rebuild(ctx, tx)
		},
		"publications": publish.Rebuild,
		"teams":        team.Rebuild,
	}
	if name == "analytics" {
		// shopper_days is a pure function of the raw shopper_events kept.
		start := time.Now()
		days, err := analytics.RollupAll(ctx, d.pool)
		if err != nil {
			return fmt.Errorf("replay analytics: %w", err)
		}
		fmt.Fprintf(stdout, "replayed analytics (%d days) in %s\n", days, time.Since(start).Round(time.Millisecond))
		return nil
	}
	if rebuild, ok := inline[name]; ok {
		start := time.Now()
		if err := pgdb.WithTx(ctx, d.pool, func(tx pgx.Tx) error { return rebuild(ctx, tx, d.store) }); err != nil {
			return fmt.Errorf("replay %s: %w", name, err)
		}
		fmt.Fprintf(stdout, "replayed %s in %s\n", name, time.Since(start).Round(time.Millisecond))
		return nil
	}
	// Insert-only: a webhooks replay may queue deliveries the log owes (never
	// a second one for an endpoint and event: they are unique).
	rc, err := river.NewClient(riverpgxv5.New(d.pool), &river.Config{Logger: d.log})
	if err != nil {
		return fmt.Errorf("create river client: %w", err)
	}
	// Bigger batches than the worker's 500: fewer transactions and more of each
	// batch's reads remembered (projection.Batch); nobody waits on a replay's
	// latency per event.
	runner := projection.NewRunner(d.pool, d.store, projection.Config{Logger: d.log, BatchSize: 5000}, d.projections(rc)...)
	start := time.Now()
	n, err := runner.Replay(ctx, name)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "replayed %s: %d events in %s\n", name, n, time.Since(start).Round(time.Millisecond))
	return nil
}

func workersOrNil(w *river.Workers, n int) *river.Workers {
	if n == 0 {
		return nil
	}
	return w
}
