// Package httpapi is Photo3D's HTTP surface: routes.go lists every route in
// one place, errors.go is the only place error kinds become HTTP statuses, and
// every JSON answer uses the envelope {"success":true,"data":…} or
// {"success":false,"error":{"code":…,"message":…}} that the web client unwraps.
package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"

	"github.com/photo3d/photo3d/internal/fault"
)

type envelope struct {
	Success bool       `json:"success"`
	Data    any        `json:"data,omitempty"`
	Error   *errorBody `json:"error,omitempty"`
}

type errorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// WriteJSON writes a success envelope around data.
func WriteJSON(w http.ResponseWriter, status int, data any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(envelope{Success: true, Data: data})
}

// DecodeJSON reads a JSON body into v with clear messages for the usual
// mistakes; the body size is already capped by the limitBody middleware.
func DecodeJSON(r *http.Request, v any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, _ := mime.ParseMediaType(ct)
		if mt != "application/json" {
			return fault.New(fault.UnsupportedMedia, "unsupported_media_type", "Send the request body as JSON (Content-Type: application/json).")
		}
	}
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			return err // mapped to 413 by errors.go
		case errors.Is(err, io.EOF):
			return fault.New(fault.Invalid, "invalid_json", "The request body is empty; send a JSON object.")
		default:
			var typeErr *json.UnmarshalTypeError
			if errors.As(err, &typeErr) && typeErr.Field != "" {
				return fault.Invalidf("invalid_json", "The field %q has the wrong type.", typeErr.Field)
			}
			return fault.Wrap(err, fault.Invalid, "invalid_json", "The request body is not valid JSON.")
		}
	}
	// One JSON value per body: anything after it (a second object, stray
	// bytes) is a mistake or an attempt to smuggle data past a proxy.
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fault.New(fault.Invalid, "invalid_json", "The request body must hold exactly one JSON value.")
	}
	return nil
}
