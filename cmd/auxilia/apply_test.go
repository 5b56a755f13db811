package main_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const daytonaKey = "dtn_secret_value_0001"

// manifestFile writes a manifest into a folder of the test's own.
func manifestFile(t *testing.T, yaml string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sandboxes.yaml")
	require.NoError(t, os.WriteFile(path, []byte(yaml), 0o600))
	return path
}

// cliFails runs the binary, which must fail, and returns what it wrote.
func cliFails(t *testing.T, env []string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "auxilia %v succeeded: %s", args, out)
	return string(out)
}

const firstManifest = `
sandboxes:
  - name: Local
    provider: local
    config: {resources: {memory_mb: 512}}
  - name: Daytona
    provider: daytona
    secret_env: DAYTONA_KEY
    config: {target: eu}
agents:
  - name: Analyst
    emoji: "📊"
    sandbox: Local
    tools: {write_file: needs_approval}
`

// apply, end to end against the real binary: a dry run changes nothing, the
// first apply creates, the second finds nothing to do, an edit is shown as
// a diff, export writes what the server has without secrets, and prune
// deletes what the file dropped.
func TestApplyDeclaresSandboxesAndAgents(t *testing.T) {
	srv := startServer(t, "AUXILIA_DATA_DIR="+t.TempDir(), "DATABASE_URL=", "AUXILIA_SECRET_KEYS=",
		"AUXILIA_BOOTSTRAP_TOKEN="+adminToken)
	env := []string{"AUXILIA_URL=" + srv.URL, "AUXILIA_TOKEN=" + adminToken, "DAYTONA_KEY=" + daytonaKey}
	first := manifestFile(t, firstManifest)

	plan := cli(t, env, "apply", "-f", first, "--dry-run")
	assert.Contains(t, plan, `+ sandbox "Local" (local)`)
	assert.Contains(t, plan, `+ sandbox "Daytona" (daytona), secret from DAYTONA_KEY`)
	assert.Contains(t, plan, `+ agent "Analyst", bound to "Local"`)
	assert.NotContains(t, cli(t, env, "export"), "Local", "a dry run makes nothing")

	out := cli(t, env, "apply", "-f", first)
	assert.Equal(t, plan, out, "apply makes what the dry run showed")
	assert.NotContains(t, out, daytonaKey)
	assert.Equal(t, "no changes\n", cli(t, env, "apply", "-f", first), "a second apply finds nothing to do")

	second := manifestFile(t, strings.NewReplacer("config: {resources: {memory_mb: 512}}", "description: Scratch\n    config: {resources: {memory_mb: 1024}}",
		"write_file: needs_approval", "write_file: disabled").Replace(firstManifest))
	diff := cli(t, env, "apply", "-f", second)
	assert.Equal(t, `~ sandbox "Local": description "" → "Scratch"; config.resources.memory_mb 512 → 1024`+"\n"+
		`~ agent "Analyst": tools.write_file needs_approval → disabled`+"\n", diff)
	assert.Equal(t, "no changes\n", cli(t, env, "apply", "-f", second))

	exported := cli(t, env, "export")
	for _, want := range []string{"name: Local", "memory_mb: 1024", "description: Scratch", "target: eu", "sandbox: Local", "write_file: disabled"} {
		assert.Contains(t, exported, want)
	}
	assert.NotContains(t, exported, daytonaKey, "export leaves secrets out")
	assert.Equal(t, "no changes\n", cli(t, env, "apply", "-f", manifestFile(t, exported)), "what export writes, apply reads back unchanged")

	third := manifestFile(t, `
sandboxes:
  - {name: Local, provider: local}
agents:
  - {name: Analyst, sandbox: Local}
`)
	assert.Equal(t, "no changes\n", cli(t, env, "apply", "-f", third), "without --prune nothing is deleted")
	assert.Equal(t, `- sandbox "Daytona"`+"\n", cli(t, env, "apply", "-f", third, "--prune"))
	assert.NotContains(t, cli(t, env, "export"), "Daytona")

	// Prune follows the API's in-use rule: a sandbox an agent still uses
	// is not deleted.
	refused := cliFails(t, env, "apply", "-f", manifestFile(t, "agents:\n  - {name: Analyst}\n"), "--prune")
	assert.Contains(t, refused, `- sandbox "Local"`)
	assert.Contains(t, refused, "sandbox_in_use")
	assert.Contains(t, cli(t, env, "export"), "name: Local")
}

// A bad file is refused with every fault at once, and nothing is applied.
func TestApplyRefusesABadFileWhole(t *testing.T) {
	srv := startServer(t, "AUXILIA_DATA_DIR="+t.TempDir(), "DATABASE_URL=", "AUXILIA_SECRET_KEYS=",
		"AUXILIA_BOOTSTRAP_TOKEN="+adminToken)
	env := []string{"AUXILIA_URL=" + srv.URL, "AUXILIA_TOKEN=" + adminToken}
	out := cliFails(t, env, "apply", "-f", manifestFile(t, `
sandboxes:
  - name: Fine
    provider: local
  - name: Fine
    provider: local
    config: {resources: {memory_mb: -1}, colour: red}
  - name: Elsewhere
    provider: nowhere
  - name: Keyed
    provider: daytona
    secret_env: NOT_SET_ANYWHERE
agents:
  - name: Analyst
    sandbox: Missing
    tools: {shell: always_allow, write_file: maybe}
    hat: red
`))
	for _, want := range []string{
		`sandboxes[1].name: "Fine" is declared twice`,
		`sandboxes[1].config.resources.memory_mb`,
		`sandboxes[1].config.colour`,
		`sandboxes[2].provider: must be one of`,
		`sandboxes[3].secret_env: names NOT_SET_ANYWHERE, which is not set`,
		`agents[0].hat: is not a member of agents[0]`,
	} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out, "+ sandbox", "nothing is planned")
	exported := cli(t, env, "export")
	assert.NotContains(t, exported, "Fine", "nothing is applied")

	out = cliFails(t, env, "apply", "-f", manifestFile(t, `
agents:
  - name: Analyst
    sandbox: Missing
    tools: {shell: always_allow, write_file: maybe}
`))
	for _, want := range []string{
		`agents[0].sandbox: names no sandbox of the file or the server: "Missing"`,
		`agents[0].tools.shell: is not a tool`,
		`agents[0].tools.write_file: must be always_allow, needs_approval or disabled`,
	} {
		assert.Contains(t, out, want)
	}
}
