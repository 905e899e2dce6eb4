package config

import (
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func load(t *testing.T, env map[string]string) (*Config, error) {
	t.Helper()
	if _, ok := env["DATA_DIR"]; !ok {
		env["DATA_DIR"] = t.TempDir()
	}
	return Load("api", nil, func(k string) string { return env[k] }, io.Discard)
}

// Item 6 of the security review: billing fails closed. A server that forgot
// BILLING_PROVIDER refuses purchases; only DEV_MODE (or an explicit
// test-mode, as `make run` sets) grants them unpaid.
func TestSecurityBillingFailsClosedByDefault(t *testing.T) {
	t.Parallel()
	c, err := load(t, map[string]string{})
	require.NoError(t, err)
	require.Equal(t, "none", c.BillingProvider)
	c, err = load(t, map[string]string{"DEV_MODE": "true"})
	require.NoError(t, err)
	require.Equal(t, "test-mode", c.BillingProvider)
	c, err = load(t, map[string]string{"BILLING_PROVIDER": "test-mode", "DEV_MODE": "true"})
	require.NoError(t, err)
	require.Equal(t, "test-mode", c.BillingProvider)
}

// Third review, L3: a production server (no DEV_MODE) set to grant every
// purchase without money, or to let webhooks reach the private network,
// refused nothing and said nothing. Now it refuses to start, saying why and
// what to set; a test stack that must run without DEV_MODE says so with
// ALLOW_UNSAFE_SETTINGS, and the settings are still named for the logs and
// the photo3d_unsafe_setting metric.
func TestSecurityDevelopmentOnlySettingsRefusedOutsideDevMode(t *testing.T) {
	t.Parallel()
	prod := map[string]string{"PUBLIC_BASE_URL": "https://photo3d.example.com"}
	with := func(extra map[string]string) map[string]string {
		env := map[string]string{}
		for k, v := range prod {
			env[k] = v
		}
		for k, v := range extra {
			env[k] = v
		}
		return env
	}
	_, err := load(t, with(map[string]string{"BILLING_PROVIDER": "test-mode"}))
	require.ErrorContains(t, err, "BILLING_PROVIDER=test-mode is for development only: set DEV_MODE=true")
	require.ErrorContains(t, err, "ALLOW_UNSAFE_SETTINGS=true")
	_, err = load(t, with(map[string]string{"WEBHOOK_ALLOW_PRIVATE": "true"}))
	require.ErrorContains(t, err, "WEBHOOK_ALLOW_PRIVATE=true is for development only")
	_, err = load(t, with(map[string]string{"BILLING_PROVIDER": "test-mode", "WEBHOOK_ALLOW_PRIVATE": "true"}))
	require.ErrorContains(t, err, "BILLING_PROVIDER=test-mode and WEBHOOK_ALLOW_PRIVATE=true are for development only")

	c, err := load(t, with(map[string]string{"BILLING_PROVIDER": "test-mode", "WEBHOOK_ALLOW_PRIVATE": "true", "ALLOW_UNSAFE_SETTINGS": "true"}))
	require.NoError(t, err)
	require.Equal(t, []string{"BILLING_PROVIDER=test-mode", "WEBHOOK_ALLOW_PRIVATE=true"}, c.UnsafeSettings())
	c, err = load(t, with(map[string]string{"DEV_MODE": "true", "WEBHOOK_ALLOW_PRIVATE": "true"}))
	require.NoError(t, err)
	require.Equal(t, []string{"BILLING_PROVIDER=test-mode", "WEBHOOK_ALLOW_PRIVATE=true"}, c.UnsafeSettings(), "DEV_MODE defaults to test-mode, still named")
	c, err = load(t, with(nil))
	require.NoError(t, err)
	require.Empty(t, c.UnsafeSettings(), "a production server runs with none")
}

// Item 7: secrets shorter than 32 bytes are refused at start-up with a
// message saying how to make one; generated ones satisfy the rule.
func TestSecurityShortSecretsAreRefused(t *testing.T) {
	t.Parallel()
	_, err := load(t, map[string]string{"JWT_SECRET": "CHANGE-ME"})
	require.ErrorContains(t, err, "JWT_SECRET is 9 bytes; it must be at least 32")
	require.ErrorContains(t, err, "openssl rand -hex 32")

	dir := t.TempDir()
	key := filepath.Join(dir, "blob-secret")
	require.NoError(t, os.WriteFile(key, []byte("CHANGE-ME"), 0o600))
	blobURL := "file://" + filepath.ToSlash(dir) + "/blobs?base_url=http://x/blobs&secret_key_path=" + key
	_, err = load(t, map[string]string{"JWT_SECRET": strings.Repeat("k", 32), "BLOB_URL": blobURL})
	require.ErrorContains(t, err, "BLOB_SECRET")
	require.ErrorContains(t, err, "at least 32")

	require.NoError(t, os.WriteFile(key, []byte(strings.Repeat("b", 32)), 0o600))
	_, err = load(t, map[string]string{"JWT_SECRET": strings.Repeat("k", 32), "BLOB_URL": blobURL})
	require.NoError(t, err)

	// Generated secrets (DATA_DIR) are long enough.
	c, err := load(t, map[string]string{})
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(c.JWTSecret), MinSecretBytes)
	require.GreaterOrEqual(t, len(c.BlobSecret), MinSecretBytes)
}

// Item 3: TRUSTED_PROXIES takes CIDRs (and single addresses); anything
// else stops the start.
func TestTrustedProxiesParse(t *testing.T) {
	t.Parallel()
	c, err := load(t, map[string]string{"TRUSTED_PROXIES": "10.0.0.0/8, 192.168.1.7,fd00::/8"})
	require.NoError(t, err)
	require.Equal(t, []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.168.1.7/32"),
		netip.MustParsePrefix("fd00::/8")}, c.TrustedProxies)
	_, err = load(t, map[string]string{"TRUSTED_PROXIES": "everyone"})
	require.ErrorContains(t, err, "TRUSTED_PROXIES")
}

// The dashboard trails the shoppers by at most ANALYTICS_ROLLUP_INTERVAL:
// a minute unless set, and a setting that is not a positive duration is
// refused at start, naming the variable.
func TestAnalyticsRollupInterval(t *testing.T) {
	t.Parallel()
	c, err := load(t, map[string]string{})
	require.NoError(t, err)
	require.Equal(t, time.Minute, c.AnalyticsRollupInterval)
	c, err = load(t, map[string]string{"ANALYTICS_ROLLUP_INTERVAL": "5s"})
	require.NoError(t, err)
	require.Equal(t, 5*time.Second, c.AnalyticsRollupInterval)
	for _, bad := range []string{"0s", "-1m", "soon"} {
		_, err = load(t, map[string]string{"ANALYTICS_ROLLUP_INTERVAL": bad})
		require.ErrorContains(t, err, "ANALYTICS_ROLLUP_INTERVAL must be a positive duration", bad)
	}
}
