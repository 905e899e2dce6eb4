package events

import "time"

// User events. They describe what happened to an account; they never carry a
// password, a password hash, a reset token or a session token, because the event
// log is what analysts replay.
//
// Personal data (issue 31). Events are kept forever and read by analysts; a
// person's data must go when they ask. The two known designs are
// crypto-shredding (personal fields encrypted in the event with a per-user
// key that erasure deletes) and a mutable table keyed by the user id, with
// events carrying ids only. Photo3D uses the mutable table, user_pii
// (email, name, first and last name), because:
//   - the only personal fields events ever held were the user's address and
//     names (leads already live in product_leads, invites and verification
//     links in their own tables), so no event needs its own ciphertext;
//   - readers (projections, replay, the analyst role, webhooks) never need a
//     key service, and an erased user is simply an id with no user_pii row:
//     replays after erasure rebuild the same rows as before it, minus nothing;
//   - there is no key to lose or to back up separately, and no ciphertext left
//     in the log that a future break of the cipher would expose.
// So UserRegistered and ProfileUpdated say that something happened, by id;
// the values are in user_pii, written in the same transaction as the event.
// Events stored before that carried email and names; `worker migrate-pii`
// copies them into user_pii (if missing) and strips them from the log.
// What merchants type about their business (a brand, which for a sole
// trader is their name; product names and descriptions…) is personal data
// too, but every reader needs it, so it stays in the events and the
// erasure blanks it there (erase.go, security review 3, L7).

// UserRegistered is the first event of a user-{id} stream. The address and
// names are in user_pii (see above), never here.
type UserRegistered struct {
	UserID string    `json:"userId"`
	Method string    `json:"method" erase:"keep"` // "password" or "google"
	At     time.Time `json:"at"`
}

// EventType implements Event.
func (UserRegistered) EventType() string { return "user.registered.v1" }

// ProfileUpdated records that the user changed their names; the names
// themselves are in user_pii.
type ProfileUpdated struct {
	UserID string `json:"userId"`
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
	BrandName  string `json:"brandName" erase:"text"`
	BrandColor string `json:"brandColor" erase:"keep"` // #rrggbb
	LogoKey    string `json:"logoKey,omitempty"`
}

// EventType implements Event.
func (BrandingUpdated) EventType() string { return "user.branding_updated.v1" }

// StoreSettingsUpdated records the merchant's store-wide settings: for now
// the currency a new price starts in (issue 29 item 20). Existing prices
// keep their own currency.
type StoreSettingsUpdated struct {
	UserID          string `json:"userId"`
	DefaultCurrency string `json:"defaultCurrency" erase:"keep"`
}

// EventType implements Event.
func (StoreSettingsUpdated) EventType() string { return "user.store_settings_updated.v1" }

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

// UserErasureRequested records that the owner asked for the account to be
// deleted (with their password or a fresh Google sign-in). From this event on
// the account cannot sign in, its pages answer 410 Gone and a River job
// erases its data (internal/privacy).
type UserErasureRequested struct {
	UserID string    `json:"userId"`
	At     time.Time `json:"at"`
}

// EventType implements Event.
func (UserErasureRequested) EventType() string { return "user.erasure_requested.v1" }

// UserErased records that the erasure job finished: personal data, files,
// leads and analytics of the account are gone and its address may sign up
// again (as a new user id).
type UserErased struct {
	UserID string    `json:"userId"`
	At     time.Time `json:"at"`
}

// EventType implements Event.
func (UserErased) EventType() string { return "user.erased.v1" }

// UserDataExportReady records that a ZIP of the account's data was built
// (internal/privacy) and can be downloaded from the profile for 7 days. The
// notification is projected from it; the download link is never in the log.
type UserDataExportReady struct {
	UserID   string    `json:"userId"`
	ExportID string    `json:"exportId"`
	At       time.Time `json:"at"`
}

// EventType implements Event.
func (UserDataExportReady) EventType() string { return "user.data_export_ready.v1" }

// EmailChangeRequested records that the owner asked to change their sign-in
// address (issue 50 item 13) and a confirmation link was mailed to the new
// one. Neither address is here: the pending address is in email_changes,
// the current one in user_pii (see above).
type EmailChangeRequested struct {
	UserID string    `json:"userId"`
	At     time.Time `json:"at"`
}

// EventType implements Event.
func (EmailChangeRequested) EventType() string { return "user.email_change_requested.v1" }

// EmailChanged records that the owner opened the link mailed to their new
// address, so user_pii now holds it (and it counts as verified); the old
// address was told, without the new one in full. Undone: the old address's
// owner opened the undo link from that notice, which put it back and ended
// every session.
type EmailChanged struct {
	UserID string    `json:"userId"`
	Undone bool      `json:"undone,omitempty" erase:"keep"`
	At     time.Time `json:"at"`
}

// EventType implements Event.
func (EmailChanged) EventType() string { return "user.email_changed.v1" }

func userEvents() []Event {
	return []Event{UserRegistered{}, ProfileUpdated{}, AvatarChanged{}, BrandingUpdated{}, StoreSettingsUpdated{},
		PasswordResetRequested{}, PasswordChanged{}, UserErasureRequested{}, UserErased{}, UserDataExportReady{},
		EmailChangeRequested{}, EmailChanged{}}
}
