package config

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func stripeEnv(over map[string]string) map[string]string {
	env := map[string]string{"BILLING_PROVIDER": "stripe",
		"STRIPE_SECRET_KEY":     "sk_test_0123456789abcdef0123456789abcdef",
		"STRIPE_WEBHOOK_SECRET": "whsec_0123456789abcdef0123456789abcdef",
		"STRIPE_PRICE_PRO":      "price_pro", "STRIPE_PRICE_CREDITS": "price_c", "STRIPE_PRICE_VIEWS": "price_v"}
	for k, v := range over {
		env[k] = v
	}
	return env
}

func TestStripeSettings(t *testing.T) {
	t.Parallel()
	c, err := load(t, stripeEnv(nil))
	require.NoError(t, err)
	require.Equal(t, "stripe", c.BillingProvider)
	require.Equal(t, "price_pro", c.Stripe.PricePro)
	require.Equal(t, "168h0m0s", c.BillingGracePeriod.String())

	// From a file (a mounted secret).
	f := filepath.Join(t.TempDir(), "key")
	require.NoError(t, os.WriteFile(f, []byte("sk_live_from_file_0123456789abcdef0123456789\n"), 0o600))
	c, err = load(t, stripeEnv(map[string]string{"STRIPE_SECRET_KEY": "", "STRIPE_SECRET_KEY_FILE": f}))
	require.NoError(t, err)
	require.Equal(t, "sk_live_from_file_0123456789abcdef0123456789", c.Stripe.SecretKey.Reveal())

	// Missing or short secrets and prices are refused, naming the variable, never the value.
	_, err = load(t, stripeEnv(map[string]string{"STRIPE_SECRET_KEY": "sk_test_short", "STRIPE_PRICE_VIEWS": ""}))
	require.Error(t, err)
	require.Contains(t, err.Error(), "STRIPE_SECRET_KEY is 13 bytes; it must be at least 32")
	require.Contains(t, err.Error(), "BILLING_PROVIDER=stripe needs STRIPE_PRICE_VIEWS")
	require.NotContains(t, err.Error(), "sk_test_short")
	_, err = load(t, stripeEnv(map[string]string{"STRIPE_WEBHOOK_SECRET": ""}))
	require.ErrorContains(t, err, "BILLING_PROVIDER=stripe needs STRIPE_WEBHOOK_SECRET")
}

// TestSecurityStripeSecretNeverLogged: the secret formats and logs as
// "[redacted]", however the config is printed.
func TestSecurityStripeSecretNeverLogged(t *testing.T) {
	t.Parallel()
	c, err := load(t, stripeEnv(nil))
	require.NoError(t, err)
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("config", "stripe", c.Stripe, "key", c.Stripe.SecretKey)
	out := buf.String() + fmt.Sprintf("%v %+v %#v %s", c.Stripe, c.Stripe, c.Stripe, c.Stripe.SecretKey)
	require.NotContains(t, out, "0123456789abcdef0123456789abcdef")
	require.True(t, strings.Contains(out, "[redacted]"))
}
