package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"

	"github.com/go-chi/chi/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"gocloud.dev/blob"

	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/analytics"
	"github.com/photo3d/photo3d/internal/apikey"
	"github.com/photo3d/photo3d/internal/auth"
	"github.com/photo3d/photo3d/internal/blobstore"
	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/channels"
	"github.com/photo3d/photo3d/internal/channels/googlefeed"
	"github.com/photo3d/photo3d/internal/channels/shopify"
	"github.com/photo3d/photo3d/internal/dashboard"
	"github.com/photo3d/photo3d/internal/describe"
	"github.com/photo3d/photo3d/internal/experiment"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/glbvariants"
	"github.com/photo3d/photo3d/internal/job"
	"github.com/photo3d/photo3d/internal/mail"
	"github.com/photo3d/photo3d/internal/metrics"
	"github.com/photo3d/photo3d/internal/notify"
	"github.com/photo3d/photo3d/internal/privacy"
	"github.com/photo3d/photo3d/internal/publish"
	"github.com/photo3d/photo3d/internal/subscription"
	"github.com/photo3d/photo3d/internal/team"
	"github.com/photo3d/photo3d/internal/upload"
	"github.com/photo3d/photo3d/internal/webhook"
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

	// Photo → 3D: uploads, jobs, blueprints, assets and the signed blob URLs.
	Uploads       *upload.Service
	Jobs          *job.Service
	Blobs         *blobstore.Store
	DevMode       bool   // opens /api/jobs/debug/* to every signed-in user (own jobs)
	Reconstructor string // shown by the pipeline health check
	// IsAdmin grants the debug endpoints on any job; nil means no admins.
	IsAdmin func(ctx context.Context, userID string) (bool, error)

	// Catalogue: catalogs, products and galleries (also feeds GET /subscription usage).
	Catalog *catalog.Service

	Publications    *publish.Service // share links, embeds, QR codes
	PublicPages     *publish.Pages   // /v/{slug}, /embed/{slug} and their assets
	PublicRateLimit int              // requests per minute per IP on public pages (default 600)
	// Describer writes product descriptions with a chat model (LLM_URL);
	// nil: "Generate with AI" is off.
	Describer *describe.Writer

	// Accounts, branding and subscriptions.
	Accounts      *account.Service
	Subscriptions *subscription.Service
	Media         *blob.Bucket // avatars and logos, served under MediaPath
	Outbox        mail.Lister  // dev mail for GET /api/dev/outbox and /dev/mail; served only with DevMode
	// MailDelivery says where account mail goes, for GET /api/config:
	// "smtp", "dev-outbox" (DEV_MODE without SMTP) or "none" (dropped).
	MailDelivery  string
	AuthRateLimit AuthRateLimit // sign-in, signup and reset attempts

	// TrustedProxies are the CIDRs whose X-Forwarded-For is believed
	// (TRUSTED_PROXIES); empty: the connection address is the client.
	TrustedProxies []netip.Prefix

	// Shopper analytics (issue 14): POST /t collects beacons into Shoppers;
	// /api/analytics reads Analytics. BeaconRateLimit: requests per minute
	// per address on /t (default 6000).
	Shoppers        *analytics.Collector
	Analytics       *analytics.Reader
	BeaconRateLimit int
	// HTTPSOnly: PUBLIC_BASE_URL is https, so answers carry HSTS.
	HTTPSOnly bool
	// AssetOrigins are the origins (or "https:") the app's CSP allows for
	// models, images and fetches besides its own: see AppCSP.
	AssetOrigins []string

	// Integrators (issue 17): API keys as a second way to sign in, limited
	// to APIKeyRateLimit requests per minute per key (default 600).
	APIKeys         *apikey.Service
	APIKeyRateLimit int
	// Webhooks: merchants' endpoints and delivery logs (issue 17).
	Webhooks *webhook.Service
	// Experiments: A/B tests of how a product's page is shown (issue 52).
	Experiments *experiment.Service
	// Teams: workspaces, members, roles, invitations and approvals (issue
	// 51); nil: every account acts alone in its own workspace.
	Teams *team.Service
	// Billing (issue 30): the Stripe webhook verifier (nil: no webhook
	// route) and the base URL Checkout and the portal return to.
	StripeWebhooks   ProviderWebhooks
	BillingReturnURL string
	// Exports: "Download my data" (issue 31); nil: no export routes.
	Exports *privacy.Exports
	// Feeds serves merchants' Google Merchant Center feeds (issue 32); nil: none.
	Feeds *googlefeed.Service
	// Shopify keeps merchants' store connections and sends models (issue 32); nil: none.
	Shopify *shopify.Service
	// Variants builds products' configurator GLBs for the app (cmd/api
	// shares one with PublicPages, within the process-wide limit on heavy
	// work); nil: one over Blobs without a limit.
	Variants *glbvariants.Cache
	// ChannelFiles queues the worker's channel_files job when the Channels
	// panel or "Send to Shopify" finds a file missing (security review 3,
	// H1: the api never builds channel files); nil: files stay pending.
	ChannelFiles *channels.Queue
}

// MetricsHandler serves the api's Prometheus metrics; cmd/api mounts it on
// its own internal listener (METRICS_ADDR), never on the public router.
func MetricsHandler(m *metrics.Set) http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{})
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
	pub := shopperRouter(d)
	r.Use(shopperFirst(pub))
	r.Use(realClientIP(d.TrustedProxies))
	r.Use(requestID(d.Logger))
	var hist = d.Metrics
	if hist != nil {
		r.Use(observe(hist.HTTPDuration))
	} else {
		r.Use(observe(nil))
	}
	r.Use(recoverer, securityHeaders(d.HTTPSOnly), cors(d.CORSOrigins), largeBodyRoutes, accountUploadRoutes, limitBody(d.MaxBodyBytes))
	r.Use(compress()) // after the headers above are set; see compress.go

	r.Get("/healthz", healthz)
	r.Get("/readyz", readyz(d.DB))
	if d.DevMode && d.Outbox != nil {
		r.Get("/dev/mail", devMailPage(d.Outbox))
	}
	// /metrics is not on this (public) router: MetricsHandler is served on
	// the internal METRICS_ADDR, so route names, error rates and queue sizes
	// are not readable from the internet.

	if d.Blobs != nil && d.Blobs.ServedLocally() {
		// Signed file-store URLs (PUT photo, GET model/thumbnail/photo); the
		// signature is the authorization, so no sign-in.
		r.Method("GET", BlobsPath, serveBlob(d.Blobs, d.Uploads))
		r.Method("HEAD", BlobsPath, serveBlob(d.Blobs, d.Uploads))
		r.Method("PUT", BlobsPath, serveBlob(d.Blobs, d.Uploads))
	}

	if d.Media != nil {
		r.Method("GET", MediaPath, serveMedia(d.Media))
		r.Method("HEAD", MediaPath, serveMedia(d.Media))
	}

	r.Route("/api", func(api chi.Router) {
		// Public API routes (no sign-in) go here.
		if d.Accounts != nil {
			// Each route gets its own per-IP and per-email counters.
			api.With(authLimits(d.AuthRateLimit)...).Method("POST", "/auth/signup", signup(d.Accounts, d.MailDelivery))
			api.With(authLimits(d.AuthRateLimit)...).Method("POST", "/auth/login", login(d.Accounts, d.Tokens))
			api.With(authLimits(d.AuthRateLimit)...).Method("POST", "/auth/google", googleLogin(d.Accounts, d.Tokens))
			api.With(authLimits(d.AuthRateLimit)...).Method("POST", "/auth/forgot-password", forgotPassword(d.Accounts, d.MailDelivery))
			api.With(authIPLimit(d.AuthRateLimit)).Method("POST", "/auth/reset-password", resetPassword(d.Accounts))
			api.With(authIPLimit(d.AuthRateLimit)).Method("POST", "/auth/verify-email", verifyEmail(d.Accounts, d.Tokens))
			api.With(authIPLimit(d.AuthRateLimit)).Method("POST", "/auth/confirm-email-change", confirmEmailChange(d.Accounts))
			api.With(authLimits(d.AuthRateLimit)...).Method("POST", "/auth/resend-verification", resendVerificationPublic(d.Accounts, d.MailDelivery))
			api.With(authIPLimit(d.AuthRateLimit)).Method("POST", "/auth/google/nonce", googleNonce(d.Accounts))
		}
		mountTeamPublic(api, d.Teams, d.Tokens, d.AuthRateLimit) // invitation links (no sign-in: the link proves the address)
		api.Method("GET", "/config", publicConfig(d.Accounts, d.MailDelivery, d.Describer.Enabled()))
		api.Method("GET", "/openapi.json", serveOpenAPI()) // the API reference (issue 17)

		// Routes for signed-in users.
		api.Group(func(priv chi.Router) {
			priv.Use(requireAuthOrKey(d.Tokens, newKeyAuth(d.APIKeys, d.APIKeyRateLimit), sessionCheck(d.Accounts, d.Teams)))
			priv.Use(inWorkspace(d.Teams)) // the workspace and the role's rule (access.go)
			priv.Use(idempotent(d.DB))
			mountTeam(priv, d.Teams, d.Tokens)
			mountAPIKeys(priv, d.APIKeys)

			if d.Accounts != nil {
				confirm := confirmLimits(d.AuthRateLimit) // one budget for both password confirmations
				priv.Method("POST", "/auth/logout", logout(d.Accounts))
				priv.Method("POST", "/auth/logout-everywhere", logoutEverywhere(d.Accounts, d.Tokens))
				priv.With(confirm...).Method("POST", "/users/me/password", changePassword(d.Accounts, d.Tokens))
				priv.With(confirm...).Method("POST", "/users/me/email", requestEmailChange(d.Accounts, d.MailDelivery))
				priv.Method("POST", "/users/me/verify-email", resendVerification(d.Accounts, d.MailDelivery))
				if d.DevMode && d.Outbox != nil {
					priv.Method("GET", "/dev/outbox", devOutbox(d.Outbox, d.Accounts, d))
				}
				priv.Method("GET", "/users/me", getMe(d.Accounts, d))
				priv.Method("PATCH", "/users/me", patchMe(d.Accounts))
				priv.With(confirm...).Method("DELETE", "/users/me", deleteMe(d.Accounts))
				if d.Exports != nil {
					priv.Method("POST", "/users/me/export", requestExport(d.Exports))
					priv.Method("GET", "/users/me/export", getExport(d.Exports))
				}
				priv.Method("POST", "/users/me/avatar", uploadAvatar(d.Accounts))
				priv.Method("DELETE", "/users/me/avatar", deleteAvatar(d.Accounts))
				priv.Method("GET", "/branding", getBranding(d.Accounts, d))
				priv.Method("PUT", "/branding", putBranding(d.Accounts))
				priv.Method("POST", "/branding/logo", uploadLogo(d.Accounts))
				priv.Method("DELETE", "/branding/logo", deleteLogo(d.Accounts))
				priv.Method("GET", "/settings/store", getStoreSettings(d.Accounts, d))
				priv.Method("PUT", "/settings/store", putStoreSettings(d.Accounts))
			}
			if d.Subscriptions != nil {
				priv.Method("GET", "/subscription", getSubscription(d.Subscriptions, d))
				priv.Method("POST", "/subscription/trial", startTrial(d.Subscriptions, d))
				priv.Method("POST", "/subscription/addons", purchaseAddon(d.Subscriptions, d))
				priv.Method("POST", "/subscription/plan", changePlan(d.Subscriptions, d))
			}

			priv.Method("GET", "/notifications", listNotifications(d.Notifications))
			priv.Method("POST", "/notifications/read-all", markAllNotificationsRead(d.Notifications))
			priv.Method("POST", "/notifications/{id}/read", markNotificationRead(d.Notifications))
			priv.Method("GET", "/search", searchWorkspace(d.Workspace))
			priv.Method("GET", "/dashboard", getDashboard(d.Dashboard))

			if d.Uploads != nil && d.Jobs != nil {
				priv.Method("POST", "/uploads", createUpload(d.Uploads))
				priv.Method("POST", "/uploads/content", uploadContent(d.Uploads))
				priv.Method("GET", "/uploads/{id}/image", uploadImage(d.Uploads, d.Blobs, d))
				priv.Method("POST", "/uploads/{id}/cutout", requestCutout(d.Uploads))
				priv.Method("GET", "/uploads/{id}/cutout", getCutout(d.Uploads))
				priv.Method("POST", "/jobs", createJob(d.Jobs))
				priv.Method("GET", "/jobs/debug/test", debugTest(d.Jobs, d))
				priv.Method("GET", "/jobs/debug/inference/{id}", debugInference(d.Jobs, d))
				priv.Method("GET", "/jobs/typical-duration", typicalDuration(d.Jobs))
				priv.Method("GET", "/jobs/{id}", getJob(d.Jobs))
				priv.Method("GET", "/jobs/{id}/thumbnail", jobThumbnail(d.Jobs, d.Blobs))
				priv.Method("POST", "/jobs/{id}/retry", retryJob(d.Jobs))
				priv.Method("GET", "/assets/{id}", getAsset(d.Jobs))
				priv.Method("GET", "/assets/{id}/file", assetFile(d.Jobs, d.Blobs))
				priv.Method("GET", "/blueprints", listBlueprints(d.Jobs))
				priv.Method("GET", "/blueprints/{id}", getBlueprint(d.Jobs))
				priv.Method("PATCH", "/blueprints/{id}", renameBlueprint(d.Jobs))
				priv.Method("DELETE", "/blueprints/{id}", deleteBlueprint(d.Jobs))
			}

			if d.Catalog != nil {
				pd := newProductDeps(d)
				priv.Method("GET", "/catalogs", listCatalogs(d.Catalog))
				priv.Method("POST", "/catalogs", createCatalog(d.Catalog))
				priv.Method("GET", "/catalogs/{id}", getCatalog(d.Catalog))
				priv.Method("PATCH", "/catalogs/{id}", patchCatalog(d.Catalog))
				priv.Method("DELETE", "/catalogs/{id}", deleteCatalog(d.Catalog))
				priv.Method("GET", "/catalogs/{id}/products", catalogProducts(d.Catalog))
				priv.Method("POST", "/catalogs/{id}/products", moveIntoCatalog(d.Catalog))
				priv.Method("GET", "/products", listProducts(d.Catalog))
				priv.Method("POST", "/products", createProduct(pd))
				priv.Method("GET", "/products/{id}", getProduct(pd))
				priv.Method("PATCH", "/products/{id}", patchProduct(pd))
				priv.Method("DELETE", "/products/{id}", deleteProduct(d.Catalog))
				priv.Method("POST", "/products/{id}/rebuild", rebuildProduct(pd))
				mountProductDescribe(priv, d.Catalog, d.Describer) // Generate with AI (product_describe.go)
				priv.Method("POST", "/products/{id}/photo", replacePhoto(pd))
				priv.Method("GET", "/galleries", listGalleries(d.Catalog))
				priv.Method("POST", "/galleries", createGallery(d.Catalog))
				priv.Method("GET", "/galleries/{id}", getGalleryWithPage(d.Catalog, d.Publications))
				mountGalleryPublishing(priv, d.Publications, d.PublicPages)
				priv.Method("PATCH", "/galleries/{id}", patchGallery(d.Catalog))
				priv.Method("DELETE", "/galleries/{id}", deleteGallery(d.Catalog))
				priv.Method("PUT", "/galleries/{id}/products", putGalleryProducts(d.Catalog))
				priv.Method("GET", "/link-platform", linkPlatform())
				priv.Method("POST", "/products/{id}/variants", addVariant(d.Catalog))
				priv.Method("PATCH", "/products/{id}/variants/{variantId}", patchVariant(d.Catalog))
				priv.Method("DELETE", "/products/{id}/variants/{variantId}", deleteVariant(d.Catalog))
				priv.Method("POST", "/products/{id}/hotspots", addHotspot(d.Catalog))
				priv.Method("PATCH", "/products/{id}/hotspots/{hotspotId}", patchHotspot(d.Catalog))
				priv.Method("DELETE", "/products/{id}/hotspots/{hotspotId}", deleteHotspot(d.Catalog))
				priv.Method("POST", "/products/{id}/links", addLink(d.Catalog))
				priv.Method("DELETE", "/products/{id}/links/{linkId}", deleteLink(d.Catalog))
				priv.Method("PUT", "/products/{id}/presets", putPresets(d.Catalog))
				priv.Method("POST", "/products/{id}/model", uploadProductModel(pd))
				priv.Method("GET", "/products/{id}/model/{submissionId}", productModelSubmission(d.Catalog))
				priv.Method("GET", "/products/{id}/checks", productChecks(d.Catalog))
				mountProductPublishing(priv, pd, d.PublicPages)
				var packager *channels.Packager // issue 32: channel files and their budgets
				if d.Blobs != nil {
					packager = channels.NewPackager(d.Blobs.Bucket)
				}
				priv.Method("GET", "/products/{id}/channels", productChannels(d.Catalog, packager, d.ChannelFiles))
				mountShopify(priv, d.Shopify, d.Catalog, packager, d.ChannelFiles)
			}

			if d.Analytics != nil && d.Subscriptions != nil {
				priv.Method("GET", "/analytics", getAnalytics(d.Analytics, d.Subscriptions, d))
				priv.Method("GET", "/analytics/breakdowns", getAnalyticsBreakdowns(d.Analytics, d.Subscriptions, d))
				priv.Method("GET", "/analytics/export.csv", exportAnalytics(d.Analytics, d.Subscriptions, d))
				priv.Method("GET", "/products/{id}/analytics", getProductAnalytics(d.Analytics, d))
			}

			priv.Method("POST", "/publications", createPublication(d.Publications))
			priv.Method("GET", "/publications", listPublications(d.Publications))
			priv.Method("GET", "/publications/{id}", getPublication(d.Publications))
			priv.Method("DELETE", "/publications/{id}", unpublish(d.Publications, d.PublicPages))
			priv.Method("POST", "/publications/{id}/versions", publishVersion(d.Publications, d.PublicPages))
			priv.Method("POST", "/publications/{id}/lock", lockPublication(d.Publications, d.PublicPages))
			priv.Method("PUT", "/publications/{id}/embed-origins", setEmbedOrigins(d.Publications, d.PublicPages))
			priv.Method("GET", "/publications/{id}/qr.png", publicationQR(d.Publications))
			mountWebhooks(priv, d.Webhooks)
			mountExperiments(priv, d.Experiments)
			mountFeedSettings(priv, d.Feeds)
			mountBilling(api, priv, d)
		})

		api.NotFound(func(w http.ResponseWriter, r *http.Request) {
			WriteError(w, r, fault.NotFoundf("No API route %s %s.", r.Method, r.URL.Path))
		})
		api.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
			writeErrorBody(w, http.StatusMethodNotAllowed, "method_not_allowed", "This method is not allowed here.")
		})
	})

	// Shopper-facing public pages (no sign-in), on their own short chain:
	// see shopperRouter.
	mountPublicPages(pub, d.PublicPages, d.PublicRateLimit)
	mountBeacons(pub, d.Shoppers, d.BeaconRateLimit)
	mountFeeds(pub, d.Feeds, d.PublicRateLimit)

	if d.Web != nil {
		r.NotFound(appHeaders(AppCSP(d.AssetOrigins...), d.Web).ServeHTTP)
	}
	return r
}
