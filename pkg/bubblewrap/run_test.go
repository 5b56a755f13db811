package bubblewrap

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunsShellAndPython(t *testing.T) {
	j := newJail(t)
	stdout, stderr, res := run(t, j, "python3 -c 'print(6*7)'")
	assert.Equal(t, "42\n", stdout)
	assert.Empty(t, stderr)
	assert.Equal(t, 0, res.ExitCode)
	assert.False(t, res.TimedOut)
	assert.Positive(t, res.Duration)
}

func TestExitCodesAndStreams(t *testing.T) {
	j := newJail(t)
	stdout, stderr, res := run(t, j, "echo out; echo err >&2; exit 3")
	assert.Equal(t, "out\n", stdout)
	assert.Equal(t, "err\n", stderr)
	assert.Equal(t, 3, res.ExitCode, "a non-zero exit is a result")

	_, _, res = run(t, j, "kill -TERM $$")
	assert.Equal(t, 128+15, res.ExitCode, "a command ended by a signal")
}

func TestOutputArrivesAsItIsWritten(t *testing.T) {
	j := newJail(t)
	var out output
	start := time.Now()
	res, err := j.Run(context.Background(), "echo first; sleep 2; echo second", time.Minute, &out, nil)
	require.NoError(t, err)
	assert.Equal(t, "first\nsecond\n", out.String())
	assert.Less(t, out.first.Sub(start), time.Second, "the first line came before the command ended")
	assert.GreaterOrEqual(t, res.Duration, 2*time.Second)
}

func TestEnvironmentIsMinimal(t *testing.T) {
	t.Setenv("SERVER_ONLY_SECRET", "leaked")
	j := newJail(t)
	j.Env = []string{"EXTRA=1", "LANG=en_US.UTF-8"}
	stdout, _, _ := run(t, j, "env")
	vars := strings.Split(strings.TrimSpace(stdout), "\n")
	sort.Strings(vars)
	assert.Equal(t, []string{"EXTRA=1", "HOME=/workspace", "LANG=en_US.UTF-8",
		"PATH=" + DefaultPath, "PWD=/workspace", "TERM=dumb"}, vars)

	j.Home = "/home/agent"
	stdout, _, _ = run(t, j, `pwd; echo "$HOME"; touch ~/dotfile && echo home is writable`)
	assert.Equal(t, "/workspace\n/home/agent\nhome is writable\n", stdout)
}

func TestCommandsRunAsTheJailUser(t *testing.T) {
	j := newJail(t)
	uid, gid := j.User()
	if os.Geteuid() == 0 {
		assert.Equal(t, nobody, uid, "a root server never runs commands as root")
		assert.Equal(t, nobody, gid)
	} else {
		assert.Equal(t, os.Geteuid(), uid, "commands run as the server's user")
	}
	stdout, _, _ := run(t, j, "id -u; id -g; id -un; grep ^CapEff /proc/self/status; touch made")
	assert.Equal(t, strings.Join([]string{itoa(uid), itoa(gid), "sandbox", "CapEff:\t0000000000000000", ""}, "\n"), stdout)

	info, err := os.Stat(filepath.Join(j.Root, "made"))
	require.NoError(t, err)
	owner, group := fileOwner(info)
	assert.Equal(t, uid, owner, "files made by commands belong to the jail user")
	assert.Equal(t, gid, group)
}

func TestTimeoutEndsEverything(t *testing.T) {
	j := newJail(t)
	var out output
	start := time.Now()
	res, err := j.Run(context.Background(), "sleep "+marker+" & echo started; sleep 60; echo never", time.Second, &out, nil)
	require.NoError(t, err, "a timeout is a result")
	assert.Less(t, time.Since(start), 10*time.Second)
	assert.True(t, res.TimedOut)
	assert.Equal(t, TimeoutExitCode, res.ExitCode)
	assert.Equal(t, "started\n", out.String())
	assert.Empty(t, leftovers(), "no process of the command outlives its timeout")
}

func TestBackgroundProcessesEndWithTheCommand(t *testing.T) {
	j := newJail(t)
	start := time.Now()
	stdout, _, res := run(t, j, "sleep "+marker+" & nohup sleep "+marker+" >/dev/null 2>&1 & echo started")
	assert.Less(t, time.Since(start), 10*time.Second, "Run does not wait for background processes")
	assert.Equal(t, "started\n", stdout)
	assert.Equal(t, 0, res.ExitCode)
	assert.Empty(t, leftovers(), "no background process outlives its command")
}

func TestContextEndsTheCommand(t *testing.T) {
	j := newJail(t)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := j.Run(ctx, "sleep "+marker, time.Minute, nil, nil)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 10*time.Second)
	assert.Empty(t, leftovers())

	_, err = j.Run(ctx, "echo never", time.Minute, nil, nil)
	require.ErrorIs(t, err, context.DeadlineExceeded, "an ended context runs nothing")
}

func TestConcurrentJails(t *testing.T) {
	j := newJail(t)
	errs := make(chan error, 4)
	for i := range 4 {
		go func() {
			var out output
			res, err := j.Run(context.Background(), "sleep 0.5; echo "+itoa(i), time.Minute, &out, nil)
			if err == nil && (res.ExitCode != 0 || out.String() != itoa(i)+"\n") {
				err = errors.New("unexpected result: " + out.String())
			}
			errs <- err
		}()
	}
	for range 4 {
		assert.NoError(t, <-errs)
	}
}

func TestSetupFailureIsAnError(t *testing.T) {
	j := newJail(t)
	j.Binds = []Bind{{Host: "/no/such/folder", Sandbox: "/data"}}
	_, err := j.Run(context.Background(), "echo never", time.Minute, nil, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "could not set up the jail")
	assert.Contains(t, err.Error(), "/no/such/folder", "bwrap's own words say what failed")
}

func TestInvalidJails(t *testing.T) {
	for name, j := range map[string]Jail{
		"no root":           {WorkDir: "/workspace"},
		"relative work dir": {Root: t.TempDir(), WorkDir: "workspace"},
		"work dir is /":     {Root: t.TempDir(), WorkDir: "/"},
		"relative home":     {Root: t.TempDir(), WorkDir: "/workspace", Home: "home"},
		"negative limit":    {Root: t.TempDir(), WorkDir: "/workspace", MemoryMB: -1},
		"relative bind":     {Root: t.TempDir(), WorkDir: "/workspace", Binds: []Bind{{Host: "data", Sandbox: "/data"}}},
		"bad env":           {Root: t.TempDir(), WorkDir: "/workspace", Env: []string{"NOVALUE"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := j.Run(context.Background(), "true", time.Minute, nil, nil)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "invalid jail")
		})
	}
}

func TestMissingBwrap(t *testing.T) {
	j := newJail(t)
	j.Bwrap = filepath.Join(t.TempDir(), "bwrap")
	_, err := j.Run(context.Background(), "true", time.Minute, nil, nil)
	require.ErrorIs(t, err, ErrNotInstalled, "nothing runs without bubblewrap")

	t.Setenv("PATH", t.TempDir())
	j.Bwrap = ""
	_, err = j.Run(context.Background(), "true", time.Minute, nil, nil)
	require.ErrorIs(t, err, ErrNotInstalled)
	assert.Contains(t, err.Error(), `no "bwrap" in PATH`)
}
