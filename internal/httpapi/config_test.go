package httpapi

import (
	"io"
	"log/slog"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/metrics"
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
			require.JSONEq(t, `{"signupMode":"`+mode+`","mailDelivery":"dev-outbox","aiDescriptions":false}`, string(r.Data))
			require.Equal(t, "no-store", rec.Header().Get("Cache-Control"))
		})
	}
}

func TestPublicConfigWithoutAccountsIsOpen(t *testing.T) {
	t.Parallel()
	rec, r := do(t, setup(t, nil), "GET", "/api/config", "")
	require.Equal(t, http.StatusOK, rec.Code)
	require.JSONEq(t, `{"signupMode":"open","mailDelivery":"none","aiDescriptions":false}`, string(r.Data))
}

// Issue 29 item 9: the app says "we sent a link" only when the server sends
// or keeps mail; /api/config tells it which.
func TestPublicConfigTellsWhereMailGoes(t *testing.T) {
	t.Parallel()
	for _, where := range []string{"smtp", "dev-outbox", "none"} {
		h := NewRouter(Deps{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Metrics: metrics.New(), MailDelivery: where})
		rec, r := do(t, h, "GET", "/api/config", "")
		require.Equal(t, http.StatusOK, rec.Code)
		require.JSONEq(t, `{"signupMode":"open","mailDelivery":"`+where+`","aiDescriptions":false}`, string(r.Data))
	}
}

// On a server that drops mail, no answer claims a link was sent.
func TestNoMailAnswersSayNothingWasSent(t *testing.T) {
	t.Parallel()
	b := acctSetup(t, acctOpts{mailDelivery: "none"})
	for _, c := range []acctReq{
		{method: "POST", path: "/api/auth/signup", body: `{"email":"new@example.com","password":"password1","name":"New"}`},
		{method: "POST", path: "/api/auth/resend-verification", body: `{"email":"new@example.com"}`},
		{method: "POST", path: "/api/auth/forgot-password", body: `{"email":"new@example.com"}`},
	} {
		_, r := b.send(t, c)
		require.True(t, r.Success, c.path)
		require.JSONEq(t, `{"message":"`+MsgNoMail+`"}`, string(r.Data), c.path)
	}
}
