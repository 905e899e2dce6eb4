package httpapi

import (
	"net/http"

	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/privacy"
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

// requestExport serves POST /api/users/me/export: a ZIP of the account's
// data is built by a job; 202 with the export's status. Session-only: a
// key in a shop's config must not be able to walk off with every lead.
func requestExport(x *privacy.Exports) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		e, err := x.Request(r.Context(), currentUser(r))
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusAccepted, e)
		return nil
	}
}

// getExport serves GET /api/users/me/export: {status, url} with a fresh,
// short-lived download link while the export is ready.
func getExport(x *privacy.Exports) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		e, err := x.Latest(r.Context(), currentUser(r))
		if err != nil {
			return err
		}
		w.Header().Set("Cache-Control", "no-store")
		WriteJSON(w, http.StatusOK, e)
		return nil
	}
}
