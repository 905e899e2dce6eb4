package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/mail"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// Issue 50 item 13: the sign-in email changes by a link mailed to the new
// address, the old one is told (and can undo), requests are rate-limited,
// and an address that has an account is answered like a free one.

var emailChangeLink = regexp.MustCompile(`/confirm-email-change\?token=([A-Za-z0-9_-]+)`)

func changeEmailReq(token, email, password string) acctReq {
	return acctReq{method: "POST", path: "/api/users/me/email", token: token,
		body: fmt.Sprintf(`{"email":%q,"password":%q}`, email, password)}
}

func confirmEmailReq(token string) acctReq {
	return acctReq{method: "POST", path: "/api/auth/confirm-email-change", body: `{"token":"` + token + `"}`}
}

// mailsTo returns the mail to address, newest first.
func (b *acctBundle) mailsTo(address string) []mail.Message {
	var out []mail.Message
	for _, m := range b.outbox.List() {
		if m.To == address {
			out = append(out, m)
		}
	}
	return out
}

func TestEmailChangeScenarios(t *testing.T) {
	t.Parallel()
	b := acctSetup(t, acctOpts{devMode: true})
	ada := b.signup(t, "ada@example.com", "ada password", "Ada")
	bob := b.signup(t, "bob@example.com", "bob password", "Bob")
	sent := func(addr string) string { return fmt.Sprintf(account.MsgEmailChangeSent, addr) }
	ctx := context.Background()
	rec, _ := b.send(t, changeEmailReq("", "ada.new@example.com", "ada password"))
	require.Equal(t, http.StatusUnauthorized, rec.Code, "signed out")

	b.run(t, []scenario{
		{"wrong password", changeEmailReq(ada.Token, "ada.new@example.com", "not it"), 400, "current_password_invalid", account.MsgCurrentPassword, nil},
		{"no password", changeEmailReq(ada.Token, "ada.new@example.com", ""), 400, "password_required", account.MsgEnterPassword, nil},
		{"no @", changeEmailReq(ada.Token, "ada.example.com", "ada password"), 400, "email_invalid", account.MsgValidEmail, nil},
		{"the same address", changeEmailReq(ada.Token, " ADA@example.com ", "ada password"), 400, "email_unchanged", account.MsgEmailChangeSame, nil},
	})
	require.Empty(t, b.mailsTo("ada.new@example.com"))

	// An address with an account answers like a free one; its owner gets a
	// note with no link, and nothing changes.
	var r acctReply
	bobMails := len(b.mailsTo("bob@example.com"))
	rec, r = b.send(t, changeEmailReq(ada.Token, "Bob@example.com", "ada password"))
	require.Equal(t, http.StatusAccepted, rec.Code, rec.Body.String())
	taken := acctData[struct{ Message, Email string }](t, r)
	require.Equal(t, sent("bob@example.com"), taken.Message)
	require.Len(t, b.mailsTo("bob@example.com"), bobMails+1)
	note := b.mailsTo("bob@example.com")[0]
	require.Equal(t, "Someone tried to use your email for another Photo3D account", note.Subject)
	require.NotRegexp(t, emailChangeLink, note.Body)
	b.login(t, "ada@example.com", "ada password")
	b.login(t, "bob@example.com", "bob password")
	b.newEvents(t)

	// A free address: the link goes to it, and nothing changes until it is opened.
	rec, r = b.send(t, changeEmailReq(ada.Token, "Ada.New@example.com", "ada password"))
	require.Equal(t, http.StatusAccepted, rec.Code, rec.Body.String())
	free := acctData[struct {
		Message, Email string
		ExpiresAt      time.Time
	}](t, r)
	require.Equal(t, sent("ada.new@example.com"), free.Message)
	require.WithinDuration(t, time.Now().Add(24*time.Hour), free.ExpiresAt, time.Minute)
	require.Equal(t, []string{"user.email_change_requested.v1"}, b.newEvents(t))
	first := b.linkTo(t, "ada.new@example.com", emailChangeLink)
	require.Equal(t, "Confirm your new Photo3D sign-in email", b.mailsTo("ada.new@example.com")[0].Subject)
	b.login(t, "ada@example.com", "ada password")
	rec, _ = b.send(t, acctReq{method: "POST", path: "/api/auth/login", body: `{"email":"ada.new@example.com","password":"ada password"}`})
	require.Equal(t, http.StatusUnauthorized, rec.Code, "the new address signs in only after its link is opened")

	// A second request replaces the first: its link stops working.
	rec, _ = b.send(t, changeEmailReq(ada.Token, "ada.new@example.com", "ada password"))
	require.Equal(t, http.StatusAccepted, rec.Code, rec.Body.String())
	b.newEvents(t)
	link := b.linkTo(t, "ada.new@example.com", emailChangeLink)
	require.NotEqual(t, first, link)
	b.run(t, []scenario{
		{"replaced link", confirmEmailReq(first), 400, "email_change_token_invalid", account.MsgEmailChangeInvalid, nil},
		{"unknown link", confirmEmailReq("not-a-token"), 400, "email_change_token_invalid", account.MsgEmailChangeInvalid, nil},
	})

	// Opening the link changes the address; the old one is told, masked.
	rec, r = b.send(t, confirmEmailReq(link))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	done := acctData[struct {
		Message, Email string
		Undone         bool
	}](t, r)
	require.Equal(t, fmt.Sprintf(account.MsgEmailChanged, "ada.new@example.com"), done.Message)
	require.Equal(t, "ada.new@example.com", done.Email)
	require.False(t, done.Undone)
	require.Equal(t, []string{"user.email_changed.v1"}, b.newEvents(t))
	notice := b.mailsTo("ada@example.com")[0]
	require.Equal(t, "Your Photo3D sign-in email was changed", notice.Subject)
	require.Contains(t, notice.Body, "a***@example.com")
	require.NotContains(t, notice.Body, "ada.new@")
	b.run(t, []scenario{
		{"link used twice", confirmEmailReq(link), 400, "email_change_token_invalid", account.MsgEmailChangeInvalid, nil},
		{"old address no longer signs in", acctReq{method: "POST", path: "/api/auth/login", body: `{"email":"ada@example.com","password":"ada password"}`}, 401, "invalid_credentials", account.MsgInvalidLogin, nil},
	})
	b.login(t, "ada.new@example.com", "ada password")

	// Sessions are kept; the account reads its new, verified address.
	rec, r = b.send(t, acctReq{method: "GET", path: "/api/users/me", token: ada.Token})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	me := acctData[account.User](t, r)
	require.Equal(t, "ada.new@example.com", me.Email)
	require.True(t, me.EmailVerified)
	// Owner scoping: Bob's account is untouched.
	rec, r = b.send(t, acctReq{method: "GET", path: "/api/users/me", token: bob.Token})
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, "bob@example.com", acctData[account.User](t, r).Email)

	// No address is in the event log, and no link token either.
	var logText string
	require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT string_agg(data::text, ' ') FROM events`).Scan(&logText))
	require.NotContains(t, logText, "ada.new")
	require.NotContains(t, logText, "ada@example.com")
	require.NotContains(t, logText, link)

	// Replaying the log keeps the change and its pending undo link (email_changes is not a read model).
	require.NoError(t, pgdb.WithTx(ctx, b.db.Pool, func(tx pgx.Tx) error {
		return account.Rebuild(ctx, tx, eventstore.New(events.Domain()))
	}))
	b.login(t, "ada.new@example.com", "ada password")

	// Undo from the old mailbox: the old address is back and every session ends.
	undo := b.linkTo(t, "ada@example.com", emailChangeLink)
	rec, r = b.send(t, confirmEmailReq(undo))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	undone := acctData[struct {
		Message, Email string
		Undone         bool
	}](t, r)
	require.True(t, undone.Undone)
	require.Equal(t, fmt.Sprintf(account.MsgEmailUndone, "ada@example.com"), undone.Message)
	require.Equal(t, []string{"user.email_changed.v1"}, b.newEvents(t))
	rec, _ = b.send(t, acctReq{method: "GET", path: "/api/users/me", token: ada.Token})
	require.Equal(t, http.StatusUnauthorized, rec.Code, "the undo signs every device out")
	b.run(t, []scenario{
		{"undo used twice", confirmEmailReq(undo), 400, "email_change_token_invalid", account.MsgEmailChangeInvalid, nil},
	})
	b.login(t, "ada@example.com", "ada password")
	rec, _ = b.send(t, acctReq{method: "GET", path: "/api/users/me", token: bob.Token})
	require.Equal(t, http.StatusOK, rec.Code, "Bob's session is not Ada's undo's business")
}

// An address that got an account between the request and the link is
// refused when the link is opened.
func TestEmailChangeAddressTakenMeanwhile(t *testing.T) {
	t.Parallel()
	b := acctSetup(t, acctOpts{})
	ada := b.signup(t, "ada@example.com", "ada password", "Ada")
	rec, _ := b.send(t, changeEmailReq(ada.Token, "carol@example.com", "ada password"))
	require.Equal(t, http.StatusAccepted, rec.Code, rec.Body.String())
	link := b.linkTo(t, "carol@example.com", emailChangeLink)
	b.signup(t, "carol@example.com", "carol password", "Carol")
	b.newEvents(t)
	b.run(t, []scenario{
		{"taken meanwhile", confirmEmailReq(link), 409, "email_unavailable", account.MsgEmailChangeTakenNow, nil},
	})
	b.login(t, "ada@example.com", "ada password")
}

// The link works for 24 hours.
func TestEmailChangeLinkExpires(t *testing.T) {
	t.Parallel()
	b := acctSetup(t, acctOpts{})
	ada := b.signup(t, "ada@example.com", "ada password", "Ada")
	past := acctRouter(t, b.db, acctOpts{now: func() time.Time { return time.Now().Add(-25 * time.Hour) }})
	rec, _ := past.send(t, changeEmailReq(ada.Token, "ada.new@example.com", "ada password"))
	require.Equal(t, http.StatusAccepted, rec.Code, rec.Body.String())
	link := past.linkTo(t, "ada.new@example.com", emailChangeLink)
	b.newEvents(t)
	b.run(t, []scenario{
		{"expired", confirmEmailReq(link), 400, "email_change_token_invalid", account.MsgEmailChangeInvalid, nil},
	})
	b.login(t, "ada@example.com", "ada password")
}

// Requests count per account and per IP, with the password confirmations'
// budget: past it even the right password waits.
func TestEmailChangeRateLimit(t *testing.T) {
	t.Parallel()
	b := acctSetup(t, acctOpts{limits: AuthRateLimit{PerIP: 3, PerEmail: 2, Window: time.Minute}})
	const msg = "Too many attempts. Please wait a minute and try again."
	ada := b.signup(t, "ada@example.com", "ada password", "Ada")
	bob := b.signup(t, "bob@example.com", "bob password", "Bob")
	carol := b.signup(t, "carol@example.com", "carol password", "Carol")
	at := func(q acctReq, ip string) acctReq { q.ip = ip; return q }
	b.run(t, []scenario{
		// Per account: the third request is refused from any IP.
		{"account 1", at(changeEmailReq(ada.Token, "a1@example.com", "guess"), "198.51.100.1"), 400, "current_password_invalid", account.MsgCurrentPassword, nil},
		{"account 2", at(changeEmailReq(ada.Token, "a2@example.com", "guess"), "198.51.100.2"), 400, "current_password_invalid", account.MsgCurrentPassword, nil},
		{"account 3", at(changeEmailReq(ada.Token, "a3@example.com", "ada password"), "198.51.100.3"), 429, "rate_limited", msg, nil},
		// Per IP: the fourth request from one address is refused whatever the account.
		{"ip 1", at(changeEmailReq(bob.Token, "b1@example.com", "guess"), "203.0.113.9"), 400, "current_password_invalid", account.MsgCurrentPassword, nil},
		{"ip 2", at(changeEmailReq(carol.Token, "c1@example.com", "guess"), "203.0.113.9"), 400, "current_password_invalid", account.MsgCurrentPassword, nil},
		{"ip 3", at(changeEmailReq(bob.Token, "b2@example.com", "guess"), "203.0.113.9"), 400, "current_password_invalid", account.MsgCurrentPassword, nil},
		{"ip 4", at(changeEmailReq(carol.Token, "c2@example.com", "carol password"), "203.0.113.9"), 429, "rate_limited", msg, nil},
	})
	require.Empty(t, b.mailsTo("a3@example.com"))
	require.Empty(t, b.mailsTo("c2@example.com"))
}
