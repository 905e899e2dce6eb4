package httpapi

import (
	"net/http"

	"github.com/photo3d/photo3d/internal/account"
)

// publicConfigView is what the web app must know before anyone signs in.
// It holds switches only, never secrets: the route is public.
type publicConfigView struct {
	// SignupMode is "open" or "invite" (SIGNUP_MODE): in invite mode the
	// signup form shows an "Invite code" field and Google sign-up sends it.
	SignupMode string `json:"signupMode"`
	// MailDelivery is "smtp", "dev-outbox" or "none": the app says "we sent
	// you a link" only when the server really sends or keeps the mail.
	MailDelivery string `json:"mailDelivery"`
	// AIDescriptions: LLM_URL is configured, so the product page shows
	// "Generate with AI" (POST /api/products/{id}/describe).
	AIDescriptions bool `json:"aiDescriptions"`
}

// publicConfig serves GET /api/config. Without an account service (a router
// built for other tests) signups are whatever the zero config says: open.
func publicConfig(accounts *account.Service, mailDelivery string, aiDescriptions bool) Handler {
	if mailDelivery == "" {
		mailDelivery = "none"
	}
	return func(w http.ResponseWriter, r *http.Request) error {
		v := publicConfigView{SignupMode: "open", MailDelivery: mailDelivery, AIDescriptions: aiDescriptions}
		if accounts != nil {
			v.SignupMode = accounts.SignupMode()
		}
		WriteJSON(w, http.StatusOK, v)
		return nil
	}
}
