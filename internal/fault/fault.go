// Package fault is the one vocabulary of user-facing failures. Domain packages
// return *fault.Error values saying what kind of failure happened and the exact
// message a user should read; internal/httpapi/errors.go is the only place that
// turns a Kind into an HTTP status. Anything that is not a *fault.Error is an
// internal error: logged with the request id, never shown to users.
package fault

import (
	"errors"
	"fmt"
)

// Kind classifies a failure independently of transport.
type Kind int

// The kinds of failure a user can be told about.
const (
	Invalid          Kind = iota + 1 // bad input: fix the request
	Unauthorized                     // not signed in, or the token is bad or expired
	Forbidden                        // signed in but not allowed (plan, role)
	NotFound                         // missing, or someone else's (never reveal which)
	Conflict                         // duplicate or concurrent change
	PaymentRequired                  // out of credits or views
	TooLarge                         // a body or file over the limit
	UnsupportedMedia                 // a file of the wrong type
	RateLimited                      // slow down
	Unavailable                      // a dependency is down; try later
	Unprocessable                    // well-formed but refused as a whole (an Idempotency-Key reused for another request)
)

// Error is a failure with a stable machine code and a message for people.
type Error struct {
	Kind    Kind
	Code    string
	Message string
	Err     error // optional cause, for logs only
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %v", e.Message, e.Err)
	}
	return e.Message
}

// Unwrap exposes the cause to errors.Is/As.
func (e *Error) Unwrap() error { return e.Err }

// New builds an Error.
func New(kind Kind, code, message string) *Error {
	return &Error{Kind: kind, Code: code, Message: message}
}

// Wrap builds an Error that keeps err as its cause.
func Wrap(err error, kind Kind, code, message string) *Error {
	return &Error{Kind: kind, Code: code, Message: message, Err: err}
}

// As returns the *Error inside err, if any.
func As(err error) (*Error, bool) {
	var fe *Error
	ok := errors.As(err, &fe)
	return fe, ok
}

// IsKind reports whether err carries a fault of the given kind.
func IsKind(err error, kind Kind) bool {
	fe, ok := As(err)
	return ok && fe.Kind == kind
}

// NotFoundf is the common "not found" with a message naming the thing.
func NotFoundf(format string, args ...any) *Error {
	return New(NotFound, "not_found", fmt.Sprintf(format, args...))
}

// Invalidf is the common validation failure.
func Invalidf(code, format string, args ...any) *Error {
	return New(Invalid, code, fmt.Sprintf(format, args...))
}
