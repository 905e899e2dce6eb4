package account

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/coreos/go-oidc/v3/oidc"

	"github.com/photo3d/photo3d/internal/fault"
)

// MsgGoogleFailed is spec §8's fallback: "Google login failed. Please try again."
const MsgGoogleFailed = "Google login failed. Please try again."

var (
	errGoogleFailed   = fault.New(fault.Unauthorized, "google_login_failed", MsgGoogleFailed)
	errGoogleDisabled = fault.New(fault.Unavailable, "google_disabled", "Google sign-in is not configured on this server.")
	errGoogleMissing  = fault.New(fault.Invalid, "credential_required", MsgGoogleFailed)
)

// GoogleIdentity is what a verified Google ID token says about its holder.
type GoogleIdentity struct {
	Subject    string
	Email      string
	Name       string
	GivenName  string
	FamilyName string
	// Nonce is the token's "nonce" claim: the one the server issued for this
	// sign-in attempt (GoogleNonce), checked and used up by Service.Google.
	Nonce string
}

// GoogleVerifier checks Google ID tokens (the credential the Sign in with
// Google button returns) against Google's published keys: signature (RS256
// only), expiry, audience = our client id, issuer in the accepted list, and
// email_verified, because an unverified address must never take over the
// account that owns it.
type GoogleVerifier struct {
	verifier *oidc.IDTokenVerifier
	issuers  []string
}

// NewGoogleVerifier builds a verifier over the JWKS at jwksURL. ctx carries
// configuration for key fetches (oidc.ClientContext to choose the HTTP
// client); keys are cached and refetched on an unknown key id.
func NewGoogleVerifier(ctx context.Context, clientID, jwksURL string, issuers []string) *GoogleVerifier {
	keys := oidc.NewRemoteKeySet(ctx, jwksURL)
	v := oidc.NewVerifier("", keys, &oidc.Config{
		ClientID:             clientID,
		SupportedSigningAlgs: []string{oidc.RS256},
		SkipIssuerCheck:      true, // Google uses two issuer spellings; checked below
	})
	return &GoogleVerifier{verifier: v, issuers: issuers}
}

// Verify returns the identity in credential or the spec's Google failure.
func (g *GoogleVerifier) Verify(ctx context.Context, credential string) (GoogleIdentity, error) {
	if g == nil {
		return GoogleIdentity{}, errGoogleDisabled
	}
	if strings.TrimSpace(credential) == "" {
		return GoogleIdentity{}, errGoogleMissing
	}
	tok, err := g.verifier.Verify(ctx, credential)
	if err != nil {
		return GoogleIdentity{}, fault.Wrap(fmt.Errorf("verify google id token: %w", err), fault.Unauthorized, errGoogleFailed.Code, MsgGoogleFailed)
	}
	if !slices.Contains(g.issuers, tok.Issuer) {
		return GoogleIdentity{}, fault.Wrap(fmt.Errorf("google id token issuer %q not accepted", tok.Issuer), fault.Unauthorized, errGoogleFailed.Code, MsgGoogleFailed)
	}
	var claims struct {
		Email         string `json:"email"`
		EmailVerified any    `json:"email_verified"` // Google has sent both true and "true"
		Name          string `json:"name"`
		GivenName     string `json:"given_name"`
		FamilyName    string `json:"family_name"`
		Nonce         string `json:"nonce"`
	}
	if err := tok.Claims(&claims); err != nil {
		return GoogleIdentity{}, fault.Wrap(fmt.Errorf("decode google claims: %w", err), fault.Unauthorized, errGoogleFailed.Code, MsgGoogleFailed)
	}
	verified := claims.EmailVerified == true || claims.EmailVerified == "true"
	if !verified || !strings.Contains(claims.Email, "@") || tok.Subject == "" {
		return GoogleIdentity{}, fault.Wrap(fmt.Errorf("google account email not verified"), fault.Unauthorized, errGoogleFailed.Code, MsgGoogleFailed)
	}
	return GoogleIdentity{
		Subject: tok.Subject, Email: NormalizeEmail(claims.Email), Name: strings.TrimSpace(claims.Name),
		GivenName: strings.TrimSpace(claims.GivenName), FamilyName: strings.TrimSpace(claims.FamilyName),
		Nonce: claims.Nonce,
	}, nil
}
