package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runCLI runs the binary and returns its standard output, its standard error
// and its exit status.
func runCLI(t *testing.T, env []string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		require.NoError(t, err)
	}
	return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
}

// applyServer starts a server for apply's tests and returns the CLI's
// environment for it.
func applyServer(t *testing.T, extra ...string) []string {
	srv := startServer(t, append([]string{"AUXILIA_DATA_DIR=" + t.TempDir(), "DATABASE_URL=", "AUXILIA_SECRET_KEYS=",
		"AUXILIA_BOOTSTRAP_TOKEN=" + adminToken}, extra...)...)
	return []string{"AUXILIA_URL=" + srv.URL, "AUXILIA_TOKEN=" + adminToken}
}

// With --detailed-exitcode, apply exits 2 when there were changes (pending,
// in a dry run), 0 when there were none and 1 on an error, as terraform
// plan does; without it, changes exit 0.
func TestApplyDetailedExitCode(t *testing.T) {
	env := applyServer(t)
	file := manifestFile(t, "sandboxes:\n  - {name: Local, provider: local}\n")

	out, _, code := runCLI(t, env, "apply", "-f", file, "--dry-run", "--detailed-exitcode")
	assert.Equal(t, 2, code, "changes are pending")
	assert.Equal(t, `+ sandbox "Local" (local)`+"\n", out)
	_, _, code = runCLI(t, env, "apply", "-f", file, "--dry-run")
	assert.Equal(t, 0, code, "without the flag, pending changes exit 0")
	_, _, code = runCLI(t, env, "apply", "-f", file, "--detailed-exitcode")
	assert.Equal(t, 2, code, "changes were made")
	out, _, code = runCLI(t, env, "apply", "-f", file, "--dry-run", "--detailed-exitcode")
	assert.Equal(t, 0, code, "nothing drifted")
	assert.Equal(t, "no changes\n", out)
	_, stderr, code := runCLI(t, env, "apply", "-f", manifestFile(t, "sandboxes:\n  - {name: X, provider: nowhere}\n"), "--dry-run", "--detailed-exitcode")
	assert.Equal(t, 1, code, "an error is 1")
	assert.Contains(t, stderr, "sandboxes[0].provider")
}

// A plan the server refuses any of (a sandbox's new provider, an address
// or a mount the server's rules refuse) fails in the dry run, and the
// real apply then makes none of its changes, the valid ones included.
func TestApplyRefusesAPlanBeforeAnyChange(t *testing.T) {
	env := applyServer(t, "AUXILIA_ALLOWED_HOST_PATHS=/srv/data")
	require.Equal(t, `+ sandbox "Box" (local)`+"\n", cli(t, env, "apply", "-f", manifestFile(t, "sandboxes:\n  - {name: Box, provider: local}\n")))

	moved := manifestFile(t, `
sandboxes:
  - {name: Box, provider: opensandbox, url: "sandbox.internal:8083"}
  - {name: Fresh, provider: local}
agents:
  - {name: Analyst}
`)
	for _, args := range [][]string{{"--dry-run"}, {}} {
		out, stderr, code := runCLI(t, env, append([]string{"apply", "-f", moved}, args...)...)
		assert.Equal(t, 1, code, "%v: %s", args, out)
		assert.Contains(t, out, `~ sandbox "Box": `)
		assert.Contains(t, out, "refused: 422 validation_failed")
		assert.Contains(t, out, "provider cannot change")
		assert.Contains(t, stderr, "the plan is refused, and nothing was changed: 1 of 3 change(s) refused")
	}
	exported := cli(t, env, "export")
	assert.NotContains(t, exported, "Fresh", "a refused plan makes none of its changes")
	assert.NotContains(t, exported, "Analyst")

	out, _, code := runCLI(t, env, "apply", "--dry-run", "-f", manifestFile(t, `
sandboxes:
  - {name: Metadata, provider: opensandbox, url: "http://169.254.169.254"}
  - {name: Mounted, provider: opensandbox, url: "sandbox.internal:8083", config: {volume_mounts: ["/etc:/etc"]}}
  - {name: Allowed, provider: opensandbox, url: "sandbox.internal:8083", config: {volume_mounts: ["/srv/data:/data"]}}
`))
	assert.Equal(t, 1, code, "the server's rules are checked in the dry run: %s", out)
	assert.Regexp(t, `\+ sandbox "Metadata" \(opensandbox\)\n    refused: 422 validation_failed: .*; url `, out)
	assert.Regexp(t, `\+ sandbox "Mounted" \(opensandbox\)\n    refused: 422 validation_failed: .*; config.volume_mounts.0 `, out)
	assert.True(t, strings.HasSuffix(out, `+ sandbox "Allowed" (opensandbox)`+"\n"), "a change the server accepts has no refusal: %s", out)
}

// --prune deletes only what apply made: a sandbox or an agent made over
// the API (or in the console) stays, and is not in the plan.
func TestApplyPrunesOnlyWhatItMade(t *testing.T) {
	env := applyServer(t)
	url := strings.TrimPrefix(env[0], "AUXILIA_URL=")
	for path, body := range map[string]string{"/api/v1/sandboxes": `{"name":"Console","provider":"local"}`, "/api/v1/agents": `{"name":"Helper"}`} {
		req, err := http.NewRequest("POST", url+path, bytes.NewBufferString(body))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+adminToken)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, 201, res.StatusCode)
	}
	cli(t, env, "apply", "-f", manifestFile(t, "sandboxes:\n  - {name: Made, provider: local}\nagents:\n  - {name: Bot}\n"))
	exported := cli(t, env, "export")
	assert.Contains(t, exported, "name: Console")

	empty := manifestFile(t, "sandboxes: []\n")
	plan := cli(t, env, "apply", "-f", empty, "--prune", "--dry-run")
	assert.Equal(t, `- agent "Bot"`+"\n"+`- sandbox "Made"`+"\n", plan, "the plan shows what it would delete, and only that")
	assert.Equal(t, plan, cli(t, env, "apply", "-f", empty, "--prune"))
	exported = cli(t, env, "export")
	assert.Contains(t, exported, "name: Console", "what apply did not make is never pruned")
	assert.Contains(t, exported, "name: Helper")
	assert.NotContains(t, exported, "name: Made")
	assert.NotContains(t, exported, "name: Bot")
	assert.Equal(t, "no changes\n", cli(t, env, "apply", "-f", empty, "--prune"))
}

// -o json writes the plan and what became of each change; --help and
// version exit 0.
func TestApplyWritesJSONAndHelp(t *testing.T) {
	env := applyServer(t)
	file := manifestFile(t, "sandboxes:\n  - {name: NO, provider: local}\nagents:\n  - {name: on, sandbox: NO}\n")
	type result struct {
		DryRun   bool     `json:"dry_run"`
		Problems []string `json:"problems"`
		Changes  []struct {
			Action, Kind, Name, Summary, Outcome, Error string
		} `json:"changes"`
	}
	read := func(out string) result {
		var r result
		require.NoError(t, json.Unmarshal([]byte(out), &r), out)
		return r
	}
	r := read(cli(t, env, "apply", "-f", file, "--dry-run", "-o", "json"))
	assert.True(t, r.DryRun)
	require.Len(t, r.Changes, 2)
	assert.Equal(t, "create", r.Changes[0].Action)
	assert.Equal(t, "sandbox", r.Changes[0].Kind)
	assert.Equal(t, "NO", r.Changes[0].Name, "YAML 1.2: NO is a name, not false")
	assert.Equal(t, `+ sandbox "NO" (local)`, r.Changes[0].Summary)
	assert.Equal(t, "planned", r.Changes[0].Outcome)
	assert.Equal(t, "on", r.Changes[1].Name)

	r = read(cli(t, env, "apply", "-f", file, "-o", "json"))
	assert.False(t, r.DryRun)
	assert.Equal(t, "made", r.Changes[1].Outcome)
	assert.Equal(t, `{"dry_run":false,"changes":[]}`, compact(t, cli(t, env, "apply", "-f", file, "-o", "json")))

	out, _, code := runCLI(t, env, "apply", "-o", "json", "-f", manifestFile(t, "sandboxes:\n  - {name: X, provider: nowhere}\n"))
	assert.Equal(t, 1, code)
	assert.Contains(t, read(out).Problems[0], "sandboxes[0].provider: must be one of")

	for _, args := range [][]string{{"apply", "--help"}, {"apply", "-h"}, {"--help"}, {"help"}} {
		out, _, code := runCLI(t, nil, args...)
		assert.Equal(t, 0, code, "%v", args)
		assert.Contains(t, out, "--dry-run", "%v", args)
	}
	out, _, code = runCLI(t, nil, "version")
	assert.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(out, "auxilia "), out)
	assert.Contains(t, out, runtime.Version())
}

func compact(t *testing.T, js string) string {
	var b bytes.Buffer
	require.NoError(t, json.Compact(&b, []byte(js)))
	return b.String()
}
