package client

import (
	"go/version"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The client is a module of its own so that a program on the Go release
// before the server's can import it: its go line names an older release
// than the server's, no module it needs (its tests' included) asks for a
// newer Go, and it calls nothing of the standard library newer than its
// go line (vet's stdversion check).
func TestTheClientBuildsOnThePreviousGoRelease(t *testing.T) {
	client, server := goLine(t, "go.mod"), goLine(t, "../../go.mod")
	assert.Equal(t, -1, version.Compare(version.Lang(client), version.Lang(server)),
		"the client asks for Go %s, the server for %s: a release older is what users on the previous one can build", client, server)

	out, err := exec.Command("go", "list", "-m", "-f", "{{.Path}} {{.GoVersion}}", "all").CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, need, _ := strings.Cut(line, " ")
		if need != "" {
			assert.LessOrEqual(t, version.Compare("go"+need, client), 0, "%s asks for Go %s, newer than the client's %s", path, need, client)
		}
	}

	out, err = exec.Command("go", "vet", "-stdversion", "./...").CombinedOutput()
	assert.NoError(t, err, "the client uses the standard library past Go %s:\n%s", client, out)
}

// goLine is a go.mod's go line, as a toolchain name (go1.25.0).
func goLine(t *testing.T, file string) string {
	t.Helper()
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(raw)
	require.NotNil(t, m, "%s has no go line", file)
	return "go" + string(m[1])
}
