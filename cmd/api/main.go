// Command api serves Photo3D's HTTP surface: the JSON API under /api, the
// embedded web app, public viewer pages and signed blob URLs. It never does
// heavy work: it validates, decides, appends events and enqueues River jobs
// (insert-only client) in one transaction; cmd/worker runs them.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/analytics"
	"github.com/photo3d/photo3d/internal/apikey"
	"github.com/photo3d/photo3d/internal/auth"
	"github.com/photo3d/photo3d/internal/blobstore"
	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/channels"
	"github.com/photo3d/photo3d/internal/channels/googlefeed"
	"github.com/photo3d/photo3d/internal/channels/shopify"
	"github.com/photo3d/photo3d/internal/config"
	"github.com/photo3d/photo3d/internal/dashboard"
	"github.com/photo3d/photo3d/internal/describe"
	"github.com/photo3d/photo3d/internal/dispatch"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/experiment"
	"github.com/photo3d/photo3d/internal/glbvariants"
	"github.com/photo3d/photo3d/internal/httpapi"
	"github.com/photo3d/photo3d/internal/job"
	"github.com/photo3d/photo3d/internal/mail"
	"github.com/photo3d/photo3d/internal/metrics"
	"github.com/photo3d/photo3d/internal/notify"
	"github.com/photo3d/photo3d/internal/onewrite"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/privacy"
	"github.com/photo3d/photo3d/internal/publish"
	"github.com/photo3d/photo3d/internal/subscription"
	"github.com/photo3d/photo3d/internal/subscription/stripebilling"
	"github.com/photo3d/photo3d/internal/team"
	"github.com/photo3d/photo3d/internal/upload"
	"github.com/photo3d/photo3d/internal/webhook"
	"github.com/photo3d/photo3d/internal/worklimit"
	"github.com/photo3d/photo3d/internal/workspace"
	"github.com/photo3d/photo3d/web"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "api:", err)
		os.Exit(1)
	}
}

// run wires the api from configuration and serves until ctx is cancelled,
// then drains in-flight requests within SHUTDOWN_TIMEOUT.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "phone-hint" { // `make run`'s banner (phone.go)
		cfg, err := config.Load("api", args[1:], getenv, stderr)
		if err != nil {
			return err
		}
		for _, l := range phoneHint(cfg.Host, cfg.Port, !cfg.PublicBaseURLDefaulted, interfaceAddrs()) {
			fmt.Fprintln(stdout, l)
		}
		return nil
	}
	cfg, err := config.Load("api", args, getenv, stderr)
	if err != nil {
		return err
	}
	if err := cfg.RequireDatabase(); err != nil {
		return err
	}
	log := cfg.Logger(stdout)

	pool, err := pgdb.Open(ctx, cfg.DatabaseURL, 30)
	if err != nil {
		return err
	}
	defer pool.Close()

	ms := metrics.New()
	ms.RegisterDatabase(pool, nil, log)
	ms.ReportUnsafe(log, cfg.UnsafeSettings())

	// Wakes the worker's projections after appends, one coalesced NOTIFY for
	// concurrent writers (pgdb.Notifier). It outlives ctx so that requests
	// drained after the shutdown signal are still announced; it stops when
	// run returns, before the pool closes.
	notifyCtx, stopNotifier := context.WithCancel(context.WithoutCancel(ctx))
	defer stopNotifier()
	notifier := pgdb.StartNotifier(notifyCtx, pool, eventstore.NotifyChannel)
	// Insert-only: no Queues and never started, so the api never works jobs.
	riverClient, err := river.NewClient(riverpgxv5.New(pool), &river.Config{Logger: log})
	if err != nil {
		return fmt.Errorf("create river client: %w", err)
	}
	store := eventstore.New(events.Domain(),
		eventstore.WithInline(upload.Projection{}, job.Projection{}, publish.Projection{}, catalog.Projection{}, apikey.Projection{},
			team.Projection{}, // own workspaces of new accounts; a product change withdraws its publish request
			// Publishing or changing a live product page queues its
			// channel files for the worker in the same transaction.
			publish.ChannelFilesOnChange{River: riverClient}),
		eventstore.WithObserver(func(t string) { ms.EventsAppended.WithLabelValues(t).Inc() }),
		eventstore.WithNotifier(notifier))

	blobs, err := blobstore.Open(ctx, cfg.BlobURL)
	if err != nil {
		return err
	}
	defer blobs.Close()
	uploads := upload.NewService(pool, store, blobs, cfg.PublicBaseURL).WithRiver(riverClient)
	credits := subscription.NewService(store, subscription.BillingFor(cfg.BillingProvider))
	// Real payments (BILLING_PROVIDER=stripe): Checkout, the portal and the
	// signed webhook; nil otherwise, and the webhook route is not mounted.
	stripeProvider, err := billingProvider(cfg)
	if err != nil {
		return err
	}
	var stripeWebhooks httpapi.ProviderWebhooks
	if stripeProvider != nil {
		credits = credits.WithCheckout(stripeProvider, cfg.BillingGracePeriod)
		stripeWebhooks = stripeProvider
	}
	// Daily upload allowance follows the effective plan (a trial counts as Pro).
	uploads.WithQuota(func(ctx context.Context, userID string) (upload.Quota, error) {
		v, err := credits.Get(ctx, pool, userID)
		if err != nil {
			return upload.Quota{}, err
		}
		return upload.QuotaForPlan(string(v.EffectivePlan)), nil
	})
	jobs := job.NewService(pool, dispatch.New(store, riverClient), uploads, blobs, credits, job.WithMaxWaitingBuilds(cfg.MaxWaitingBuilds))
	catalogue := catalog.NewService(pool, store, jobs, catalog.SubscriptionPlans{Subscriptions: credits}).WithModels(blobs, cfg.ModelHeightMetres).
		WithRiver(riverClient).WithQuota(func(ctx context.Context, userID string) (upload.Quota, error) {
		v, err := credits.Get(ctx, pool, userID)
		if err != nil {
			return upload.Quota{}, err
		}
		return upload.QuotaForPlan(string(v.EffectivePlan)), nil
	})

	// Account mail: queued in the request's transaction (a mail_outbox row
	// and a River `mail` job); the worker sends it through SMTP_ADDR or, in
	// DEV_MODE without a relay, keeps it under DATA_DIR/outbox, which this
	// process lists at /dev/mail and /api/dev/outbox.
	mailer := mail.Queue{River: riverClient}
	var outbox mail.Lister
	mailDelivery := "none"
	switch {
	case cfg.SMTPAddr != "":
		mailDelivery = "smtp"
	case cfg.DevMode:
		mailDelivery = "dev-outbox"
		outbox = mail.Dir(filepath.Join(cfg.DataDir, "outbox"))
	default:
		log.Warn("account mail is dropped: set SMTP_ADDR (sign-up verification cannot reach anyone)")
	}
	var google *account.GoogleVerifier
	if cfg.GoogleClientID != "" {
		google = account.NewGoogleVerifier(ctx, cfg.GoogleClientID, cfg.GoogleJWKSURL, cfg.GoogleIssuers)
	}
	// Integrators: API keys and webhooks end with the account's sessions,
	// or go entirely when a reset proves a pre-registered address.
	apiKeys := apikey.NewService(pool, store)
	webhooks := webhook.NewService(pool, store, riverClient, cfg.WebhookAllowPrivate)
	// The team rules run inside an erasure request (set once teams exists).
	var teams *team.Service
	beforeErasure := func(ctx context.Context, tx pgx.Tx, userID string, deleteWorkspace bool) error {
		return teams.PrepareErasure(ctx, tx, userID, deleteWorkspace)
	}
	accounts, err := account.NewService(pool, store, credits, account.Options{
		SignupMode: cfg.SignupMode, PublicBaseURL: cfg.PublicBaseURL, Google: google,
		Mailer: mailer, Bucket: blobs.Bucket, Logger: log, Revokers: []account.AccessRevoker{apiKeys, webhooks},
		BeforeErasure: beforeErasure,
		Erasure:       privacy.Scheduler(riverClient),
	})
	if err != nil {
		return fmt.Errorf("create account service: %w", err)
	}

	// Publishing: share links and the metered public pages. The meter leases
	// blocks of views from the subscription ledger and flushes what it served
	// every two seconds; the pages hear other instances' changes via NOTIFY.
	publications := publish.NewService(pool, store, publish.SubscriptionPlans{Subscriptions: credits, DB: pool}, cfg.PublicBaseURL)
	meter := publish.NewMeter(pool, credits, store, log, publish.MeterConfig{})
	viewerAssets, err := web.LookupEntry("src/public-viewer/viewer.ts")
	if err != nil {
		log.Warn("public pages will render without the 3D viewer script", "err", err)
	}
	productAssets, err := web.LookupEntry("src/public-viewer/product.ts")
	if err != nil {
		log.Warn("product pages will render with the plain viewer script", "err", err)
	}
	// Shopper analytics: beacons are buffered in memory and COPY-written at
	// least every second, and once more after the HTTP server drained. The
	// collector reads publications from pages, and pages report buy clicks
	// and leads to it: httpapi.ShopperPages binds both.
	shopperEvents := analytics.NewWriter(pool, log, analytics.WriterConfig{})
	shoppers := &analytics.Collector{Writer: shopperEvents, CountryHeader: cfg.AnalyticsCountryHeader, OwnHost: hostOf(cfg.PublicBaseURL),
		OwnOrigins: appAssetOrigins(cfg.PublicBaseURL, true)}
	// Heavy work left in requests (a configurator GLB, one model-sized
	// build per product version) takes one of GOMAXPROCS slots, or the
	// request is answered 503 with Retry-After; channel files (AR, commerce,
	// USDZ) are never built here but by the worker (security review 3, H1).
	heavy := worklimit.New(runtime.GOMAXPROCS(0))
	variants := glbvariants.NewCache(blobs.Bucket).WithLimit(heavy)
	channelFiles := channels.NewQueue(riverClient)
	pages := httpapi.ShopperPages(publish.PagesConfig{
		DB: pool, Store: store, Bucket: blobs.Bucket, Meter: meter, BaseURL: cfg.PublicBaseURL, Log: log,
		Variants: variants, Channels: channelFiles,
		// View and gate tokens: every instance derives the same key.
		TokenKey:      publish.PageTokenKey(cfg.JWTSecret),
		Assets:        publish.Assets{Script: viewerAssets.Script, Preload: viewerAssets.Preload, Styles: viewerAssets.Styles, Environment: viewerAssets.Environment},
		ProductAssets: publish.Assets{Script: productAssets.Script, Preload: productAssets.Preload, Styles: productAssets.Styles},
		Brands:        publish.AccountBrands{Accounts: accounts, DB: pool},
	}, shoppers)
	background, stopBackground := context.WithCancel(context.WithoutCancel(ctx))
	defer stopBackground()
	meterDone := make(chan struct{})
	go func() { meter.Run(background); close(meterDone) }()
	go pages.Listen(background)
	if err := analytics.EnsurePartitions(ctx, pool, time.Now().Add(-24*time.Hour), time.Now().Add(48*time.Hour)); err != nil {
		return fmt.Errorf("shopper event partitions: %w", err)
	}
	shopperDone := make(chan struct{})
	go func() { shopperEvents.Run(background); close(shopperDone) }()

	workspaceItems := workspace.NewReader(pool)
	teams = team.NewService(pool, store, team.Options{Accounts: accounts, Subscriptions: credits, Publications: publications,
		Mailer: mailer, PublicBaseURL: cfg.PublicBaseURL})
	router := httpapi.NewRouter(httpapi.Deps{
		Logger:       log,
		DB:           pool,
		Metrics:      ms,
		Web:          web.Handler(),
		CORSOrigins:  cfg.WebOrigins,
		MaxBodyBytes: cfg.MaxBodyBytes,
		Tokens:       auth.NewTokens(cfg.JWTSecret, cfg.PublicBaseURL),

		Notifications: notify.NewService(pool),
		Workspace:     workspaceItems,
		Dashboard:     dashboard.NewService(workspaceItems, time.Now).WithTopProducts(topProducts(&analytics.Reader{DB: pool})),

		Uploads:       uploads,
		Jobs:          jobs,
		Blobs:         blobs,
		DevMode:       cfg.DevMode,
		Reconstructor: cfg.Reconstructor,
		Catalog:       catalogue,

		Accounts:      accounts,
		Subscriptions: credits,
		Media:         blobs.Bucket,
		Outbox:        outbox,
		MailDelivery:  mailDelivery,

		Publications:    publications,
		PublicPages:     pages,
		PublicRateLimit: cfg.PublicRateLimit,
		TrustedProxies:  cfg.TrustedProxies,
		HTTPSOnly:       strings.HasPrefix(cfg.PublicBaseURL, "https://"),
		AssetOrigins:    appAssetOrigins(cfg.PublicBaseURL, blobs.ServedLocally()),
		Shoppers:        shoppers,
		Analytics:       &analytics.Reader{DB: pool},
		APIKeys:         apiKeys,
		APIKeyRateLimit: cfg.APIKeyRateLimit,
		AuthRateLimit:   httpapi.AuthRateLimit{PerIP: cfg.AuthRateLimit},
		Webhooks:        webhooks,
		Experiments:     experiment.NewService(pool, store, credits, publish.NotifyChannel),
		Teams:           teams,
		Exports:         &privacy.Exports{DB: pool, River: riverClient, Signer: blobs},
		Feeds: &googlefeed.Service{DB: pool, BaseURL: cfg.PublicBaseURL, Live: meter.Available,
			Brand: func(ctx context.Context, userID string) (string, error) {
				b, err := accounts.PublicBrand(ctx, pool, userID)
				return b.BrandName, err
			}},
		Shopify:      &shopify.Service{DB: pool, Key: shopify.TokenKey(cfg.JWTSecret), APIBase: cfg.ShopifyAPIBase},
		Variants:     variants,
		ChannelFiles: channelFiles,

		StripeWebhooks:   stripeWebhooks,
		BillingReturnURL: cfg.PublicBaseURL,

		Describer: describe.New(describe.Config{URL: cfg.LLMURL, Model: cfg.LLMModel, APIKey: cfg.LLMAPIKey}),
	})
	if cfg.MetricsAddr != "" {
		mln, err := net.Listen("tcp", cfg.MetricsAddr)
		if err != nil {
			return fmt.Errorf("listen on METRICS_ADDR %s: %w", cfg.MetricsAddr, err)
		}
		mmux := http.NewServeMux()
		mmux.Handle("GET /metrics", httpapi.MetricsHandler(ms))
		if cfg.Pprof {
			metrics.MountPprof(mmux)
		}
		msrv := &http.Server{Handler: mmux, ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = msrv.Serve(mln) }()
		defer func() { _ = msrv.Close() }()
	}

	ln, err := net.Listen("tcp", cfg.Addr())
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr(), err)
	}
	ln = onewrite.Listener(ln) // share pages leave in one write syscall (internal/onewrite)
	srv := &http.Server{
		Handler:           router,
		ConnContext:       onewrite.ConnContext,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       2 * time.Minute,
		WriteTimeout:      5 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          nil,
	}
	log.Info("api listening", "addr", ln.Addr().String(), "url", cfg.PublicBaseURL)
	fmt.Fprintf(stdout, "Photo3D is running at %s\n", cfg.PublicBaseURL)

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("api shutting down", "grace", cfg.ShutdownTimeout.String())
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("drain http: %w", err)
	}
	// Record the views served and give unused leased views back, so other
	// instances (and the owner's balance) have them at once.
	stopBackground()
	<-meterDone
	if err := meter.Close(shutdownCtx); err != nil {
		log.Error("return public view leases", "err", err)
	}
	<-shopperDone
	if err := shopperEvents.Close(shutdownCtx); err != nil {
		log.Error("write the last shopper events", "err", err)
	}
	log.Info("api stopped")
	return nil
}

// appAssetOrigins are the origins the app's CSP allows for models, images
// and fetches besides its own (httpapi.AppCSP): PUBLIC_BASE_URL's origin,
// and any https origin when files are presigned S3 URLs on another host.
func appAssetOrigins(publicBaseURL string, blobsLocal bool) []string {
	var out []string
	if u, err := url.Parse(publicBaseURL); err == nil && u.Scheme != "" && u.Host != "" {
		out = append(out, u.Scheme+"://"+u.Host)
	}
	if !blobsLocal {
		out = append(out, "https:")
	}
	return out
}

// hostOf is the host of an absolute URL ("" when it has none).
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// topProducts feeds the dashboard's Top Products from shopper analytics.
func topProducts(rd *analytics.Reader) dashboard.TopProductsFunc {
	return func(ctx context.Context, userID string) ([]dashboard.TopProduct, error) {
		top, err := rd.TopProducts(ctx, userID, time.Now(), 5)
		if err != nil {
			return nil, err
		}
		out := make([]dashboard.TopProduct, 0, len(top))
		for _, p := range top {
			out = append(out, dashboard.TopProduct{ID: p.ProductID, Label: p.Name,
				Metric: fmt.Sprintf("%.1f%% engaged · %d shoppers", p.Engagement, p.Shoppers), Path: "/workspace/product/" + p.ProductID})
		}
		return out, nil
	}
}

// billingProvider is the Stripe adapter when BILLING_PROVIDER=stripe, else nil.
func billingProvider(cfg *config.Config) (*stripebilling.Provider, error) {
	return stripebilling.FromConfig(cfg.BillingProvider, cfg.Stripe)
}
