package account

import (
	"context"
	"fmt"
	"time"

	"github.com/photo3d/photo3d/internal/fault"
)

// GoogleNonceLifetime is how long a sign-in attempt may take between asking
// for a nonce and handing Google's ID token back.
const GoogleNonceLifetime = 10 * time.Minute

// MsgGoogleReplayed explains a refused ID token whose nonce is unknown,
// expired or already used: a second use of one Google sign-in.
const MsgGoogleReplayed = "This Google sign-in has already been used or has expired. Please sign in with Google again."

var errGoogleReplayed = fault.New(fault.Unauthorized, "google_token_replayed", MsgGoogleReplayed)

// GoogleNonce starts a Google sign-in attempt: a random nonce the browser
// passes to Google Identity Services, which signs it into the ID token.
// Only its SHA-256 is stored; useGoogleNonce accepts it once, before expiry.
// Expired nonces are swept here, so the table stays small.
func (s *Service) GoogleNonce(ctx context.Context) (string, time.Time, error) {
	nonce, err := newToken()
	if err != nil {
		return "", time.Time{}, err
	}
	now := s.opt.Now().UTC()
	expires := now.Add(GoogleNonceLifetime)
	if _, err := s.db.Exec(ctx, `DELETE FROM google_nonces WHERE expires_at < $1`, now.Add(-time.Hour)); err != nil {
		return "", time.Time{}, fmt.Errorf("sweep google nonces: %w", err)
	}
	if _, err := s.db.Exec(ctx, `INSERT INTO google_nonces (nonce_hash, expires_at) VALUES ($1, $2)`, hashToken(nonce), expires); err != nil {
		return "", time.Time{}, fmt.Errorf("store google nonce: %w", err)
	}
	return nonce, expires, nil
}

// useGoogleNonce marks the nonce of a verified ID token used. A token
// without a nonce, with one we never issued, an expired one or one already
// used (the same token sent twice, or a token lifted from another sign-in)
// is refused. It commits on its own, before the sign-in itself, so a token
// stays used up even when the sign-in then fails.
func (s *Service) useGoogleNonce(ctx context.Context, nonce string) error {
	if nonce == "" {
		return errGoogleReplayed
	}
	tag, err := s.db.Exec(ctx, `UPDATE google_nonces SET used_at = $2
		WHERE nonce_hash = $1 AND used_at IS NULL AND expires_at > $2`, hashToken(nonce), s.opt.Now().UTC())
	if err != nil {
		return fmt.Errorf("use google nonce: %w", err)
	}
	if tag.RowsAffected() != 1 {
		return errGoogleReplayed
	}
	return nil
}
