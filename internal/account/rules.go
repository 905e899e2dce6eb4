// Package account owns Photo3D's users: sign-up, sign-in (password and
// Google), profiles and avatars, branding, password resets and invite codes.
//
// The user-{id} stream records what happened to an account; the users and
// branding tables are its inline read models. Secrets (argon2id password
// hashes, reset tokens, invite codes) and identities (Google subjects) live in
// their own tables and never in an event, because the event log is what
// analysts replay. The validation rules and messages of spec §3 and §5 are
// pure functions in this file.
package account

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/photo3d/photo3d/internal/fault"
)

// MinPasswordLength is spec §9's "Minimum password length 8".
const MinPasswordLength = 8

// Branding defaults (spec §9 "Default brand colour #2E5BBA").
const (
	DefaultBrandName  = "Your Brand"
	DefaultBrandColor = "#2E5BBA"
)

// Messages the spec names, word for word (§5), plus the server's own.
const (
	MsgEnterEmail        = "Please enter your email address"
	MsgValidEmail        = "Please enter a valid email address"
	MsgEnterPassword     = "Please enter your password"
	MsgFillAllFields     = "Please fill in all fields"
	MsgPasswordTooShort  = "Password must be at least 8 characters long"
	MsgPasswordsMismatch = "Passwords do not match"
	// MsgInvalidLogin is also the answer for a password account whose
	// address is not verified yet: telling that case apart would tell a new
	// sign-up from a taken address (issue 28 item 14), so the message
	// covers both.
	MsgInvalidLogin = "Invalid email or password. If you have just signed up, open the verification link we emailed you first."
	MsgEmailTaken   = "An account with this email already exists."
)

func invalid(code, msg string) error { return fault.New(fault.Invalid, code, msg) }

// NormalizeEmail trims and lower-cases an address: e-mail addresses are
// unique case-insensitively, so Ada@X.com and ada@x.com are one account.
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// ValidateLogin applies spec §5's sign-in rules in their order: "empty email →
// 'Please enter your email address'; email without @ → 'Please enter a valid
// email address'; empty password → 'Please enter your password'."
func ValidateLogin(email, password string) error {
	if err := checkEmail(email); err != nil {
		return err
	}
	if password == "" {
		return invalid("password_required", MsgEnterPassword)
	}
	return nil
}

// checkEmail is the email half of the sign-in rules, which the forms that
// ask only for an address (resend verification, forgot password) share:
// empty (after trimming) → MsgEnterEmail; without @ → MsgValidEmail.
func checkEmail(email string) error {
	email = strings.TrimSpace(email)
	switch {
	case email == "":
		return invalid("email_required", MsgEnterEmail)
	case !strings.Contains(email, "@"):
		return invalid("email_invalid", MsgValidEmail)
	}
	return nil
}

// SignupInput is what POST /auth/signup accepts. Confirm is optional on the
// wire (the web form checks it), but when it is sent it must match.
type SignupInput struct {
	Email      string
	Password   string
	Name       string
	Confirm    *string
	InviteCode string
}

// ValidateSignup applies spec §5's signup rules in their order: "any of the
// four fields empty → 'Please fill in all fields'; email without @ → 'Please
// enter a valid email address'; password shorter than 8 → 'Password must be
// at least 8 characters long'; mismatch with confirmation → 'Passwords do not
// match'."
func ValidateSignup(in SignupInput) error {
	switch {
	case strings.TrimSpace(in.Email) == "" || in.Password == "" || in.Name == "" || (in.Confirm != nil && *in.Confirm == ""):
		return invalid("fields_required", MsgFillAllFields)
	case !strings.Contains(in.Email, "@"):
		return invalid("email_invalid", MsgValidEmail)
	case utf8.RuneCountInString(in.Password) < MinPasswordLength:
		return invalid("password_too_short", MsgPasswordTooShort)
	case in.Confirm != nil && *in.Confirm != in.Password:
		return invalid("passwords_mismatch", MsgPasswordsMismatch)
	}
	return nil
}

// ValidateNewPassword checks a password chosen in a reset.
func ValidateNewPassword(password string) error {
	if utf8.RuneCountInString(password) < MinPasswordLength {
		return invalid("password_too_short", MsgPasswordTooShort)
	}
	return nil
}

// EmailLocalPart is the part of an address before the @.
func EmailLocalPart(email string) string {
	if i := strings.IndexByte(email, '@'); i >= 0 {
		return strings.TrimSpace(email[:i])
	}
	return strings.TrimSpace(email)
}

// Names is a user's full name and its parts.
type Names struct {
	Name      string
	FirstName string
	LastName  string
}

var nameSeparators = regexp.MustCompile(`[\s._-]+`)

// SignupNames: "On signup … a name is split on whitespace, dots, underscores
// and hyphens, each part capitalised, first part firstName, rest lastName;
// signup uses the trimmed name, falling back to the e-mail local part" (§3).
func SignupNames(name, email string) Names {
	full := strings.TrimSpace(name)
	if full == "" {
		full = EmailLocalPart(NormalizeEmail(email))
	}
	var parts []string
	for _, p := range nameSeparators.Split(full, -1) {
		if p != "" {
			parts = append(parts, capitalise(p))
		}
	}
	n := Names{Name: full}
	if len(parts) > 0 {
		n.FirstName = parts[0]
		n.LastName = strings.Join(parts[1:], " ")
	}
	return n
}

func capitalise(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[size:]
}

// MaxNameLength bounds each name part so a profile cannot grow without limit.
const MaxNameLength = 100

// ProfileNames: "names trimmed before saving" (§5) and "rebuilds the full
// name" (§4) from firstName and lastName; an empty result falls back to the
// e-mail local part so a user always has a name to greet.
func ProfileNames(firstName, lastName, email string) (Names, error) {
	first, last := strings.TrimSpace(firstName), strings.TrimSpace(lastName)
	if utf8.RuneCountInString(first) > MaxNameLength || utf8.RuneCountInString(last) > MaxNameLength {
		return Names{}, invalid("name_too_long", "Names must be at most 100 characters long.")
	}
	full := strings.TrimSpace(first + " " + last)
	if full == "" {
		full = EmailLocalPart(email)
	}
	return Names{Name: full, FirstName: first, LastName: last}, nil
}

var hexColor = regexp.MustCompile(`^#[0-9A-Fa-f]{6}$`)

// MaxBrandNameLength bounds the brand name shown on share pages.
const MaxBrandNameLength = 80

// ValidateBranding checks a brand name and a #RRGGBB colour, returning the
// trimmed name and the colour in upper case.
func ValidateBranding(name, color string) (string, string, error) {
	name, color = strings.TrimSpace(name), strings.TrimSpace(color)
	switch {
	case name == "":
		return "", "", invalid("brand_name_required", "Please enter a brand name.")
	case utf8.RuneCountInString(name) > MaxBrandNameLength:
		return "", "", invalid("brand_name_too_long", "Brand name must be at most 80 characters long.")
	case !hexColor.MatchString(color):
		return "", "", invalid("brand_color_invalid", "Brand colour must be a hex colour like #2E5BBA (# followed by six digits 0-9 or letters A-F).")
	}
	return name, strings.ToUpper(color), nil
}
