package httpapi

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/httprate"

	"github.com/photo3d/photo3d/internal/channels/googlefeed"
)

// mountFeedSettings adds Settings → Channels' feed routes (issue 32):
// GET /api/channels/google-feed → {"url"} (the token is made on first
// use) and POST /api/channels/google-feed/rotate → {"url"} (a new token;
// the old URL answers 404 at once).
func mountFeedSettings(r chi.Router, feeds *googlefeed.Service) {
	if feeds == nil {
		return
	}
	r.Method("GET", "/channels/google-feed", Handler(func(w http.ResponseWriter, r *http.Request) error {
		tok, err := feeds.Token(r.Context(), currentWorkspace(r))
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, map[string]string{"url": feeds.URL(tok)})
		return nil
	}))
	r.Method("POST", "/channels/google-feed/rotate", Handler(func(w http.ResponseWriter, r *http.Request) error {
		tok, err := feeds.Rotate(r.Context(), currentWorkspace(r))
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, map[string]string{"url": feeds.URL(tok)})
		return nil
	}))
}

// mountFeeds adds GET /feeds/{token}/google.xml on the shopper router,
// rate-limited per address like the public pages. An unknown or rotated
// token is a plain 404.
func mountFeeds(r chi.Router, feeds *googlefeed.Service, perMinute int) {
	if feeds == nil {
		return
	}
	if perMinute <= 0 {
		perMinute = DefaultPublicRateLimit
	}
	r.With(httprate.Limit(perMinute, time.Minute, httprate.WithKeyFuncs(httprate.KeyByIP), noRateHeaders)).
		Get("/feeds/{token}/google.xml", func(w http.ResponseWriter, r *http.Request) {
			body, err := feeds.Feed(r.Context(), chi.URLParam(r, "token"))
			if errors.Is(err, googlefeed.ErrUnknownToken) {
				http.NotFound(w, r)
				return
			}
			if err != nil {
				LoggerFrom(r.Context()).Error("google feed failed", "err", err)
				w.Header().Set("Retry-After", "60")
				http.Error(w, "The feed is temporarily unavailable.", http.StatusServiceUnavailable)
				return
			}
			h := w.Header()
			h.Set("Content-Type", "application/xml; charset=utf-8")
			h.Set("Cache-Control", "private, max-age=300")
			h.Set("X-Robots-Tag", "noindex")
			h.Set("Content-Length", strconv.Itoa(len(body)))
			_, _ = w.Write(body)
		})
}
