package httpapi

// Attack test of the third security review's L2: the routes that confirm
// with the current password (delete the account, change the password) let
// a stolen session guess it without limit. README.md's "Security" table
// lists it.

import (
	"net/http"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/dbtest"
	"github.com/photo3d/photo3d/internal/privacy"
)

// L2: whoever holds a stolen session could guess the password on DELETE
// /api/users/me or POST /api/users/me/password as fast as the server
// hashes, then change it (ending the owner's sessions and keys) or delete
// the account. Both routes now count against the sign-in limiter's budget
// per account (both routes together) and per address: past it, 429 with
// the sign-in message and Retry-After, even for the right password; the
// owner's own sign-in and other accounts are not locked out by it.
func TestSecurityPasswordConfirmationGuessesAreLimited(t *testing.T) {
	t.Parallel()
	const tooMany = "Too many attempts. Please wait a minute and try again."
	erasure := func(db *dbtest.DB) account.ErasureScheduler {
		rc, err := river.NewClient(riverpgxv5.New(db.Pool), &river.Config{})
		require.NoError(t, err)
		return privacy.Scheduler(rc)
	}
	b := acctSetup(t, acctOpts{limits: AuthRateLimit{PerIP: 1000, PerEmail: 3, Window: time.Minute}, erasure: erasure})
	ada := b.signup(t, "ada@example.com", "password1", "Ada")
	bob := b.signup(t, "bob@example.com", "password1", "Bob")
	deleteMe := func(s session, password, ip string) (*http.Response, acctReply) {
		rec, r := b.send(t, acctReq{method: "DELETE", path: "/api/users/me", token: s.Token, ip: ip, body: `{"password":"` + password + `"}`})
		return rec.Result(), r
	}
	changePassword := func(s session, current, ip string) (*http.Response, acctReply) {
		rec, r := b.send(t, acctReq{method: "POST", path: "/api/users/me/password", token: s.Token, ip: ip,
			body: `{"currentPassword":"` + current + `","newPassword":"attacker-pass-1"}`})
		return rec.Result(), r
	}

	// Three wrong guesses, from three addresses, on either route.
	res, r := deleteMe(ada, "guess-1", "198.51.100.1")
	require.Equal(t, http.StatusBadRequest, res.StatusCode)
	require.Equal(t, "current_password_invalid", r.Error.Code)
	res, r = changePassword(ada, "guess-2", "198.51.100.2")
	require.Equal(t, http.StatusBadRequest, res.StatusCode)
	require.Equal(t, account.MsgCurrentPassword, r.Error.Message)
	res, _ = deleteMe(ada, "guess-3", "198.51.100.3")
	require.Equal(t, http.StatusBadRequest, res.StatusCode)

	// The fourth is refused before the password is tried, on both routes.
	for _, attempt := range []func() (*http.Response, acctReply){
		func() (*http.Response, acctReply) { return deleteMe(ada, "guess-4", "198.51.100.4") },
		func() (*http.Response, acctReply) { return changePassword(ada, "guess-5", "198.51.100.5") },
		// The right password waits too, as on sign-in: a guesser cannot
		// tell a hit from a miss by the answer.
		func() (*http.Response, acctReply) { return changePassword(ada, "password1", "198.51.100.6") },
		func() (*http.Response, acctReply) { return deleteMe(ada, "password1", "198.51.100.7") },
	} {
		res, r := attempt()
		require.Equal(t, http.StatusTooManyRequests, res.StatusCode, "%+v", r.Error)
		require.Equal(t, "rate_limited", r.Error.Code)
		require.Equal(t, tooMany, r.Error.Message)
		require.NotEmpty(t, res.Header.Get("Retry-After"))
	}
	// Nothing happened to the account: the old password still signs in
	// (the owner's sign-in has its own budget), and the session still works.
	require.Equal(t, http.StatusOK, b.status(t, ada.Token))
	b.login(t, "ada@example.com", "password1")

	// Another account on the same address is not affected.
	res, r = deleteMe(bob, "not-bobs-password", "198.51.100.4")
	require.Equal(t, http.StatusBadRequest, res.StatusCode, "%+v", r.Error)

	// Per address: one client guessing across sessions is limited too.
	c := acctSetup(t, acctOpts{limits: AuthRateLimit{PerIP: 3, PerEmail: 1000, Window: time.Minute}, erasure: erasure})
	u1 := c.signup(t, "u1@example.com", "password1", "U1")
	u2 := c.signup(t, "u2@example.com", "password1", "U2")
	for i, s := range []session{u1, u2, u1, u2} {
		rec, _ := c.send(t, acctReq{method: "DELETE", path: "/api/users/me", token: s.Token, ip: "203.0.113.9", body: `{"password":"guess"}`})
		if i < 3 {
			require.Equal(t, http.StatusBadRequest, rec.Code)
		} else {
			require.Equal(t, http.StatusTooManyRequests, rec.Code, "the fourth guess from one address")
		}
	}
}
