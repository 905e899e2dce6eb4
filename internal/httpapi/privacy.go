package httpapi

import (
	"net/http"

	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/fault"
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
			DeleteWorkspace  bool   `json:"deleteWorkspace"`
		}
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		err := accounts.RequestErasure(r.Context(), currentPerson(r),
			account.ErasureConfirmation{Password: body.Password, GoogleCredential: body.GoogleCredential, DeleteWorkspace: body.DeleteWorkspace})
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
		who, err := exportSubject(r)
		if err != nil {
			return err
		}
		e, err := x.Request(r.Context(), who)
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
		who, err := exportSubject(r)
		if err != nil {
			return err
		}
		e, err := x.Latest(r.Context(), who)
		if err != nil {
			return err
		}
		w.Header().Set("Cache-Control", "no-store")
		WriteJSON(w, http.StatusOK, e)
		return nil
	}
}

// exportSubject is the account whose data an export holds: the person's,
// with their own workspace, which they must be acting in and own (the
// route is the owner's). Another workspace's data is not theirs to take.
func exportSubject(r *http.Request) (string, error) {
	if currentWorkspace(r) != currentPerson(r) {
		return "", fault.New(fault.Forbidden, "own_workspace_only",
			"Download my data exports your own account and workspace. Switch to your own workspace first.")
	}
	return currentPerson(r), nil
}
