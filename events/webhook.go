package events

import "time"

// Webhook events: a merchant's outbound endpoints, one webhook-{id} stream
// each. Only facts an analyst may read are here: the signing secret and the
// full URL (paths and queries often carry tokens, e.g. chat-app hooks) live
// in the webhook_endpoints table, never in the log; the event keeps the host.

// WebhookRegistered records a new endpoint and the event types it receives.
type WebhookRegistered struct {
	WebhookID string    `json:"webhookId"`
	UserID    string    `json:"userId"`
	Host      string    `json:"host" erase:"text"` // of the merchant's URL
	Events    []string  `json:"events" erase:"keep"`
	At        time.Time `json:"at"`
}

// EventType implements Event.
func (WebhookRegistered) EventType() string { return "webhook.registered.v1" }

// WebhookRemoved stops deliveries to an endpoint; its delivery log is kept.
type WebhookRemoved struct {
	WebhookID string    `json:"webhookId"`
	UserID    string    `json:"userId"`
	At        time.Time `json:"at"`
}

// EventType implements Event.
func (WebhookRemoved) EventType() string { return "webhook.removed.v1" }

func webhookEvents() []Event { return []Event{WebhookRegistered{}, WebhookRemoved{}} }
