package events

import "time"

// User events. They describe what happened to an account; they never carry a
// password, a password hash, a reset token or a session token, because the event
// log is what analysts replay.

// UserRegistered is the first event of a user-{id} stream.
type UserRegistered struct {
	UserID    string    `json:"userId"`
	Email     string    `json:"email"`
	Name      string    `json:"name"`
	FirstName string    `json:"firstName"`
	LastName  string    `json:"lastName"`
	Method    string    `json:"method"` // "password" or "google"
	At        time.Time `json:"at"`
}

// EventType implements Event.
func (UserRegistered) EventType() string { return "user.registered.v1" }

// ProfileUpdated records the new names (already trimmed and rebuilt).
type ProfileUpdated struct {
	UserID    string `json:"userId"`
	Name      string `json:"name"`
	FirstName string `json:"firstName"`
	LastName  string `json:"lastName"`
}

// EventType implements Event.
func (ProfileUpdated) EventType() string { return "user.profile_updated.v1" }

// AvatarChanged records a new avatar blob key, or removal when AvatarKey is empty.
type AvatarChanged struct {
	UserID    string `json:"userId"`
	AvatarKey string `json:"avatarKey,omitempty"`
}

// EventType implements Event.
func (AvatarChanged) EventType() string { return "user.avatar_changed.v1" }

// BrandingUpdated records the merchant's brand shown on share pages and embeds.
type BrandingUpdated struct {
	UserID     string `json:"userId"`
	BrandName  string `json:"brandName"`
	BrandColor string `json:"brandColor"`
	LogoKey    string `json:"logoKey,omitempty"`
}

// EventType implements Event.
func (BrandingUpdated) EventType() string { return "user.branding_updated.v1" }

// PasswordResetRequested records that a reset mail was sent. The token itself
// lives only (hashed) in the password_resets table.
type PasswordResetRequested struct {
	UserID string    `json:"userId"`
	At     time.Time `json:"at"`
}

// EventType implements Event.
func (PasswordResetRequested) EventType() string { return "user.password_reset_requested.v1" }

// PasswordChanged records that the password was changed (by reset), without it.
type PasswordChanged struct {
	UserID string    `json:"userId"`
	At     time.Time `json:"at"`
}

// EventType implements Event.
func (PasswordChanged) EventType() string { return "user.password_changed.v1" }

func userEvents() []Event {
	return []Event{UserRegistered{}, ProfileUpdated{}, AvatarChanged{}, BrandingUpdated{},
		PasswordResetRequested{}, PasswordChanged{}}
}
