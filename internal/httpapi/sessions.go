package httpapi

import (
	"fmt"
	"net/http"

	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/auth"
	"github.com/photo3d/photo3d/internal/team"
)

// sessionCheck is the accounts service as requireAuth's session check, or
// nil on routers without accounts.
func sessionCheck(accounts *account.Service, teams *team.Service) SessionChecker {
	if accounts == nil {
		return nil
	}
	if teams != nil {
		return teamSessionCheck{accounts, teams}
	}
	return accounts
}

// teamSessionCheck checks a session together with the membership of the
// workspace the request acts in, in one statement (team.Service.SessionIn),
// so teams add no round trip to a signed-in request.
type teamSessionCheck struct {
	*account.Service
	teams *team.Service
}

// logout ends the token that made the request (POST /api/auth/logout).
func logout(accounts *account.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		sess, _ := auth.SessionFrom(r.Context())
		if err := accounts.SignOut(r.Context(), sess.UserID, sess.ID, sess.ExpiresAt); err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, messageAnswer{Message: "You have been signed out."})
		return nil
	}
}

// logoutEverywhere ends every session of the user and answers with a fresh
// token for this device (POST /api/auth/logout-everywhere).
func logoutEverywhere(accounts *account.Service, tokens *auth.Tokens) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		u, err := accounts.SignOutEverywhere(r.Context(), currentPerson(r))
		if err != nil {
			return err
		}
		sess, _ := auth.SessionFrom(r.Context())
		return issueSessionIn(w, tokens, http.StatusOK, u, sess.Workspace)
	}
}

// changePassword checks the current password, sets the new one, ends every
// other session and answers with a fresh token (POST /api/users/me/password).
func changePassword(accounts *account.Service, tokens *auth.Tokens) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			CurrentPassword string `json:"currentPassword"`
			NewPassword     string `json:"newPassword"`
		}
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		u, err := accounts.ChangePassword(r.Context(), currentPerson(r), body.CurrentPassword, body.NewPassword)
		if err != nil {
			return err
		}
		sess, _ := auth.SessionFrom(r.Context())
		return issueSessionIn(w, tokens, http.StatusOK, u, sess.Workspace)
	}
}

// verifyEmail uses the link mailed at sign-up (POST /api/auth/verify-email;
// no sign-in needed, the token is the proof). The answer signs the holder in:
// a new password account has no other way to its first session.
func verifyEmail(accounts *account.Service, tokens *auth.Tokens) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Token string `json:"token"`
		}
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		u, err := accounts.VerifyEmail(r.Context(), body.Token)
		if err != nil {
			return err
		}
		token, exp, err := tokens.IssueSession(u.ID, u.SessionVersion)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, verifiedAnswer{Message: account.MsgEmailVerified,
			authAnswer: authAnswer{Token: token, User: u, ExpiresAt: exp.UnixMilli()}})
		return nil
	}
}

// resendVerification mails a new link (POST /api/users/me/verify-email).
func resendVerification(accounts *account.Service, delivery string) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		sent, err := accounts.ResendVerification(r.Context(), currentPerson(r))
		if err != nil {
			return err
		}
		if !sent {
			WriteJSON(w, http.StatusOK, messageAnswer{Message: "Your email address is already verified."})
			return nil
		}
		WriteJSON(w, http.StatusOK, messageAnswer{Message: mailed(delivery, "We have sent a new verification link to your email address.")})
		return nil
	}
}

// emailChangeAnswer answers a sign-in email change request: the message,
// the address the link went to and until when it works (the same whether
// that address already has an account or not; see account.RequestEmailChange).
type emailChangeAnswer struct {
	Message string `json:"message"`
	account.EmailChangeRequest
}

// requestEmailChange serves POST /api/users/me/email {email, password}:
// the confirmation link goes to the new address. It shares the password
// confirmations' rate limits (per account and per IP, confirmLimits), since
// it checks the current password too; session-only (sessionOnlyRoutes).
func requestEmailChange(accounts *account.Service, delivery string) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Email    string `json:"email"`
			Password string `json:"password"`
		}
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		req, err := accounts.RequestEmailChange(r.Context(), currentPerson(r), body.Email, body.Password)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusAccepted, emailChangeAnswer{
			Message:            mailed(delivery, fmt.Sprintf(account.MsgEmailChangeSent, req.Email)),
			EmailChangeRequest: req,
		})
		return nil
	}
}

// confirmEmailChange uses a link of the email change (POST
// /api/auth/confirm-email-change {token}; no sign-in needed, the token is
// the proof): the one mailed to the new address, or the undo link mailed to
// the old one. It signs nobody in: a confirmed change keeps the account's
// sessions, an undo ends them all.
func confirmEmailChange(accounts *account.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Token string `json:"token"`
		}
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		res, err := accounts.ConfirmEmailChange(r.Context(), body.Token)
		if err != nil {
			return err
		}
		msg := fmt.Sprintf(account.MsgEmailChanged, res.User.Email)
		if res.Undone {
			msg = fmt.Sprintf(account.MsgEmailUndone, res.User.Email)
		}
		WriteJSON(w, http.StatusOK, emailChangedAnswer{Message: msg, Email: res.User.Email, Undone: res.Undone})
		return nil
	}
}

// emailChangedAnswer answers an opened email change link.
type emailChangedAnswer struct {
	Message string `json:"message"`
	Email   string `json:"email"`
	Undone  bool   `json:"undone"`
}
