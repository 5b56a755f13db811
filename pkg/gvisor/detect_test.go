package gvisor

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

// fakeRunsc is a runsc that runs script (sh) instead.
func fakeRunsc(t *testing.T, script string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "runsc")
	require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\n"+script+"\n"), 0o755))
	return path
}

func TestPlatformsAreChecked(t *testing.T) {
	for _, p := range Platforms() {
		got, err := ParsePlatform(p)
		assert.NoError(t, err)
		assert.Equal(t, p, got)
	}
	_, err := ParsePlatform("vm")
	assert.EqualError(t, err, `must be one of ptrace, systrap, kvm, not "vm"`)
	s := detect(context.Background(), Probe{Runsc: fakeRunsc(t, "exit 0"), Platform: "vm"}, 0)
	assert.False(t, s.Available())
	assert.Contains(t, s.Reason(), "the platform must be one of")
}

func TestNotInstalledSaysSo(t *testing.T) {
	s := detect(context.Background(), Probe{Runsc: filepath.Join(t.TempDir(), "runsc")}, 0)
	assert.False(t, s.Available())
	assert.Contains(t, s.Reason(), "runsc is not installed")
	assert.Empty(t, s.Runsc)
}

func TestNotRootSaysSo(t *testing.T) {
	s := detect(context.Background(), Probe{Runsc: fakeRunsc(t, "exit 0")}, 1000)
	assert.False(t, s.Available())
	assert.Equal(t, "the server is not root, and runsc needs root to make its sandboxes here", s.Reason())
}

func TestAFailingPlatformSaysSoInRunscsWords(t *testing.T) {
	runsc := fakeRunsc(t, `echo "W1204 20:21:06.769990   10693 util.go:64] FATAL ERROR: unknown platform: systrap" >&2
echo "unknown platform: systrap" >&2
exit 128`)
	s := detect(context.Background(), Probe{Runsc: runsc, Platform: Systrap}, 0)
	assert.False(t, s.Available())
	assert.Equal(t, "runsc fails with the systrap platform: unknown platform: systrap", s.Reason())
	assert.False(t, s.Runs())
	assert.Equal(t, Systrap, s.Platform)
}

func TestTheProbeGetsWhatItNeeds(t *testing.T) {
	args := filepath.Join(t.TempDir(), "args")
	s := detect(context.Background(), Probe{Runsc: fakeRunsc(t, `echo "$@" > `+args)}, 0)
	require.True(t, s.Available(), s.Reason())
	assert.Equal(t, Ptrace, s.Platform, "the default")
	got, err := os.ReadFile(args)
	require.NoError(t, err)
	assert.Regexp(t, `^--root=\S+ --platform=ptrace --network=none do /bin/sh -c stat / >/dev/null 2>&1 \|\| exit 97\n$`, string(got))
	root := strings.TrimPrefix(strings.Fields(string(got))[0], "--root=")
	assert.NoDirExists(t, root, "its state folder is removed")
}

func TestARunscWhoseSandboxCannotStatIsNotOffered(t *testing.T) {
	s := detect(context.Background(), Probe{Runsc: fakeRunsc(t, "exit 97")}, 0)
	assert.False(t, s.Available())
	assert.Contains(t, s.Reason(), "runsc runs, but its sandbox cannot stat files")
	assert.Contains(t, s.Reason(), "runsc from 2023 on is needed")
	assert.True(t, s.Runs(), "it does start sandboxes")
}

func TestAProbeThatHangsIsBounded(t *testing.T) {
	runsc := fakeRunsc(t, "sleep 60 & sleep 60")
	start := time.Now()
	s := detect(context.Background(), Probe{Runsc: runsc, Timeout: 200 * time.Millisecond}, 0)
	assert.Less(t, time.Since(start), 5*time.Second, "its children killed with it")
	assert.False(t, s.Available())
	assert.Equal(t, "runsc fails with the ptrace platform: no answer within 200ms", s.Reason())
}

func TestWordsAreShortAndPlain(t *testing.T) {
	assert.Equal(t, "", Words("\n \n"))
	assert.Equal(t, "creating container: no", Words("I1204 x.go:1] starting\nE1204 20:21:06.7 1 y.go:2] creating container: no\n\n"))
	long := Words(strings.Repeat("é", 400))
	assert.LessOrEqual(t, len(long), maxWords+len("…"))
	assert.True(t, strings.HasSuffix(long, "…"))
}

// On a host that runs it (root, runsc installed), the real probe works;
// where it cannot, the test says why (and fails in CI).
func TestTheRealRunscRuns(t *testing.T) {
	if _, err := exec.LookPath("runsc"); err != nil && os.Getenv("CI") == "" {
		t.Skip("runsc is not installed here")
	}
	if os.Geteuid() != 0 && os.Getenv("CI") == "" {
		t.Skip("not root")
	}
	if _, err := os.Stat("/dev/kvm"); err != nil {
		kvm := Detect(context.Background(), Probe{Platform: KVM})
		assert.False(t, kvm.Available())
		assert.Contains(t, kvm.Reason(), "runsc fails with the kvm platform: ")
		assert.Contains(t, kvm.Reason(), "/dev/kvm")
	}
	s := Detect(context.Background(), Probe{})
	require.True(t, s.Available(), s.Reason())
}
