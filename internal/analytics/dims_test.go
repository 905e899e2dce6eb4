package analytics

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDevice(t *testing.T) {
	for ua, want := range map[string]string{
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148":              DeviceMobile,
		"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/120.0 Mobile Safari/537.36":          DeviceMobile,
		"Mozilla/5.0 (Linux; Android 13; SM-X710) AppleWebKit/537.36 Chrome/120.0 Safari/537.36":                 DeviceTablet,
		"Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148":                       DeviceTablet,
		"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36":      DeviceDesktop,
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Saf": DeviceDesktop,
		"": DeviceDesktop,
	} {
		require.Equal(t, want, Device(ua), ua)
	}
}

func TestSource(t *testing.T) {
	require.Equal(t, "newsletter", Source("Newsletter", "https://www.instagram.com/x", "shop.example"))
	require.Equal(t, "instagram.com", Source("", "https://www.instagram.com/x", "shop.example"))
	require.Equal(t, SourceDirect, Source("", "https://shop.example/v/abc", "shop.example"), "our own pages are not a source")
	require.Equal(t, SourceDirect, Source("", "", "shop.example"))
	require.Equal(t, SourceDirect, Source("", "not a url at all ::", "shop.example"))
	require.Equal(t, "scriptalert1script", Source("<script>alert(1)</script>", "", ""), "labels keep only safe characters")
}

func TestRegion(t *testing.T) {
	require.Equal(t, "IN", CountryOfZone("Asia/Kolkata"))
	require.Equal(t, "IN", CountryOfZone("Asia/Calcutta"), "backward links map too")
	require.Equal(t, "US", CountryOfZone("America/New_York"))
	require.Equal(t, "DE", CountryOfZone("Europe/Berlin"))
	require.Equal(t, RegionUnknown, CountryOfZone("Mars/Olympus"))
	require.Equal(t, "FR", Region("fr", "Asia/Kolkata"), "the trusted proxy's header wins")
	require.Equal(t, "IN", Region("", "Asia/Kolkata"))
	require.Equal(t, "IN", Region("XX", "Asia/Kolkata"), "unknown-country codes fall back")
}
