package events

import "time"

// API key events (issue 17): an apikey-{id} stream records a key's life for
// the audit trail. The key and its hash are secrets and are never here: only
// the id, the owner, the name, the displayable prefix and the scopes.

// APIKeyCreated records a new key; Prefix is the part shown in lists.
type APIKeyCreated struct {
	KeyID  string    `json:"keyId"`
	UserID string    `json:"userId"`
	Name   string    `json:"name" erase:"text"`
	Prefix string    `json:"prefix" erase:"keep"` // generated
	Scopes []string  `json:"scopes" erase:"keep"`
	At     time.Time `json:"at"`
}

// EventType implements Event.
func (APIKeyCreated) EventType() string { return "apikey.created.v1" }

// APIKeyRevoked records that a key stopped working (at once, for good).
type APIKeyRevoked struct {
	KeyID  string    `json:"keyId"`
	UserID string    `json:"userId"`
	At     time.Time `json:"at"`
}

// EventType implements Event.
func (APIKeyRevoked) EventType() string { return "apikey.revoked.v1" }

func apiKeyEvents() []Event { return []Event{APIKeyCreated{}, APIKeyRevoked{}} }
