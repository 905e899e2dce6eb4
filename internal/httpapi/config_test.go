package httpapi

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// Issue 19 item 3: "the signup form shows an 'Invite code' field when the
// server runs with SIGNUP_MODE=invite (the app learns the mode from a public
// config endpoint)". The endpoint needs no sign-in and says which mode runs.
func TestPublicConfigTellsTheSignupMode(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"open", "invite"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			b := acctSetup(t, acctOpts{signupMode: mode})
			rec, r := b.send(t, acctReq{method: "GET", path: "/api/config"})
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			require.True(t, r.Success)
			require.JSONEq(t, `{"signupMode":"`+mode+`","aiDescriptions":false}`, string(r.Data))
			require.Equal(t, "no-store", rec.Header().Get("Cache-Control"))
		})
	}
}

func TestPublicConfigWithoutAccountsIsOpen(t *testing.T) {
	t.Parallel()
	rec, r := do(t, setup(t, nil), "GET", "/api/config", "")
	require.Equal(t, http.StatusOK, rec.Code)
	require.JSONEq(t, `{"signupMode":"open","aiDescriptions":false}`, string(r.Data))
}
