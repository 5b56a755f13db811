package builtin_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider/builtin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const root = "../../.."

// read returns the files matching pattern, below the repository's root, as one text.
func read(t *testing.T, pattern string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, pattern))
	require.NoError(t, err)
	require.NotEmpty(t, files, pattern)
	var text strings.Builder
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		text.Write(raw)
	}
	return text.String()
}

// Every operator setting a provider declares is in the configuration tables
// of the README and of the operations guide, with its default, and the Helm
// chart says what it does with it, so none can be forgotten.
func TestOperatorSettingsAreDocumentedAndKnownToTheChart(t *testing.T) {
	readme := read(t, "README.md")
	operations := read(t, "docs/operations.md")
	chart := read(t, "deployments/helm/auxilia/values.yaml") + read(t, "deployments/helm/auxilia/templates/*")
	for _, k := range builtin.Kinds(builtin.Options{}) {
		for _, s := range k.Describe().Settings {
			value := "unset" // as the tables say of a default worked out, not written
			if s.Default != "" {
				value = "`" + s.Default + "`"
			}
			row := fmt.Sprintf("\n| `%s` | %s | ", s.Env, value)
			assert.True(t, strings.Contains(readme, row+s.Description+" |"), "README.md's configuration table has %s as %s declares it: %s", s.Env, k.Describe().Name, row)
			assert.True(t, strings.Contains(operations, row), "docs/operations.md's configuration table has %s: %s", s.Env, row)
			assert.True(t, strings.Contains(chart, s.Env), "the Helm chart sets, refuses or offers %s", s.Env)
		}
	}
}
