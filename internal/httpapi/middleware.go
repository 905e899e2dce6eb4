package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/photo3d/photo3d/internal/eventstore"
)

type ctxKey int

const (
	requestIDKey ctxKey = iota
	loggerKey
)

var validRequestID = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// RequestIDFrom returns the request id attached by the requestID middleware.
func RequestIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

// LoggerFrom returns the request-scoped logger (with request_id), or the default.
func LoggerFrom(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(loggerKey).(*slog.Logger); ok {
		return l
	}
	return slog.Default()
}

// requestID takes a sane X-Request-Id from the client or makes one, echoes it,
// and puts it on the context, the logger and the event metadata.
func requestID(base *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			id := r.Header.Get("X-Request-Id")
			if !validRequestID.MatchString(id) {
				b := make([]byte, 8)
				_, _ = rand.Read(b)
				id = hex.EncodeToString(b)
			}
			w.Header().Set("X-Request-Id", id)
			ctx := context.WithValue(r.Context(), requestIDKey, id)
			ctx = context.WithValue(ctx, loggerKey, base.With("request_id", id))
			md := eventstore.MetadataFrom(ctx)
			md.RequestID, md.CorrelationID = id, id
			ctx = eventstore.WithMetadata(ctx, md)
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
				hist.WithLabelValues(route, r.Method, fmt.Sprint(rec.status)).Observe(elapsed.Seconds())
			}
			level := slog.LevelInfo
			if route == "/healthz" || route == "/metrics" || strings.HasPrefix(route, "/assets/") {
				level = slog.LevelDebug
			}
			LoggerFrom(r.Context()).Log(r.Context(), level, "http request",
				"method", r.Method, "route", route, "status", rec.status,
				"bytes", rec.bytes, "duration_ms", float64(elapsed.Microseconds())/1000)
		})
	}
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
			h := w.Header()
			h.Set("X-Content-Type-Options", "nosniff")
			h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
			if hsts {
				h.Set("Strict-Transport-Security", "max-age=31536000; includeSubDomains")
			}
			next.ServeHTTP(w, r)
		})
	}
}

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
