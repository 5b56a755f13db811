package gateway

import (
	"archive/tar"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newJailHarness is a gateway whose sandboxes run under bubblewrap, as deployed.
func newJailHarness(t *testing.T, edit ...func(*Config)) *harness {
	h := newHarness(t, edit...)
	h.gw.launcher = NewBubblewrapLauncher(h.gw.cfg)
	return h
}

func TestBubblewrapRunsALoginBashInTheWorkspace(t *testing.T) {
	h := newJailHarness(t)
	sb := h.create(sandboxSpec{})
	res := h.exec(sb.ID, map[string]any{"command": `shopt -q login_shell && echo login; pwd; echo "$BASH_VERSION" | cut -c1; printf '%s' "$((6*7))"`})
	assert.Equal(t, 0, res.ExitCode, res.Stderr)
	assert.Equal(t, "login\n/workspace\n5\n42", res.Stdout)

	res = h.exec(sb.ID, map[string]any{"command": "echo 'it'\"'\"'s quoted'; exit 9"})
	assert.Equal(t, "it's quoted\n", res.Stdout, "quotes in the command survive the jail's own shell")
	assert.Equal(t, 9, res.ExitCode)

	res = h.exec(sb.ID, map[string]any{"command": "echo started; sleep 30", "timeout": 1})
	assert.True(t, res.TimedOut)
	assert.Equal(t, 124, res.ExitCode)
	assert.Equal(t, "started\n", res.Stdout)
}

// A sandbox's commands run under the jail's system-call filter, which
// keeps them from making namespaces of their own.
func TestBubblewrapCommandsRunUnderTheFilter(t *testing.T) {
	h := newJailHarness(t)
	sb := h.create(sandboxSpec{})
	res := h.exec(sb.ID, map[string]any{"command": "grep '^Seccomp:' /proc/self/status; unshare -Ur true 2>/dev/null || echo refused"})
	assert.Equal(t, "Seccomp:\t2\nrefused\n", res.Stdout, res.Stderr)
}

func TestBubblewrapCommandsOwnTheGatewaysFiles(t *testing.T) {
	h := newJailHarness(t)
	sb := h.create(sandboxSpec{})
	resp := h.call("PUT", "/sandboxes/"+sb.ID+"/files/content?path=deep/down/notes.txt", strings.NewReader("one\n"))
	require.Equal(t, http.StatusNoContent, resp.StatusCode)
	decode[RestoreResult](t, h.restoreTar(sb.ID, makeTar(t,
		entry{name: "restored/", kind: tar.TypeDir}, entry{name: "restored/a.txt", body: "a\n"}, entry{name: "loose/b.txt", body: "b\n"},
		entry{name: "deep/down/notes.txt", body: "one\n"})), http.StatusOK)
	res := h.exec(sb.ID, map[string]any{"command": "echo two >> deep/down/notes.txt && touch deep/down/new restored/new loose/new && rm restored/a.txt && cat deep/down/notes.txt"})
	assert.Equal(t, 0, res.ExitCode, "files the gateway wrote belong to the command's user: %s", res.Stderr)
	assert.Equal(t, "one\ntwo\n", res.Stdout)
}

// A command cannot write a file past the gateway's limit, so a runaway
// write stops there rather than filling the instance's disk.
func TestBubblewrapLimitsFileSize(t *testing.T) {
	h := newJailHarness(t, func(c *Config) { c.SandboxMaxFileMB = 1 })
	sb := h.create(sandboxSpec{})
	res := h.exec(sb.ID, map[string]any{"command": "head -c 2097152 /dev/zero > big; echo $?; stat -c %s big"})
	assert.Equal(t, "153\n1048576\n", res.Stdout, "the write is stopped at 1 MiB (SIGXFSZ): %s", res.Stderr)
	res = h.exec(sb.ID, map[string]any{"command": "head -c 1048576 /dev/zero > fits && stat -c %s fits"})
	assert.Equal(t, "1048576\n", res.Stdout, res.Stderr)
}

func TestBubblewrapEgressNeedsBothSides(t *testing.T) {
	for _, tc := range []struct {
		gateway, asked bool
		want           string
	}{
		{false, true, "lo:\n"},
		{true, false, "lo:\n"},
		{true, true, "lo:\ntap0:\n"}, // a network of its own, through slirp4netns
	} {
		h := newJailHarness(t, func(c *Config) { c.AllowEgress = tc.gateway })
		sb := h.create(sandboxSpec{AllowEgress: tc.asked})
		res := h.exec(sb.ID, map[string]any{"command": "awk 'NR>2{print $1}' /proc/net/dev"})
		assert.Equal(t, tc.want, res.Stdout, "gateway %v, asked %v", tc.gateway, tc.asked)
	}
}

// The commands of one sandbox share its memory: two processes that each fit
// the limit alone do not both fit at once.
func TestBubblewrapBoundsASandboxAsAWhole(t *testing.T) {
	h := newJailHarness(t, func(c *Config) { c.SandboxMemoryMB = 256 })
	require.NotNil(t, h.gw.launcher.(*BubblewrapLauncher).cgroups, "the tests run as root, where the gateway makes cgroups")
	sb := h.create(sandboxSpec{})
	hold := `python3 -c 'import time; b = b"x" * (200 << 20); time.sleep(2); print("held")'`
	res := h.exec(sb.ID, map[string]any{"command": hold + " & " + hold + " & wait; " + hold})
	assert.Less(t, strings.Count(res.Stdout, "held"), 3, "two 200 MB processes do not fit in 256 MB together: %s", res.Stderr)
	assert.Contains(t, res.Stdout, "held", "one alone fits: %s", res.Stderr)
}
