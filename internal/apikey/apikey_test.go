package apikey

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSecretsAreWellFormedAndDistinct(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 200 {
		k, err := newSecret()
		require.NoError(t, err)
		require.True(t, wellFormed(k), k)
		require.Len(t, k, 47)
		require.False(t, seen[k])
		seen[k] = true
	}
	k, _ := newSecret()
	for _, bad := range []string{"", "p3d_", k[:46], k + "0", "x" + k[1:], k[:20] + "-" + k[21:], strings.ToUpper(k[:4]) + k[4:]} {
		require.False(t, wellFormed(bad), bad)
	}
	require.Len(t, Hash(k), 32)
}

func TestCleanScopesAndNames(t *testing.T) {
	t.Parallel()
	got, err := CleanScopes([]string{"publish", "read", "publish"})
	require.NoError(t, err)
	require.Equal(t, []Scope{ScopeRead, ScopePublish}, got)
	for _, bad := range [][]string{nil, {}, {"admin"}, {"read", ""}, {"READ"}} {
		_, err := CleanScopes(bad)
		require.Error(t, err, bad)
	}
	n, err := CleanName("  Woo store ")
	require.NoError(t, err)
	require.Equal(t, "Woo store", n)
	_, err = CleanName(strings.Repeat("é", 80))
	require.NoError(t, err, "80 characters, not bytes")
	for _, bad := range []string{"", "   ", strings.Repeat("a", 81), "tab\there", "nul\x00"} {
		_, err := CleanName(bad)
		require.Error(t, err, bad)
	}
}
