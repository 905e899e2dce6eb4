package account_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/fault"
)

func message(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	fe, ok := fault.As(err)
	require.True(t, ok, "%v is not a fault", err)
	return fe.Message
}

func TestValidateLoginQuotesSpec5(t *testing.T) {
	t.Parallel()
	// "Sign-in, in this order: empty email → 'Please enter your email address';
	// email without @ → 'Please enter a valid email address'; empty password →
	// 'Please enter your password'."
	cases := []struct{ email, password, want string }{
		{"", "", "Please enter your email address"},
		{"   ", "secret", "Please enter your email address"},
		{"ada", "", "Please enter a valid email address"},
		{"ada@example.com", "", "Please enter your password"},
		{"ada@example.com", "x", ""},
	}
	for _, c := range cases {
		require.Equal(t, c.want, message(t, account.ValidateLogin(c.email, c.password)), "%q/%q", c.email, c.password)
	}
}

func TestValidateSignupQuotesSpec5(t *testing.T) {
	t.Parallel()
	// "Signup: any of the four fields empty → 'Please fill in all fields';
	// email without @ → 'Please enter a valid email address'; password shorter
	// than 8 → 'Password must be at least 8 characters long'; mismatch with
	// confirmation → 'Passwords do not match'."
	s := func(v string) *string { return &v }
	cases := []struct {
		name string
		in   account.SignupInput
		want string
	}{
		{"empty name", account.SignupInput{Email: "a@b.c", Password: "password1"}, "Please fill in all fields"},
		{"empty email", account.SignupInput{Name: "Ada", Password: "password1"}, "Please fill in all fields"},
		{"empty password", account.SignupInput{Name: "Ada", Email: "a@b.c"}, "Please fill in all fields"},
		{"empty confirmation", account.SignupInput{Name: "Ada", Email: "a@b.c", Password: "password1", Confirm: s("")}, "Please fill in all fields"},
		{"empty beats bad email", account.SignupInput{Name: "", Email: "nope", Password: "x"}, "Please fill in all fields"},
		{"no @", account.SignupInput{Name: "Ada", Email: "ada.example.com", Password: "password1"}, "Please enter a valid email address"},
		{"bad email beats short password", account.SignupInput{Name: "Ada", Email: "ada", Password: "x"}, "Please enter a valid email address"},
		{"7 characters", account.SignupInput{Name: "Ada", Email: "a@b.c", Password: "1234567"}, "Password must be at least 8 characters long"},
		{"short beats mismatch", account.SignupInput{Name: "Ada", Email: "a@b.c", Password: "1234567", Confirm: s("x")}, "Password must be at least 8 characters long"},
		{"mismatch", account.SignupInput{Name: "Ada", Email: "a@b.c", Password: "12345678", Confirm: s("12345679")}, "Passwords do not match"},
		{"8 characters", account.SignupInput{Name: "Ada", Email: "a@b.c", Password: "12345678"}, ""},
		{"8 runes", account.SignupInput{Name: "Ada", Email: "a@b.c", Password: "ééééééé1", Confirm: s("ééééééé1")}, ""},
	}
	for _, c := range cases {
		require.Equal(t, c.want, message(t, account.ValidateSignup(c.in)), c.name)
	}
}

func TestSignupNamesQuoteSpec3(t *testing.T) {
	t.Parallel()
	// "a name is split on whitespace, dots, underscores and hyphens, each part
	// capitalised, first part firstName, rest lastName; signup uses the trimmed
	// name, falling back to the e-mail local part."
	cases := []struct {
		name, email string
		want        account.Names
	}{
		{"Ada Lovelace", "ada@x.io", account.Names{Name: "Ada Lovelace", FirstName: "Ada", LastName: "Lovelace"}},
		{"  ada   king-lovelace ", "ada@x.io", account.Names{Name: "ada   king-lovelace", FirstName: "Ada", LastName: "King Lovelace"}},
		{"jean.luc_picard", "x@y.z", account.Names{Name: "jean.luc_picard", FirstName: "Jean", LastName: "Luc Picard"}},
		{"   ", "grace.hopper@navy.mil", account.Names{Name: "grace.hopper", FirstName: "Grace", LastName: "Hopper"}},
		{"Cher", "c@x.io", account.Names{Name: "Cher", FirstName: "Cher", LastName: ""}},
		{"élodie", "e@x.io", account.Names{Name: "élodie", FirstName: "Élodie", LastName: ""}},
	}
	for _, c := range cases {
		require.Equal(t, c.want, account.SignupNames(c.name, c.email), c.name)
	}
}

func TestProfileNamesTrimAndRebuild(t *testing.T) {
	t.Parallel()
	// "Profile: names trimmed before saving"; "Profile update merges
	// firstName, lastName, avatarUrl, rebuilds the full name".
	n, err := account.ProfileNames("  Ada ", " Lovelace  ", "ada@x.io")
	require.NoError(t, err)
	require.Equal(t, account.Names{Name: "Ada Lovelace", FirstName: "Ada", LastName: "Lovelace"}, n)
	n, err = account.ProfileNames("Ada", "", "ada@x.io")
	require.NoError(t, err)
	require.Equal(t, "Ada", n.Name)
	n, err = account.ProfileNames(" ", "", "ada@x.io")
	require.NoError(t, err)
	require.Equal(t, account.Names{Name: "ada"}, n)
	_, err = account.ProfileNames(string(make([]byte, 101)), "", "ada@x.io")
	require.Equal(t, "Names must be at most 100 characters long.", message(t, err))
}

func TestNormalizeEmail(t *testing.T) {
	t.Parallel()
	require.Equal(t, "ada@example.com", account.NormalizeEmail("  Ada@Example.COM "))
	require.Equal(t, "ada", account.EmailLocalPart("ada@example.com"))
}

func TestValidateBranding(t *testing.T) {
	t.Parallel()
	const colorMsg = "Brand colour must be a hex colour like #2E5BBA (# followed by six digits 0-9 or letters A-F)."
	cases := []struct {
		name, color         string
		wantName, wantColor string
		wantMsg             string
	}{
		{"Acme", "#2e5bba", "Acme", "#2E5BBA", ""},
		{"  Acme  ", " #00FF00 ", "Acme", "#00FF00", ""},
		{"Acme", "2E5BBA", "", "", colorMsg},
		{"Acme", "#2E5BB", "", "", colorMsg},
		{"Acme", "#GGGGGG", "", "", colorMsg},
		{"Acme", "red", "", "", colorMsg},
		{"Acme", "#2E5BBA00", "", "", colorMsg},
		{"  ", "#2E5BBA", "", "", "Please enter a brand name."},
	}
	for _, c := range cases {
		name, color, err := account.ValidateBranding(c.name, c.color)
		require.Equal(t, c.wantMsg, message(t, err), c.name+c.color)
		require.Equal(t, c.wantName, name)
		require.Equal(t, c.wantColor, color)
	}
}

func TestPasswordHashRoundTrip(t *testing.T) {
	t.Parallel()
	p := account.HashParams{MemoryKiB: 1024, Time: 1, Threads: 1, KeyLen: 32, SaltLen: 16}
	h, err := account.HashPassword("correct horse", p)
	require.NoError(t, err)
	require.Regexp(t, `^\$argon2id\$v=19\$m=1024,t=1,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$`, h)
	ok, err := account.VerifyPassword("correct horse", h)
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = account.VerifyPassword("correct horsE", h)
	require.NoError(t, err)
	require.False(t, ok)
	h2, err := account.HashPassword("correct horse", p)
	require.NoError(t, err)
	require.NotEqual(t, h, h2, "salted")
	_, err = account.VerifyPassword("x", "$2a$10$bcrypt")
	require.Error(t, err)
}
