package deploy

import (
	"bufio"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// pinnedTool is a `go run` target with an exact release: module@vMAJOR.MINOR.PATCH.
var pinnedTool = regexp.MustCompile(`^[a-z0-9.\-]+(/[A-Za-z0-9._\-]+)+@v\d+\.\d+\.\d+$`)

// TestSecurityAuditToolsArePinned: every tool `make` runs from the module
// proxy has an exact version (issue 28 item 15: `govulncheck@latest` ran
// whatever was published that day), and the audit target uses the pin.
func TestSecurityAuditToolsArePinned(t *testing.T) {
	t.Parallel()
	f, err := os.Open("tools.env")
	require.NoError(t, err)
	defer f.Close()
	tools := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, val, ok := strings.Cut(line, "=")
		require.True(t, ok, line)
		require.Regexp(t, pinnedTool, val, "%s must name an exact release", name)
		tools[name] = val
	}
	require.NoError(t, sc.Err())
	require.Contains(t, tools, "GOVULNCHECK")
	require.True(t, strings.HasPrefix(tools["GOVULNCHECK"], "golang.org/x/vuln/cmd/govulncheck@"))

	mk, err := os.ReadFile("../../Makefile")
	require.NoError(t, err)
	require.NotContains(t, string(mk), "@latest", "no unpinned `go run` in the Makefile")
	var audit string
	for _, block := range strings.Split(string(mk), "\n\n") {
		if strings.HasPrefix(block, "audit:") {
			audit = block
		}
	}
	require.Contains(t, audit, "source ops/deploy/tools.env")
	require.Contains(t, audit, "go run $$GOVULNCHECK ./...")
}
