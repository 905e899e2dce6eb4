package httpapi

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/photo3d/photo3d/internal/webhook"
)

// mountWebhooks adds the merchant's webhook routes (issue 17).
func mountWebhooks(r chi.Router, s *webhook.Service) {
	if s == nil {
		return
	}
	r.Method("GET", "/webhooks", listWebhooks(s))
	r.Method("POST", "/webhooks", createWebhook(s))
	r.Method("DELETE", "/webhooks/{id}", deleteWebhook(s))
	r.Method("POST", "/webhooks/{id}/test", testWebhook(s))
	r.Method("GET", "/webhooks/{id}/deliveries", webhookDeliveries(s))
}

// listWebhooks serves GET /api/webhooks: the caller's endpoints, no secrets.
func listWebhooks(s *webhook.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		list, err := s.List(r.Context(), currentWorkspace(r))
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, map[string]any{"items": list, "eventTypes": webhook.EventTypes})
		return nil
	}
}

// createWebhook serves POST /api/webhooks {url, events, secret?}; the answer
// carries the signing secret, shown this once: an idempotent retry gets the
// endpoint with "secret": null and a note (the secret is never stored with
// the replay).
func createWebhook(s *webhook.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var in webhook.Input
		if err := DecodeJSON(r, &in); err != nil {
			return err
		}
		c, err := s.Create(r.Context(), currentWorkspace(r), in)
		if err != nil {
			return err
		}
		replayAs(r, c.Replay())
		WriteJSON(w, http.StatusCreated, c)
		return nil
	}
}

// deleteWebhook serves DELETE /api/webhooks/{id}.
func deleteWebhook(s *webhook.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := s.Remove(r.Context(), currentWorkspace(r), chi.URLParam(r, "id")); err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, map[string]bool{"deleted": true})
		return nil
	}
}

// testWebhook serves POST /api/webhooks/{id}/test: queues a webhook.test
// delivery (the worker sends it) and answers 202 with its log line.
func testWebhook(s *webhook.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		d, err := s.Test(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"))
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusAccepted, d)
		return nil
	}
}

// webhookDeliveries serves GET /api/webhooks/{id}/deliveries?limit= (newest
// first, default 50, at most 100).
func webhookDeliveries(s *webhook.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		limit, err := webhook.ParseLimit(r.URL.Query().Get("limit"))
		if err != nil {
			return err
		}
		list, err := s.Deliveries(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"), limit)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, map[string]any{"items": list})
		return nil
	}
}
