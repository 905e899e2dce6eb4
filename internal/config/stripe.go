package config

import (
	"fmt"
	"log/slog"
	"os"
	"strings"
)

// Secret is a credential that must never reach a log: it prints, formats
// and logs as "[redacted]"; Reveal gives the value to the one caller that
// needs it.
type Secret string

// String implements fmt.Stringer.
func (Secret) String() string { return "[redacted]" }

// GoString implements fmt.GoStringer (%#v).
func (Secret) GoString() string { return "[redacted]" }

// MarshalText keeps it out of JSON (slog's JSON handler, encoding/json).
func (Secret) MarshalText() ([]byte, error) { return []byte("[redacted]"), nil }

// LogValue implements slog.LogValuer.
func (Secret) LogValue() slog.Value { return slog.StringValue("[redacted]") }

// Reveal returns the secret itself.
func (s Secret) Reveal() string { return string(s) }

// StripeConfig is the Stripe part of the configuration.
type StripeConfig struct {
	SecretKey     Secret
	WebhookSecret Secret
	PricePro      string
	PriceCredits  string
	PriceViews    string
	APIBase       string
}

// loadStripe reads the Stripe settings; the two secrets come from the
// variable or from a file (a mounted secret) and must be at least
// MinSecretBytes long. Error messages name the variable, never the value.
func loadStripe(get func(string) string, errs []error) (StripeConfig, []error) {
	secret := func(env string) Secret {
		v := get(env)
		if f := get(env + "_FILE"); f != "" {
			if v != "" {
				errs = append(errs, fmt.Errorf("set %s or %s_FILE, not both", env, env))
			}
			b, err := os.ReadFile(f)
			if err != nil {
				errs = append(errs, fmt.Errorf("read %s_FILE: %w", env, err))
				return ""
			}
			v = strings.TrimSpace(string(b))
		}
		switch {
		case v == "":
			errs = append(errs, fmt.Errorf("BILLING_PROVIDER=stripe needs %s (or %s_FILE)", env, env))
		case len(v) < MinSecretBytes:
			errs = append(errs, fmt.Errorf("%s is %d bytes; it must be at least %d", env, len(v), MinSecretBytes))
		}
		return Secret(v)
	}
	c := StripeConfig{SecretKey: secret("STRIPE_SECRET_KEY"), WebhookSecret: secret("STRIPE_WEBHOOK_SECRET"),
		PricePro: get("STRIPE_PRICE_PRO"), PriceCredits: get("STRIPE_PRICE_CREDITS"), PriceViews: get("STRIPE_PRICE_VIEWS"),
		APIBase: strings.TrimRight(get("STRIPE_API_BASE"), "/")}
	for env, v := range map[string]string{"STRIPE_PRICE_PRO": c.PricePro, "STRIPE_PRICE_CREDITS": c.PriceCredits, "STRIPE_PRICE_VIEWS": c.PriceViews} {
		if v == "" {
			errs = append(errs, fmt.Errorf("BILLING_PROVIDER=stripe needs %s", env))
		}
	}
	return c, errs
}
