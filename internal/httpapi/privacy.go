package httpapi

import (
	"net/http"

	"github.com/photo3d/photo3d/internal/account"
)

// MsgErasureAccepted answers DELETE /api/users/me: the account is closed
// at once, the data goes in the background.
const MsgErasureAccepted = "Your account is being deleted. You have been signed out everywhere; we'll email you when your data is gone."

// deleteMe serves DELETE /api/users/me {"password"} (or {"googleCredential"}
// for an account without a password): issue 31 part 2. Session-only.
func deleteMe(accounts *account.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Password         string `json:"password"`
			GoogleCredential string `json:"googleCredential"`
		}
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		err := accounts.RequestErasure(r.Context(), currentUser(r),
			account.ErasureConfirmation{Password: body.Password, GoogleCredential: body.GoogleCredential})
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusAccepted, messageAnswer{Message: MsgErasureAccepted})
		return nil
	}
}
