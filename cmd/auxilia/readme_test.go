package main_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// walkthrough returns the README's shell blocks that follow a
// "<!-- walkthrough -->" marker, in order.
func walkthrough(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	var script strings.Builder
	for _, part := range strings.Split(string(raw), "<!-- walkthrough -->")[1:] {
		start := strings.Index(part, "```sh\n")
		end := strings.Index(part[start+6:], "```")
		require.True(t, start >= 0 && end >= 0, "a walkthrough marker is followed by a sh block")
		script.WriteString(part[start+6 : start+6+end])
	}
	require.NotEmpty(t, script.String())
	return script.String()
}

// The README's curl walk-through, run as written against the real binary.
func TestREADMEWalkthrough(t *testing.T) {
	const token = "aux_ReadmeAdminToken0123456789abcdefghijklmnopq"
	srv := startServer(t, "AUXILIA_DATA_DIR="+t.TempDir(), "DATABASE_URL=", "AUXILIA_SECRET_KEYS=",
		"AUXILIA_BOOTSTRAP_TOKEN="+token)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", walkthrough(t))
	cmd.Env = append(os.Environ(), "AUX="+srv.URL, "TOKEN="+token)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "the walkthrough fails:\n%s", out)
	text := string(out)

	for _, want := range []string{
		`"role":"admin"`,
		`"url":"http://sandbox.internal:8083"`,
		`"default_image":"python:3.12-slim"`,
		`"default_packages":["pandas==2.2.*"]`,
		`"has_secret":true`,
		`"reason":"validation_failed"`,
		`"field":"config.volume_mounts.0"`,
		`"field":"config.timeout"`,
		`"description":"EU team"`,
		`{"is_set":true,"last4":"WXYZ","length":24}`,
		`"tools":{"edit_file":"always_allow","execute":"always_allow","glob":"always_allow","grep":"always_allow","ls":"always_allow","read_file":"always_allow","write_file":"needs_approval"}`,
		`{"exit_code":0,"output":"42\n","truncated":false`,
		`"reason":"approval_required"`,
		`{"path":"/workspace/greeting.txt","content":"hello","offset":0,"lines":1,"total_lines":1,"truncated":false}`,
		`"status":"completed"`,
		`"reason":"sandbox_in_use"`,
		`Sandbox is used by 1 agent(s) — detach it first`,
		`"agents":[{`,
		`"sandbox":null`,
		`{"items":[],"next_page_token":""}`,
		`"action":"sandbox.delete"`,
	} {
		assert.Contains(t, text, want)
	}
	for _, secret := range []string{"osk-team-0123456789", "dtn_0123456789abcdef", "gateway-secret-0123456789"} {
		assert.NotContains(t, text, secret, "no answer shows a secret")
		assert.NotContains(t, srv.logs(), secret, "no log line holds a secret")
	}
}
