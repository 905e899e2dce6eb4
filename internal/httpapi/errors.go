package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/worklimit"
)

// statusOf is the single mapping from failure kinds to HTTP statuses.
func statusOf(k fault.Kind) int {
	switch k {
	case fault.Invalid:
		return http.StatusBadRequest
	case fault.Unauthorized:
		return http.StatusUnauthorized
	case fault.Forbidden:
		return http.StatusForbidden
	case fault.NotFound:
		return http.StatusNotFound
	case fault.Conflict:
		return http.StatusConflict
	case fault.PaymentRequired:
		return http.StatusPaymentRequired
	case fault.TooLarge:
		return http.StatusRequestEntityTooLarge
	case fault.UnsupportedMedia:
		return http.StatusUnsupportedMediaType
	case fault.RateLimited:
		return http.StatusTooManyRequests
	case fault.Unavailable:
		return http.StatusServiceUnavailable
	case fault.Unprocessable:
		return http.StatusUnprocessableEntity
	}
	return http.StatusInternalServerError
}

// classify turns any error into the status, code and message a user sees.
// Only *fault.Error messages (and a few well-known library errors) are shown;
// everything else becomes a generic 500 whose details go to the log.
func classify(err error) (status int, code, message string, internal bool) {
	if fe, ok := fault.As(err); ok {
		return statusOf(fe.Kind), fe.Code, fe.Message, false
	}
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return http.StatusRequestEntityTooLarge, "body_too_large", "The request body is too large.", false
	case errors.Is(err, eventstore.ErrConflict):
		return http.StatusConflict, "conflict", "This item was changed at the same time by another request. Please try again.", false
	case errors.Is(err, context.Canceled):
		return 499, "canceled", "The request was canceled.", false
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusServiceUnavailable, "timeout", "The server took too long to answer. Please try again.", true
	}
	return http.StatusInternalServerError, "internal", "Something went wrong on our side. Please try again.", true
}

// WriteError writes the error envelope for err and logs internal errors with
// the request id (never their details to the user).
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	status, code, message, internal := classify(err)
	logger := LoggerFrom(r.Context())
	if internal {
		logger.Error("request failed", "status", status, "err", err)
	} else if status >= 500 {
		logger.Warn("request failed", "status", status, "code", code, "err", err)
	} else {
		logger.Debug("request refused", "status", status, "code", code, "err", err)
	}
	if status == http.StatusTooManyRequests && w.Header().Get("Retry-After") == "" {
		// The reference promises every 429 a Retry-After; refusals without
		// a limiter's own figure (builds_queued: a build takes seconds to a
		// minute) say 10 seconds.
		w.Header().Set("Retry-After", "10")
	}
	if status == http.StatusServiceUnavailable && w.Header().Get("Retry-After") == "" {
		// A busy or unavailable answer says when to come back (the
		// process-wide limit on heavy work, worklimit, is full for
		// seconds at a time).
		w.Header().Set("Retry-After", worklimit.RetryAfter)
	}
	writeErrorBody(w, status, code, message)
}

func writeErrorBody(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(envelope{Error: &errorBody{Code: code, Message: message}})
}

// Handler is an HTTP handler that returns an error instead of writing it, so
// every failure goes through WriteError.
type Handler func(w http.ResponseWriter, r *http.Request) error

func (h Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := h(w, r); err != nil {
		WriteError(w, r, err)
	}
}
