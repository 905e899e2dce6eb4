package httpapi

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"log/slog"
	mrand "math/rand/v2"
	"net/http"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/photo3d/photo3d/internal/eventstore"
)

type ctxKey int

const (
	requestIDKey ctxKey = iota
)

// reqInfo is the one context value requestID adds: the id, and the
// request-scoped logger made only when something logs (most requests log
// nothing but the observe line, which names the id itself).
type reqInfo struct {
	id   string
	base *slog.Logger
	once sync.Once
	log  *slog.Logger
}

func (ri *reqInfo) logger() *slog.Logger {
	ri.once.Do(func() { ri.log = ri.base.With("request_id", ri.id) })
	return ri.log
}

// RequestIDFrom returns the request id attached by the requestID middleware.
func RequestIDFrom(ctx context.Context) string {
	if ri, ok := ctx.Value(requestIDKey).(*reqInfo); ok {
		return ri.id
	}
	return ""
}

// LoggerFrom returns the request-scoped logger (with request_id), or the default.
func LoggerFrom(ctx context.Context) *slog.Logger {
	if ri, ok := ctx.Value(requestIDKey).(*reqInfo); ok {
		return ri.logger()
	}
	return slog.Default()
}

// validRequestID accepts a client's X-Request-Id of 1–64 characters from
// [A-Za-z0-9._-] (anything else could forge log lines or headers).
func validRequestID(id string) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// newRequestID is 16 hex digits from the runtime's ChaCha8 generator: a
// correlation id, not a secret, and no allocation but the string.
func newRequestID() string {
	var b [16]byte
	hex.Encode(b[:], binary.LittleEndian.AppendUint64(make([]byte, 0, 8), mrand.Uint64()))
	return string(b[:])
}

// requestID takes a sane X-Request-Id from the client or makes one, echoes it,
// and puts it on the context, the logger and the event metadata.
func requestID(base *slog.Logger) func(http.Handler) http.Handler {
	return requestIDFor(base, true)
}

// requestIDFor is requestID; without events, reads (GET, HEAD) skip the
// event metadata: the shopper-facing chain, whose page views append nothing.
func requestIDFor(base *slog.Logger, events bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			id := r.Header.Get("X-Request-Id")
			if !validRequestID(id) {
				id = newRequestID()
			}
			w.Header()["X-Request-Id"] = []string{id}
			ctx := context.WithValue(r.Context(), requestIDKey, &reqInfo{id: id, base: base})
			if events || r.Method != http.MethodGet && r.Method != http.MethodHead {
				md := eventstore.MetadataFrom(ctx)
				md.RequestID, md.CorrelationID = id, id
				ctx = eventstore.WithMetadata(ctx, md)
			}
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}

type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	n, err := s.ResponseWriter.Write(b)
	s.bytes += n
	return n, err
}

// Unwrap lets http.ResponseController reach the underlying writer (flush, deadlines).
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

func routePattern(r *http.Request) string {
	if rc := chi.RouteContext(r.Context()); rc != nil {
		if p := rc.RoutePattern(); p != "" {
			return p
		}
	}
	return "unmatched"
}

// observe logs every request as one JSON line and records its duration by
// route pattern (never the raw path, which would explode label cardinality).
func observe(hist *prometheus.HistogramVec) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			rec := &statusRecorder{ResponseWriter: w}
			next.ServeHTTP(rec, r)
			if rec.status == 0 {
				rec.status = http.StatusOK
			}
			route := routePattern(r)
			elapsed := time.Since(start)
			if hist != nil {
				hist.WithLabelValues(route, r.Method, statusText(rec.status)).Observe(elapsed.Seconds())
			}
			level := slog.LevelInfo
			if quietRoute(route) {
				level = slog.LevelDebug
			}
			ri, _ := r.Context().Value(requestIDKey).(*reqInfo)
			log := slog.Default()
			if ri != nil {
				log = ri.base
			}
			if !log.Enabled(r.Context(), level) {
				return // nothing to format: the share page's hot path at LOG_LEVEL=info
			}
			id := ""
			if ri != nil {
				id = ri.id
			}
			log.Log(r.Context(), level, "http request", "request_id", id,
				"method", r.Method, "route", route, "status", rec.status,
				"bytes", rec.bytes, "duration_ms", float64(elapsed.Microseconds())/1000)
		})
	}
}

// quietRoute: requests logged at Debug only. Probes, hashed assets, and the
// shopper-facing pages and beacons: one Info line per share page view was a
// large share of a view's cost under load, and views are recorded as
// analytics events anyway (the metrics histogram still sees every request).
func quietRoute(route string) bool {
	return route == "/healthz" || route == "/metrics" || route == "/t" ||
		strings.HasPrefix(route, "/assets/") || strings.HasPrefix(route, "/v/") || strings.HasPrefix(route, "/embed/")
}

// statusText is the status code as a metrics label, without allocating for
// the common ones.
func statusText(code int) string {
	switch code {
	case 200:
		return "200"
	case 204:
		return "204"
	case 304:
		return "304"
	case 404:
		return "404"
	case 429:
		return "429"
	}
	return strconv.Itoa(code)
}

// recoverer turns a panic into a logged 500 envelope instead of a dropped connection.
func recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				LoggerFrom(r.Context()).Error("panic serving request", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				writeErrorBody(w, http.StatusInternalServerError, "internal", "Something went wrong on our side. Please try again.")
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// limitBody caps request bodies; routes that accept files raise the cap
// themselves with http.MaxBytesReader before reading.
func limitBody(max int64) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.ContentLength > max && !allowsLargeBody(r) {
				writeErrorBody(w, http.StatusRequestEntityTooLarge, "body_too_large", "The request body is too large.")
				return
			}
			if !allowsLargeBody(r) {
				r.Body = http.MaxBytesReader(w, r.Body, max)
			}
			next.ServeHTTP(w, r)
		})
	}
}

type largeBodyKey struct{}

// allowLargeBody marks a route group whose handlers enforce their own limits.
func allowLargeBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), largeBodyKey{}, true)))
	})
}

func allowsLargeBody(r *http.Request) bool {
	v, _ := r.Context().Value(largeBodyKey{}).(bool)
	return v
}

// cors allows the configured web origins (the Vite dev server, a separate
// front-end host) to call /api with credentials in the Authorization header.
func cors(origins []string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			origin := r.Header.Get("Origin")
			if origin != "" && slices.Contains(origins, origin) {
				h := w.Header()
				h.Set("Access-Control-Allow-Origin", origin)
				h.Add("Vary", "Origin")
				h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, X-Request-Id, Idempotency-Key")
				h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE, OPTIONS")
				h.Set("Access-Control-Expose-Headers", "X-Request-Id, Location, Idempotent-Replayed, Retry-After")
				h.Set("Access-Control-Max-Age", "600")
				if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
					w.WriteHeader(http.StatusNoContent)
					return
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}

// securityHeaders sets safe defaults; public viewer pages override CSP and
// framing. With an https PUBLIC_BASE_URL browsers are told to never use
// plain http for this host again (HSTS), so a network attacker cannot strip
// TLS from a returning user's first request.
func securityHeaders(hsts bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// Shared, never-mutated value slices: no allocation per request.
			h := w.Header()
			h["X-Content-Type-Options"] = hdrNosniff
			h["Referrer-Policy"] = hdrReferrer
			if hsts {
				h["Strict-Transport-Security"] = hdrHSTS
			}
			next.ServeHTTP(w, r)
		})
	}
}

var (
	hdrNosniff  = []string{"nosniff"}
	hdrReferrer = []string{"strict-origin-when-cross-origin"}
	hdrHSTS     = []string{"max-age=31536000; includeSubDomains"}
)

// AppCSP is the enforced Content-Security-Policy of the single-page app:
// scripts only from this origin (the Vite build has no inline script; the
// bundled model-viewer compiles its mesh decoder WebAssembly, hence
// 'wasm-unsafe-eval', which allows no JavaScript eval) and Google's sign-in
// client; never framed (clickjacking of account and billing pages).
// assetOrigins are where models, photos and avatars come from besides this
// origin: PUBLIC_BASE_URL's origin (the URLs the api hands out name it, and
// the page may have been reached under another host name: that is what
// stalled the 3D viewer when a blanket "https:" was the only allowance, as
// the e2e run opens 127.0.0.1 with PUBLIC_BASE_URL on localhost) and, when
// files live in S3, "https:" for its presigned URLs.
func AppCSP(assetOrigins ...string) string {
	assets := strings.Join(append([]string{"'self'"}, assetOrigins...), " ")
	const gsi = "https://accounts.google.com/gsi/"
	return "default-src 'self'; script-src 'self' 'wasm-unsafe-eval' " + gsi + "client; " +
		"style-src 'self' 'unsafe-inline' " + gsi + "style; img-src " + assets + " data: blob:; " +
		"connect-src " + assets + " data: blob: " + gsi + "; frame-src " + gsi + "; worker-src 'self' blob:; " +
		"font-src 'self'; media-src " + assets + " blob:; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
}

// appHeaders wraps the single-page app with its enforced CSP and the
// framing ban (X-Frame-Options for browsers without frame-ancestors).
func appHeaders(csp string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Frame-Options", "DENY")
		next.ServeHTTP(w, r)
	})
}
