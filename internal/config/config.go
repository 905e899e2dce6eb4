// Package config is the one place settings are read. Every setting is an
// environment variable with a sensible default for a laptop; the same names
// are accepted as command-line flags, and `-help` lists them all. run() parses
// once and passes the struct down; nothing else reads the environment.
package config

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Config holds every setting of both binaries.
type Config struct {
	DatabaseURL   string
	DataDir       string
	BlobURL       string
	BlobSecret    []byte // signs file-store URLs; read from DataDir when BLOB_URL is unset
	JWTSecret     []byte
	Host          string
	Port          int
	PublicBaseURL string
	WebOrigins    []string
	LogLevel      string
	DevMode       bool
	MaxBodyBytes  int64

	PublicRateLimit int    // requests per minute per IP on the public share/embed pages
	ShopifyAPIBase  string // SHOPIFY_API_BASE (issue 32)
	APIKeyRateLimit int    // requests per minute per API key
	AuthRateLimit   int    // sign-in, signup and reset attempts per minute per IP

	SignupMode      string // open | invite
	GoogleClientID  string
	GoogleJWKSURL   string
	GoogleIssuers   []string
	SMTPAddr        string
	SMTPUser        string
	SMTPPassword    string
	MailFrom        string
	BillingProvider string // test-mode | none | stripe

	// Stripe (issue 30), used when BillingProvider is "stripe".
	Stripe                   StripeConfig
	BillingGracePeriod       time.Duration // Pro kept after a failed renewal
	BillingReconcileInterval time.Duration // how often the worker reconciles with the provider

	// TrustedProxies are the proxies whose X-Forwarded-For is believed.
	TrustedProxies []netip.Prefix
	// MetricsAddr is the internal listener of the api's /metrics ("" = none).
	MetricsAddr string

	Reconstructor      string // builtin | remote
	ReconstructorURL   string
	ReconstructWorkers int
	ReconstructTimeout time.Duration
	ModelHeightMetres  float64
	Queues             []string

	// PrivacyJobTimeout is the time limit of one account erasure or data
	// export attempt. River re-runs a job whose worker died only once this
	// has passed since it started, so it is also how long an erasure or an
	// export waits after a crash.
	PrivacyJobTimeout time.Duration

	// MaxWaitingBuilds bounds one account's builds waiting for a
	// reconstruct slot (job.DefaultMaxWaitingBuilds; 0: no limit).
	MaxWaitingBuilds int

	WorkerMetricsAddr string
	// Pprof serves net/http/pprof on the internal metrics listeners (never the
	// public port), to find where a server's time goes under load.
	Pprof           bool
	ShutdownTimeout time.Duration

	// Shopper analytics (issue 14).
	AnalyticsCountryHeader string // a trusted proxy/CDN's country header; empty: browser time zone
	AnalyticsRetentionDays int    // raw shopper_events kept this many days
	// AnalyticsRollupInterval is how often the worker rolls shopper events up
	// into the dashboard's days: how far the dashboard may trail the shoppers.
	AnalyticsRollupInterval time.Duration

	// Webhooks (issue 17). WebhookAllowPrivate lets endpoints use http and
	// reach loopback/private addresses: for tests and local development only.
	WebhookAllowPrivate bool
	WebhookRetryWindow  time.Duration // how long a failing delivery is retried

	// PublicBaseURLDefaulted: PUBLIC_BASE_URL was unset, so PublicBaseURL is
	// http://localhost:PORT and public links follow each request's host
	// instead (issue 29 item 10).
	PublicBaseURLDefaulted bool

	// "Generate with AI" for product descriptions (internal/describe): an
	// OpenAI-compatible chat server; off while LLMURL is empty.
	LLMURL    string
	LLMModel  string
	LLMAPIKey string
}

type setting struct {
	env, def, usage string
}

// settings is the documented list; -help prints it.
var settings = []setting{
	{"DATABASE_URL", "", "Postgres URL (make run starts a local cluster and sets it)"},
	{"DATA_DIR", ".data", "directory for local state: generated secrets, file-store blobs"},
	{"BLOB_URL", "", "gocloud.dev blob URL (s3://, gs://, file://); default: a signed file store under DATA_DIR/blobs"},
	{"JWT_SECRET", "", "HS256 signing secret for session tokens; default: generated once into DATA_DIR/jwt-secret"},
	{"HOST", "127.0.0.1", "listen address of the api (use 0.0.0.0 in containers)"},
	{"PORT", "8080", "listen port of the api"},
	{"PUBLIC_BASE_URL", "", "external base URL used in share links and signed URLs; default http://localhost:PORT"},
	{"WEB_ORIGINS", "http://localhost:5173,http://127.0.0.1:5173", "comma-separated origins allowed by CORS (the Vite dev server)"},
	{"LOG_LEVEL", "info", "debug | info | warn | error"},
	{"DEV_MODE", "false", "enables the dev outbox and debug endpoints; never in production"},
	{"MAX_BODY_BYTES", "1048576", "largest JSON request body"},
	{"PUBLIC_RATE_LIMIT", "600", "requests per minute per client IP on public share and embed pages"},
	{"API_KEY_RATE_LIMIT", "600", "requests per minute per API key (answers 429 with Retry-After above it)"},
	{"AUTH_RATE_LIMIT", "20", "sign-in, signup and password-reset attempts per minute per client IP, on each route (the per-address limit stays 5)"},
	{"ANALYTICS_COUNTRY_HEADER", "", "request header holding the shopper's ISO country, set by a trusted proxy/CDN (e.g. CF-IPCountry); empty: derive the region from the browser's time zone"},
	{"ANALYTICS_RETENTION_DAYS", "90", "days of raw shopper events kept (day partitions older are dropped)"},
	{"ANALYTICS_ROLLUP_INTERVAL", "1m", "how often the worker rolls shopper events up into the dashboard (it trails the shoppers by at most this)"},
	{"SIGNUP_MODE", "open", "open | invite (invite codes from `worker invite create EMAIL`)"},
	{"GOOGLE_CLIENT_ID", "", "OAuth client id for Google sign-in; empty disables it"},
	{"GOOGLE_JWKS_URL", "https://www.googleapis.com/oauth2/v3/certs", "where Google's signing keys are fetched"},
	{"GOOGLE_ISSUERS", "https://accounts.google.com,accounts.google.com", "accepted ID-token issuers"},
	{"SMTP_ADDR", "", "host:port of the SMTP relay; empty writes mail to the log (and the dev outbox in DEV_MODE)"},
	{"SMTP_USER", "", "SMTP user"},
	{"SMTP_PASSWORD", "", "SMTP password"},
	{"MAIL_FROM", "Photo3D <no-reply@photo3d.local>", "sender of account mail"},
	{"ALLOW_UNSAFE_SETTINGS", "false", "let a server without DEV_MODE run with BILLING_PROVIDER=test-mode or WEBHOOK_ALLOW_PRIVATE=true (test stacks only); every start then logs an error and photo3d_unsafe_setting says which"},
	{"BILLING_PROVIDER", "", "stripe (real payments through Stripe Checkout) | test-mode (accepts every purchase, for development) | none (purchases refused); default: test-mode with DEV_MODE, else none"},
	{"STRIPE_SECRET_KEY", "", "Stripe secret API key (sk_live_… / sk_test_…, at least 32 bytes); or STRIPE_SECRET_KEY_FILE"},
	{"STRIPE_SECRET_KEY_FILE", "", "file holding STRIPE_SECRET_KEY (a mounted secret)"},
	{"STRIPE_WEBHOOK_SECRET", "", "signing secret of the Stripe webhook endpoint /api/billing/stripe/webhook (whsec_…, at least 32 bytes); or STRIPE_WEBHOOK_SECRET_FILE"},
	{"STRIPE_WEBHOOK_SECRET_FILE", "", "file holding STRIPE_WEBHOOK_SECRET"},
	{"STRIPE_PRICE_PRO", "", "Stripe Price id of Pro: ₹1,999 a month, recurring, INR"},
	{"STRIPE_PRICE_CREDITS", "", "Stripe Price id of one add-on pack of 20 AI credits (₹500, one-time)"},
	{"STRIPE_PRICE_VIEWS", "", "Stripe Price id of one add-on pack of 10,000 public views (₹500, one-time)"},
	{"STRIPE_API_BASE", "", "Stripe API base URL; empty: Stripe itself (tests point it at stripe-mock)"},
	{"SHOPIFY_API_BASE", "", "Shopify Admin API base URL; empty: each merchant's own https://{shop}.myshopify.com (tests point it at a fake)"},
	{"BILLING_GRACE_PERIOD", "168h", "how long Pro stays after a failed renewal before falling back to Free"},
	{"BILLING_RECONCILE_INTERVAL", "15m", "how often the worker compares paying accounts with the provider and repairs drift"},
	{"TRUSTED_PROXIES", "", "comma-separated CIDRs of the reverse proxies/ingress in front of the api; only their X-Forwarded-For is believed"},
	{"METRICS_ADDR", "", "internal listen address of the api's /metrics, e.g. 127.0.0.1:9090 (never the public port); empty: no api metrics endpoint"},
	{"RECONSTRUCTOR", "builtin", "builtin (pure Go, CPU) | remote (GPU inference server)"},
	{"RECONSTRUCTOR_URL", "", "base URL of the remote inference server"},
	{"RECONSTRUCT_WORKERS", "2", "concurrent reconstruct jobs per worker process"},
	{"RECONSTRUCT_TIMEOUT", "5m", "time limit of one reconstruct job"},
	{"MAX_WAITING_BUILDS", "5", "builds one account may have waiting for a reconstruct slot; one more is refused with 429 builds_queued (0: no limit, for load tests only)"},
	{"PRIVACY_JOB_TIMEOUT", "30m", "time limit of one account erasure or data export attempt; a job whose worker died is run again only after it"},
	{"MODEL_HEIGHT_METRES", "0.3", "default real-world height of generated models"},
	{"QUEUES", "default,reconstruct,cutout,model", "River queues this worker serves"},
	{"WORKER_METRICS_ADDR", "127.0.0.1:9091", "where the worker serves /metrics and /healthz"},
	{"SHUTDOWN_TIMEOUT", "20s", "grace period for draining requests and jobs"},
	{"PPROF", "false", "serve Go's profiles (/debug/pprof/) on the internal METRICS_ADDR and WORKER_METRICS_ADDR listeners only (never the public port): where a server's CPU goes under load"},
	{"WEBHOOK_ALLOW_PRIVATE", "false", "let webhook endpoints use http:// and loopback/private/link-local addresses (development and tests only; never in production)"},
	{"LLM_URL", "", "base URL of an OpenAI-compatible chat server (POST {LLM_URL}/v1/chat/completions) for Generate with AI descriptions; empty: off"},
	{"LLM_MODEL", "", "model name sent to LLM_URL"},
	{"LLM_API_KEY", "", "bearer key sent to LLM_URL (empty: none)"},
	{"WEBHOOK_RETRY_WINDOW", "24h", "how long a failing webhook delivery is retried (with exponential backoff) after its first attempt"},
}

// ErrHelp is returned when -help was asked for; the usage has been printed.
var ErrHelp = flag.ErrHelp

// Load parses flags (same names as the variables, lower-case with dashes) over
// the environment over the defaults. It creates DATA_DIR and the generated
// secrets when they are needed.
func Load(name string, args []string, getenv func(string) string, stderr io.Writer) (*Config, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	values := map[string]*string{}
	for _, s := range settings {
		v := getenv(s.env)
		if v == "" {
			v = s.def
		}
		values[s.env] = fs.String(flagName(s.env), v, fmt.Sprintf("%s (env %s)", s.usage, s.env))
	}
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: %s [flags]\n\nEvery flag can also be set by the environment variable named beside it.\n\n", name)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	get := func(env string) string { return strings.TrimSpace(*values[env]) }
	var errs []error
	c := &Config{
		DatabaseURL:       get("DATABASE_URL"),
		DataDir:           get("DATA_DIR"),
		BlobURL:           get("BLOB_URL"),
		Host:              get("HOST"),
		PublicBaseURL:     strings.TrimRight(get("PUBLIC_BASE_URL"), "/"),
		WebOrigins:        splitList(get("WEB_ORIGINS")),
		LogLevel:          get("LOG_LEVEL"),
		SignupMode:        get("SIGNUP_MODE"),
		GoogleClientID:    get("GOOGLE_CLIENT_ID"),
		GoogleJWKSURL:     get("GOOGLE_JWKS_URL"),
		GoogleIssuers:     splitList(get("GOOGLE_ISSUERS")),
		SMTPAddr:          get("SMTP_ADDR"),
		SMTPUser:          get("SMTP_USER"),
		SMTPPassword:      get("SMTP_PASSWORD"),
		MailFrom:          get("MAIL_FROM"),
		BillingProvider:   get("BILLING_PROVIDER"),
		Reconstructor:     get("RECONSTRUCTOR"),
		ReconstructorURL:  get("RECONSTRUCTOR_URL"),
		Queues:            splitList(get("QUEUES")),
		WorkerMetricsAddr: get("WORKER_METRICS_ADDR"),
		MetricsAddr:       get("METRICS_ADDR"),
	}
	c.Port = parseInt(get("PORT"), "PORT", &errs)
	c.DevMode = parseBool(get("DEV_MODE"), "DEV_MODE", &errs)
	c.MaxBodyBytes = int64(parseInt(get("MAX_BODY_BYTES"), "MAX_BODY_BYTES", &errs))
	c.PublicRateLimit = parseInt(get("PUBLIC_RATE_LIMIT"), "PUBLIC_RATE_LIMIT", &errs)
	c.ShopifyAPIBase = strings.TrimRight(get("SHOPIFY_API_BASE"), "/")
	c.APIKeyRateLimit = parseInt(get("API_KEY_RATE_LIMIT"), "API_KEY_RATE_LIMIT", &errs)
	c.AuthRateLimit = parseInt(get("AUTH_RATE_LIMIT"), "AUTH_RATE_LIMIT", &errs)
	c.AnalyticsCountryHeader = strings.TrimSpace(get("ANALYTICS_COUNTRY_HEADER"))
	c.AnalyticsRetentionDays = parseInt(get("ANALYTICS_RETENTION_DAYS"), "ANALYTICS_RETENTION_DAYS", &errs)
	c.AnalyticsRollupInterval = parseDuration(get("ANALYTICS_ROLLUP_INTERVAL"), "ANALYTICS_ROLLUP_INTERVAL", &errs)
	c.ReconstructWorkers = parseInt(get("RECONSTRUCT_WORKERS"), "RECONSTRUCT_WORKERS", &errs)
	c.ReconstructTimeout = parseDuration(get("RECONSTRUCT_TIMEOUT"), "RECONSTRUCT_TIMEOUT", &errs)
	if c.MaxWaitingBuilds = parseInt(get("MAX_WAITING_BUILDS"), "MAX_WAITING_BUILDS", &errs); c.MaxWaitingBuilds < 0 {
		errs = append(errs, errors.New("MAX_WAITING_BUILDS must be 0 (no limit) or more"))
	}
	c.PrivacyJobTimeout = parseDuration(get("PRIVACY_JOB_TIMEOUT"), "PRIVACY_JOB_TIMEOUT", &errs)
	c.ShutdownTimeout = parseDuration(get("SHUTDOWN_TIMEOUT"), "SHUTDOWN_TIMEOUT", &errs)
	c.WebhookAllowPrivate = parseBool(get("WEBHOOK_ALLOW_PRIVATE"), "WEBHOOK_ALLOW_PRIVATE", &errs)
	c.Pprof = parseBool(get("PPROF"), "PPROF", &errs)
	c.WebhookRetryWindow = parseDuration(get("WEBHOOK_RETRY_WINDOW"), "WEBHOOK_RETRY_WINDOW", &errs)
	c.LLMURL, c.LLMModel, c.LLMAPIKey = strings.TrimRight(get("LLM_URL"), "/"), get("LLM_MODEL"), get("LLM_API_KEY")
	c.BillingGracePeriod = parseDuration(get("BILLING_GRACE_PERIOD"), "BILLING_GRACE_PERIOD", &errs)
	c.BillingReconcileInterval = parseDuration(get("BILLING_RECONCILE_INTERVAL"), "BILLING_RECONCILE_INTERVAL", &errs)
	if h, err := strconv.ParseFloat(get("MODEL_HEIGHT_METRES"), 64); err != nil || h <= 0 || h > 100 {
		errs = append(errs, fmt.Errorf("MODEL_HEIGHT_METRES must be a positive number of metres, got %q", get("MODEL_HEIGHT_METRES")))
	} else {
		c.ModelHeightMetres = h
	}
	if c.PublicBaseURL == "" {
		c.PublicBaseURL = fmt.Sprintf("http://localhost:%d", c.Port)
		c.PublicBaseURLDefaulted = true
	}
	if u, err := url.Parse(c.PublicBaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("PUBLIC_BASE_URL must be an absolute http(s) URL, got %q", c.PublicBaseURL))
	}
	switch c.SignupMode {
	case "open", "invite":
	default:
		errs = append(errs, fmt.Errorf("SIGNUP_MODE must be open or invite, got %q", c.SignupMode))
	}
	switch c.Reconstructor {
	case "builtin":
	case "remote":
		if c.ReconstructorURL == "" {
			errs = append(errs, errors.New("RECONSTRUCTOR=remote needs RECONSTRUCTOR_URL"))
		}
	default:
		errs = append(errs, fmt.Errorf("RECONSTRUCTOR must be builtin or remote, got %q", c.Reconstructor))
	}
	if c.BillingProvider == "" {
		// Fail closed: only a development server accepts purchases unpaid.
		c.BillingProvider = "none"
		if c.DevMode {
			c.BillingProvider = "test-mode"
		}
	}
	for _, p := range splitList(get("TRUSTED_PROXIES")) {
		prefix, err := parsePrefix(p)
		if err != nil {
			errs = append(errs, fmt.Errorf("TRUSTED_PROXIES must list CIDRs like 10.0.0.0/8, got %q", p))
			continue
		}
		c.TrustedProxies = append(c.TrustedProxies, prefix)
	}
	if s := get("JWT_SECRET"); s != "" && len(s) < MinSecretBytes {
		errs = append(errs, fmt.Errorf("JWT_SECRET is %d bytes; it must be at least %d (generate one with: openssl rand -hex 32)", len(s), MinSecretBytes))
	}
	if err := checkBlobSecret(c.BlobURL); err != nil {
		errs = append(errs, err)
	}
	// Purchases granted without money, and webhooks that may reach the
	// private network, are for development: outside DEV_MODE a server
	// refuses to start with them unless the operator says so explicitly
	// (a test stack); either way every start says so (UnsafeSettings).
	if unsafe := c.UnsafeSettings(); len(unsafe) > 0 && !c.DevMode && !parseBool(get("ALLOW_UNSAFE_SETTINGS"), "ALLOW_UNSAFE_SETTINGS", &errs) {
		errs = append(errs, fmt.Errorf("%s %s for development only: set DEV_MODE=true on a development server, "+
			"or ALLOW_UNSAFE_SETTINGS=true on a test stack that must run without DEV_MODE", strings.Join(unsafe, " and "), isAre(len(unsafe))))
	}
	switch c.BillingProvider {
	case "test-mode", "none":
	case "stripe":
		c.Stripe, errs = loadStripe(get, errs)
	default:
		errs = append(errs, fmt.Errorf("BILLING_PROVIDER must be stripe, test-mode or none, got %q", c.BillingProvider))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if err := c.prepareLocalState(get("JWT_SECRET")); err != nil {
		return nil, err
	}
	return c, nil
}

// UnsafeSettings names the settings that are on and must never be on in
// production: BILLING_PROVIDER=test-mode (every purchase granted without
// money) and WEBHOOK_ALLOW_PRIVATE=true (webhooks may reach the private
// network). The api and the worker log them at error level at every start
// and expose them as photo3d_unsafe_setting.
func (c *Config) UnsafeSettings() []string {
	var out []string
	if c.BillingProvider == "test-mode" {
		out = append(out, "BILLING_PROVIDER=test-mode")
	}
	if c.WebhookAllowPrivate {
		out = append(out, "WEBHOOK_ALLOW_PRIVATE=true")
	}
	return out
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// prepareLocalState creates DATA_DIR and generated secrets only when a setting
// that needs them was left unset, so production (all set) writes nothing.
func (c *Config) prepareLocalState(jwtSecret string) error {
	if jwtSecret != "" {
		c.JWTSecret = []byte(jwtSecret)
	}
	if jwtSecret != "" && c.BlobURL != "" {
		return nil
	}
	abs, err := filepath.Abs(c.DataDir)
	if err != nil {
		return fmt.Errorf("resolve DATA_DIR: %w", err)
	}
	c.DataDir = abs
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return fmt.Errorf("create DATA_DIR %s: %w", abs, err)
	}
	if jwtSecret == "" {
		s, err := secretFile(filepath.Join(abs, "jwt-secret"))
		if err != nil {
			return err
		}
		c.JWTSecret = s
	}
	if c.BlobURL == "" {
		keyPath := filepath.Join(abs, "blob-secret")
		s, err := secretFile(keyPath)
		if err != nil {
			return err
		}
		c.BlobSecret = s
		blobs := filepath.Join(abs, "blobs")
		q := url.Values{}
		q.Set("create_dir", "1")
		q.Set("no_tmp_dir", "1")
		q.Set("base_url", c.PublicBaseURL+"/blobs")
		q.Set("secret_key_path", keyPath)
		c.BlobURL = "file://" + filepath.ToSlash(blobs) + "?" + q.Encode()
	}
	return nil
}

// MinSecretBytes is the shortest JWT_SECRET or BLOB_SECRET accepted: an
// HMAC key shorter than its 256-bit output can be brute-forced offline from
// one token or one signed URL.
const MinSecretBytes = 32

// checkBlobSecret refuses a file store whose signing key file (BLOB_SECRET,
// mounted at secret_key_path) is shorter than MinSecretBytes. fileblob reads
// the file verbatim, so its length is what counts.
func checkBlobSecret(blobURL string) error {
	u, err := url.Parse(blobURL)
	if err != nil || u.Scheme != "file" {
		return nil
	}
	path := u.Query().Get("secret_key_path")
	if path == "" {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read BLOB_URL secret_key_path %s: %w", path, err)
	}
	if len(b) < MinSecretBytes {
		return fmt.Errorf("BLOB_SECRET (%s) is %d bytes; it must be at least %d (generate one with: openssl rand -hex 32)", path, len(b), MinSecretBytes)
	}
	return nil
}

// parsePrefix accepts a CIDR or a single address (a /32 or /128).
func parsePrefix(s string) (netip.Prefix, error) {
	if !strings.Contains(s, "/") {
		a, err := netip.ParseAddr(s)
		if err != nil {
			return netip.Prefix{}, err
		}
		return netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()), nil
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, err
	}
	return p.Masked(), nil
}

// secretFile reads a secret, generating 32 random bytes (hex) on first use.
func secretFile(path string) ([]byte, error) {
	if b, err := os.ReadFile(path); err == nil && len(strings.TrimSpace(string(b))) >= 32 {
		return []byte(strings.TrimSpace(string(b))), nil
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return nil, fmt.Errorf("generate secret: %w", err)
	}
	s := hex.EncodeToString(raw)
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return []byte(s), nil
}

// Addr is the api's listen address.
func (c *Config) Addr() string { return fmt.Sprintf("%s:%d", c.Host, c.Port) }

func flagName(env string) string { return strings.ReplaceAll(strings.ToLower(env), "_", "-") }

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func parseInt(s, name string, errs *[]error) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		*errs = append(*errs, fmt.Errorf("%s must be a non-negative integer, got %q", name, s))
	}
	return n
}

func parseBool(s, name string, errs *[]error) bool {
	b, err := strconv.ParseBool(s)
	if err != nil {
		*errs = append(*errs, fmt.Errorf("%s must be true or false, got %q", name, s))
	}
	return b
}

func parseDuration(s, name string, errs *[]error) time.Duration {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		*errs = append(*errs, fmt.Errorf("%s must be a positive duration like 30s or 5m, got %q", name, s))
	}
	return d
}

// Logger builds the process's JSON structured logger at LOG_LEVEL.
func (c *Config) Logger(w io.Writer) *slog.Logger {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.LogLevel)); err != nil {
		level = slog.LevelInfo
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level}))
}

// RequireDatabase explains what to do when DATABASE_URL is missing.
func (c *Config) RequireDatabase() error {
	if c.DatabaseURL == "" {
		return errors.New("DATABASE_URL is not set: run `make run` (it starts a local Postgres and sets it) or export DATABASE_URL=postgres://user:pass@host:5432/db")
	}
	return nil
}
