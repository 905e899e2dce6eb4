package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/httprate"

	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/auth"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/mail"
)

// AuthRateLimit bounds sign-in, signup and password-reset attempts per
// client IP and per e-mail address within Window, against password guessing
// and mail bombing. Zero values take the defaults.
type AuthRateLimit struct {
	PerIP    int           // default 20
	PerEmail int           // default 5
	Window   time.Duration // default 1 minute
}

func (l AuthRateLimit) withDefaults() AuthRateLimit {
	if l.PerIP <= 0 {
		l.PerIP = 20
	}
	if l.PerEmail <= 0 {
		l.PerEmail = 5
	}
	if l.Window <= 0 {
		l.Window = time.Minute
	}
	return l
}

var errTooManyAttempts = fault.New(fault.RateLimited, "rate_limited", "Too many attempts. Please wait a minute and try again.")

// authLimits returns the per-IP and per-email limiters of one route (each
// route counts on its own).
func authLimits(l AuthRateLimit) []func(http.Handler) http.Handler {
	l = l.withDefaults()
	onLimit := httprate.WithLimitHandler(func(w http.ResponseWriter, r *http.Request) { WriteError(w, r, errTooManyAttempts) })
	byIP := func(r *http.Request) (string, error) { k, err := httprate.KeyByIP(r); return "ip:" + k, err }
	return []func(http.Handler) http.Handler{
		httprate.LimitBy(l.PerIP, l.Window, byIP, onLimit),
		httprate.LimitBy(l.PerEmail, l.Window, emailKey, onLimit),
	}
}

// emailKey reads the e-mail address from a JSON body (and puts the body
// back), so attempts against one address are counted from any IP.
func emailKey(r *http.Request) (string, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			// Let the handler report the oversized body.
			r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{err}))
			ip, kerr := httprate.KeyByIP(r)
			return "no-email:" + ip, kerr
		}
		return "", err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var v struct {
		Email string `json:"email"`
	}
	// The handler's own decoder: an address it reads is the address counted
	// here (a malformed body the handler refuses still counts against any
	// address it named, and otherwise against the client).
	_ = decodeStrict(bytes.NewReader(body), &v)
	if email := account.NormalizeEmail(v.Email); email != "" {
		return "email:" + email, nil
	}
	// No address: count against the client instead of one shared bucket.
	ip, err := httprate.KeyByIP(r)
	return "no-email:" + ip, err
}

// authIPLimit is the per-IP limiter alone, for routes without an address.
func authIPLimit(l AuthRateLimit) func(http.Handler) http.Handler {
	l = l.withDefaults()
	onLimit := httprate.WithLimitHandler(func(w http.ResponseWriter, r *http.Request) { WriteError(w, r, errTooManyAttempts) })
	byIP := func(r *http.Request) (string, error) { k, err := httprate.KeyByIP(r); return "ip:" + k, err }
	return httprate.LimitBy(l.PerIP, l.Window, byIP, onLimit)
}

// confirmLimits bound the signed-in routes that check the current password
// (delete the account, change the password): without them a stolen session
// could guess the password as fast as the server hashes, then take the
// account over or delete it. They are sign-in's limits, counted per account
// (PerEmail) and per IP, and every attempt counts as on sign-in, so past the
// limit even the right password waits and a guesser learns nothing. One set
// serves both routes, so switching routes buys no guesses. The buckets are
// not sign-in's: a thief's guesses must not lock the owner out of signing in.
func confirmLimits(l AuthRateLimit) []func(http.Handler) http.Handler {
	l = l.withDefaults()
	onLimit := httprate.WithLimitHandler(func(w http.ResponseWriter, r *http.Request) { WriteError(w, r, errTooManyAttempts) })
	byIP := func(r *http.Request) (string, error) { k, err := httprate.KeyByIP(r); return "ip:" + k, err }
	byAccount := func(r *http.Request) (string, error) { return "user:" + currentPerson(r), nil }
	return []func(http.Handler) http.Handler{
		httprate.LimitBy(l.PerIP, l.Window, byIP, onLimit),
		httprate.LimitBy(l.PerEmail, l.Window, byAccount, onLimit),
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// authAnswer is the body of every successful sign-in: the web client reads
// data.token, data.user and expiresAt (epoch milliseconds), spec §3 and §7.
type authAnswer struct {
	Token     string       `json:"token"`
	User      account.User `json:"user"`
	ExpiresAt int64        `json:"expiresAt"`
}

// verifiedAnswer is the answer to a verification link: the message, and
// the session it opens (a new password account signs in only this way).
type verifiedAnswer struct {
	Message string `json:"message"`
	authAnswer
}

func issueSession(w http.ResponseWriter, tokens *auth.Tokens, status int, u account.User) error {
	return issueSessionIn(w, tokens, status, u, "")
}

// issueSessionIn is issueSession in workspace ws ("": the account's own): a
// fresh token after a password change or "sign out everywhere" keeps the
// device in the workspace it was working in.
func issueSessionIn(w http.ResponseWriter, tokens *auth.Tokens, status int, u account.User, ws string) error {
	token, exp, err := tokens.IssueSessionIn(u.ID, u.SessionVersion, ws)
	if err != nil {
		return err
	}
	WriteJSON(w, status, authAnswer{Token: token, User: u, ExpiresAt: exp.UnixMilli()})
	return nil
}

// MsgSignupAccepted is the one answer to a sign-up, new address or taken:
// a different answer (or a session token only for new accounts) would tell
// anyone which addresses have an account. The owner of a taken address gets
// a mail instead; a new user signs in by opening the mailed link (signing in
// with the password before that answers like a wrong password, for the same
// reason: issue 28 item 14).
const MsgSignupAccepted = "Thanks! Check your email: open the link we sent to finish creating your account and sign in. If this address already had an account, the mail says how to sign in or reset your password."

// MsgNoMail replaces every "we sent you a link" answer on a server that
// drops account mail (no SMTP_ADDR, no DEV_MODE): the app must never claim a
// send that did not happen (issue 29 item 9).
const MsgNoMail = "This server does not send email (no mail relay is configured), so no link was sent. Ask the person who runs it to set SMTP_ADDR, then ask for a new link."

// mailed is sent, or MsgNoMail when this server drops mail.
func mailed(delivery, sent string) string {
	if delivery == "" || delivery == "none" {
		return MsgNoMail
	}
	return sent
}

func signup(accounts *account.Service, delivery string) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Email           string  `json:"email"`
			Password        string  `json:"password"`
			Name            string  `json:"name"`
			ConfirmPassword *string `json:"confirmPassword"`
			Remember        bool    `json:"remember"`
			InviteCode      string  `json:"inviteCode"`
		}
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		_, err := accounts.Signup(r.Context(), account.SignupInput{Email: body.Email, Password: body.Password,
			Name: body.Name, Confirm: body.ConfirmPassword, InviteCode: body.InviteCode})
		if err != nil && !errors.Is(err, account.ErrEmailTaken) {
			return err
		}
		WriteJSON(w, http.StatusAccepted, messageAnswer{Message: mailed(delivery, MsgSignupAccepted)})
		return nil
	}
}

func login(accounts *account.Service, tokens *auth.Tokens) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Email    string `json:"email"`
			Password string `json:"password"`
			Remember bool   `json:"remember"`
		}
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		u, err := accounts.Login(r.Context(), body.Email, body.Password)
		if err != nil {
			return err
		}
		return issueSession(w, tokens, http.StatusOK, u)
	}
}

func googleLogin(accounts *account.Service, tokens *auth.Tokens) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Credential string `json:"credential"`
			Remember   bool   `json:"remember"`
			InviteCode string `json:"inviteCode"`
		}
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		u, err := accounts.Google(r.Context(), body.Credential, body.InviteCode)
		if err != nil {
			return err
		}
		return issueSession(w, tokens, http.StatusOK, u)
	}
}

// googleNonce starts a Google sign-in attempt (POST /api/auth/google/nonce):
// the web passes the nonce to Google Identity Services, and /auth/google
// accepts the resulting ID token once (account.Service.GoogleNonce).
func googleNonce(accounts *account.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		nonce, expires, err := accounts.GoogleNonce(r.Context())
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, struct {
			Nonce     string `json:"nonce"`
			ExpiresAt int64  `json:"expiresAt"`
		}{nonce, expires.UnixMilli()})
		return nil
	}
}

type messageAnswer struct {
	Message string `json:"message"`
}

// MsgResetRequested is the same answer whether or not the address has an account.
const MsgResetRequested = "If an account exists for this email, we have sent a link to reset the password. It works once, for one hour."

func forgotPassword(accounts *account.Service, delivery string) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Email string `json:"email"`
		}
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		if err := accounts.RequestPasswordReset(r.Context(), body.Email); err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, messageAnswer{Message: mailed(delivery, MsgResetRequested)})
		return nil
	}
}

// resendVerificationPublic serves POST /api/auth/resend-verification
// {email}: a new link for an account waiting for verification, and the same
// answer for every address (account.MsgResendAnswer).
func resendVerificationPublic(accounts *account.Service, delivery string) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Email string `json:"email"`
		}
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		if err := accounts.ResendVerificationTo(r.Context(), body.Email); err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, messageAnswer{Message: mailed(delivery, account.MsgResendAnswer)})
		return nil
	}
}

func resetPassword(accounts *account.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Token    string `json:"token"`
			Password string `json:"password"`
		}
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		if err := accounts.ResetPassword(r.Context(), body.Token, body.Password); err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, messageAnswer{Message: "Your password has been changed. You can now sign in."})
		return nil
	}
}

func getMe(accounts *account.Service, d Deps) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		u, err := accounts.Get(r.Context(), d.DB, currentPerson(r))
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, u)
		return nil
	}
}

func patchMe(accounts *account.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			FirstName *string         `json:"firstName"`
			LastName  *string         `json:"lastName"`
			AvatarURL json.RawMessage `json:"avatarUrl"`
		}
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		p := account.ProfilePatch{FirstName: body.FirstName, LastName: body.LastName}
		if body.AvatarURL != nil {
			p.AvatarURL.Set = true
			if string(body.AvatarURL) != "null" {
				var s string
				if err := json.Unmarshal(body.AvatarURL, &s); err != nil {
					return fault.Invalidf("invalid_json", "The field %q has the wrong type.", "avatarUrl")
				}
				p.AvatarURL.Value = &s
			}
		}
		u, err := accounts.UpdateProfile(r.Context(), currentPerson(r), p)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, u)
		return nil
	}
}

// multipartSlack covers the multipart framing around a file part.
const multipartSlack = 64 << 10

var (
	errAccountNotMultipart = fault.New(fault.UnsupportedMedia, "unsupported_media_type", `Send the image as multipart/form-data in a field named "file".`)
	errAccountNoFile       = fault.New(fault.Invalid, "file_required", `Choose an image file to upload (form field "file").`)
)

// readUpload returns the bytes of the multipart field "file", refusing with
// tooLarge as soon as more than max bytes arrive (the limit is enforced, not
// just stated).
func readUpload(w http.ResponseWriter, r *http.Request, max int64, tooLarge error) ([]byte, error) {
	if r.ContentLength > max+multipartSlack {
		return nil, tooLarge
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "multipart/form-data" {
		return nil, errAccountNotMultipart
	}
	r.Body = http.MaxBytesReader(w, r.Body, max+multipartSlack)
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, errAccountNotMultipart
	}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return nil, errAccountNoFile
		}
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				return nil, tooLarge
			}
			return nil, fault.Wrap(err, fault.Invalid, "invalid_multipart", "The upload could not be read. Please try again.")
		}
		if part.FormName() != "file" {
			_ = part.Close()
			continue
		}
		data, err := io.ReadAll(io.LimitReader(part, max+1))
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				return nil, tooLarge
			}
			return nil, fault.Wrap(err, fault.Invalid, "invalid_multipart", "The upload could not be read. Please try again.")
		}
		if int64(len(data)) > max {
			return nil, tooLarge
		}
		if len(data) == 0 {
			return nil, errAccountNoFile
		}
		return data, nil
	}
}

// Size errors of account uploads, raised before the bytes reach the service.
var (
	errAvatarTooLarge = fault.New(fault.TooLarge, "file_too_large", "Avatar images must be 5 MB or smaller.")
	errLogoTooLarge   = fault.New(fault.TooLarge, "file_too_large", "Logos must be 2 MB or smaller.")
)

func uploadAvatar(accounts *account.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		data, err := readUpload(w, r, account.MaxAvatarBytes, errAvatarTooLarge)
		if err != nil {
			return err
		}
		u, err := accounts.SetAvatar(r.Context(), currentPerson(r), data)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, u)
		return nil
	}
}

func deleteAvatar(accounts *account.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		u, err := accounts.RemoveAvatar(r.Context(), currentPerson(r))
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, u)
		return nil
	}
}

func getBranding(accounts *account.Service, d Deps) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		b, err := accounts.Branding(r.Context(), d.DB, currentWorkspace(r))
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, b)
		return nil
	}
}

func putBranding(accounts *account.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			BrandName  string `json:"brandName"`
			BrandColor string `json:"brandColor"`
		}
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		b, err := accounts.UpdateBranding(r.Context(), currentWorkspace(r), body.BrandName, body.BrandColor)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, b)
		return nil
	}
}

// getStoreSettings answers the merchant's store settings; defaultCurrency
// is null until chosen.
func getStoreSettings(accounts *account.Service, d Deps) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		st, err := accounts.StoreSettings(r.Context(), d.DB, currentWorkspace(r))
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, st)
		return nil
	}
}

// putStoreSettings sets the default currency (one of internal/currency's
// codes; anything else is a 400 invalid_currency naming the list).
func putStoreSettings(accounts *account.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			DefaultCurrency string `json:"defaultCurrency"`
		}
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		st, err := accounts.UpdateStoreSettings(r.Context(), currentWorkspace(r), body.DefaultCurrency)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, st)
		return nil
	}
}

func uploadLogo(accounts *account.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		data, err := readUpload(w, r, account.MaxLogoBytes, errLogoTooLarge)
		if err != nil {
			return err
		}
		b, err := accounts.SetLogo(r.Context(), currentWorkspace(r), data)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, b)
		return nil
	}
}

func deleteLogo(accounts *account.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		b, err := accounts.RemoveLogo(r.Context(), currentWorkspace(r))
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, b)
		return nil
	}
}

// devOutbox lists mail the server would have sent to the signed-in user's
// own address (DEV_MODE only; the route does not exist otherwise). Other
// people's mail holds their reset and verification links.
func devOutbox(outbox mail.Lister, accounts *account.Service, d Deps) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		u, err := accounts.Get(r.Context(), d.DB, currentPerson(r))
		if err != nil {
			return err
		}
		mine := []mail.Message{}
		for _, m := range outbox.List() {
			if strings.EqualFold(m.To, u.Email) {
				mine = append(mine, m)
			}
		}
		WriteJSON(w, http.StatusOK, map[string]any{"messages": mine})
		return nil
	}
}

// accountUploadRoutes lets the avatar and logo uploads past limitBody's
// JSON-sized cap; readUpload enforces their own limits. Like
// largeBodyRoutes it must run before limitBody, so it matches paths.
func accountUploadRoutes(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && (r.URL.Path == "/api/users/me/avatar" || r.URL.Path == "/api/branding/logo") {
			allowLargeBody(next).ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// isMediaKey admits only the public image prefixes, never other blobs
// (photos, models), which stay behind signed URLs.
func isMediaKey(key string) bool {
	return (strings.HasPrefix(key, "avatars/") || strings.HasPrefix(key, "logos/")) &&
		!strings.Contains(key, "..") && !strings.Contains(key, "//")
}
