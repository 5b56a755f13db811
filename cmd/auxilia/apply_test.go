package main_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
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
	assert.Contains(t, plan, `+ sandbox "Daytona" (daytona), secret from DAYTONA_KEY → "https://app.daytona.io/api"`,
		"a sandbox without a url sends its secret to its provider's default")
	assert.Contains(t, plan, `+ agent "Analyst", bound to "Local"`)
	assert.NotContains(t, cli(t, env, "export"), "Local", "a dry run makes nothing")

	out := cli(t, env, "apply", "-f", first)
	assert.Equal(t, plan, out, "apply makes what the dry run showed")
	assert.NotContains(t, out, daytonaKey)
	assert.Equal(t, "no changes\n", cli(t, env, "apply", "-f", first), "a second apply finds nothing to do")
	rotated := append(slices.Clone(env), "DAYTONA_KEY=dtn_secret_value_0002")
	assert.Equal(t, `~ sandbox "Daytona": secret from DAYTONA_KEY → "https://app.daytona.io/api"`+"\n",
		cli(t, rotated, "apply", "-f", first, "--dry-run"), "a new key is shown going where the stored one went")

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

// recorder stands at the url a manifest gives a sandbox and keeps the
// headers of every request that arrives, answering as an OpenSandbox with
// no sandboxes.
type recorder struct {
	*httptest.Server
	mu      sync.Mutex
	headers []http.Header
}

func newRecorder(t *testing.T) *recorder {
	r := &recorder{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.headers = append(r.headers, req.Header.Clone())
		r.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"items":[]}`)
	}))
	t.Cleanup(r.Close)
	return r
}

// times counts the requests that carried value in a header.
func (r *recorder) times(value string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, h := range r.headers {
		for _, values := range h {
			if slices.ContainsFunc(values, func(v string) bool { return strings.Contains(v, value) }) {
				n++
			}
		}
	}
	return n
}

// A file cannot make apply send its own token, or a variable outside the
// operator's prefix, to the url it names: the file is refused whole and
// the recorder at that url sees neither, while a variable the prefix
// allows, for the same url, does arrive there (the server's health job
// probes each new sandbox within moments).
func TestApplyNeverSendsItsOwnVariables(t *testing.T) {
	const outsideKey, insideKey = "osk-outside-prefix-0123456789", "osk-inside-prefix-0123456789"
	noLeak(outsideKey, insideKey)
	rec := newRecorder(t)
	srv := startServer(t, "AUXILIA_DATA_DIR="+t.TempDir(), "DATABASE_URL=", "AUXILIA_SECRET_KEYS=",
		"AUXILIA_BOOTSTRAP_TOKEN="+adminToken, "AUXILIA_HEALTH_INTERVAL=200ms")
	env := []string{"AUXILIA_URL=" + srv.URL, "AUXILIA_TOKEN=" + adminToken, "OSK_KEY=" + outsideKey, "SANDBOX_SECRET_OSK=" + insideKey}
	narrowed := append(slices.Clone(env), "AUXILIA_APPLY_SECRET_PREFIX=SANDBOX_SECRET_")
	at := func(name, secretEnv string) string {
		return manifestFile(t, fmt.Sprintf("sandboxes:\n  - {name: %s, provider: opensandbox, url: %q, secret_env: %s}\n", name, rec.URL, secretEnv))
	}

	for _, e := range [][]string{env, narrowed} {
		out := cliFails(t, e, "apply", "-f", at("Stolen", "AUXILIA_TOKEN"))
		assert.Contains(t, out, "sandboxes[0].secret_env: names AUXILIA_TOKEN, which is never sent: variables starting with AUXILIA_ are apply's and the server's own")
		assert.NotContains(t, out, "+ sandbox", "nothing is planned")
	}
	out := cliFails(t, narrowed, "apply", "-f", at("Outside", "OSK_KEY"))
	assert.Contains(t, out, "sandboxes[0].secret_env: names OSK_KEY, which does not start with SANDBOX_SECRET_ (AUXILIA_APPLY_SECRET_PREFIX)")
	assert.NotContains(t, out, "+ sandbox", "nothing is planned")
	out = cliFails(t, append(slices.Clone(env), "AUXILIA_APPLY_SECRET_PREFIX=auxilia_"), "apply", "-f", at("Opened", "AUXILIA_TOKEN"))
	assert.Contains(t, out, "AUXILIA_APPLY_SECRET_PREFIX must not start with AUXILIA_")
	exported := cli(t, env, "export")
	for _, name := range []string{"Stolen", "Outside", "Opened"} {
		assert.NotContains(t, exported, name, "nothing is applied")
	}

	inside := at("Inside", "SANDBOX_SECRET_OSK")
	assert.Equal(t, fmt.Sprintf(`+ sandbox "Inside" (opensandbox), secret from SANDBOX_SECRET_OSK → %q`+"\n", rec.URL),
		cli(t, narrowed, "apply", "-f", inside))
	// A health pass waits for all its probes before the next begins: by the
	// second probe of Inside, any sandbox made before it was probed too.
	require.Eventually(t, func() bool { return rec.times(insideKey) >= 2 }, 30*time.Second, 20*time.Millisecond,
		"the server never probed the sandbox at the recorder")
	assert.Zero(t, rec.times(adminToken), "apply's own token never reaches the url a file names")
	assert.Zero(t, rec.times(outsideKey), "a variable outside the prefix never reaches it")
}
