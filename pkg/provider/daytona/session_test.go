package daytona_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
)

// The output reaches the caller while the command runs: the command
// waits for a file the test writes only once it has seen the first line.
func TestExecuteStreamsOutputAsItComes(t *testing.T) {
	fake, client, inst := started(t, daytonatest.Options{})
	goFile := filepath.Join(fake.HomeDir(inst.ID), "go")
	var once sync.Once
	res, err := client.Execute(context.Background(), inst, provider.ExecRequest{
		Command: "echo first; while [ ! -e go ]; do sleep 0.05; done; echo second", Timeout: 20 * time.Second,
		OnOutput: func(stream, text string) {
			if strings.Contains(text, "first") {
				once.Do(func() { require.NoError(t, os.WriteFile(goFile, nil, 0o644)) })
			}
		},
	})
	require.NoError(t, err)
	assert.False(t, res.TimedOut, "the first line came before the command ended")
	assert.Equal(t, "first\nsecond\n", res.Output)
}

// The caller sees each stream's pieces in the order they were written.
func TestExecuteStreamsInOrder(t *testing.T) {
	_, client, inst := started(t, daytonatest.Options{})
	var seen []string
	_, err := client.Execute(context.Background(), inst, provider.ExecRequest{
		Command: "echo one; echo two >&2; sleep 0.2; echo three; sleep 0.2; printf 'four' >&2", Timeout: time.Minute,
		OnOutput: func(stream, text string) {
			if n := len(seen); n > 0 && strings.HasPrefix(seen[n-1], stream+":") {
				seen[n-1] += text
				return
			}
			seen = append(seen, stream+":"+text)
		},
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"stdout:one\n", "stderr:two\n", "stdout:three\n", "stderr:four"}, seen)
}

// A cancelled command is killed with its session: the lock it held is
// free once Execute returns, and it never writes the file it would have
// written later.
func TestExecuteCancelKillsTheSession(t *testing.T) {
	fake, client, inst := started(t, daytonatest.Options{})
	home := fake.HomeDir(inst.ID)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := client.Execute(ctx, inst, provider.ExecRequest{
		Command: "exec 9>lock; flock 9; echo holding; while [ ! -e go ]; do sleep 0.05; done; touch later", Timeout: time.Minute,
		OnOutput: func(_, text string) {
			if strings.Contains(text, "holding") {
				cancel()
			}
		},
	})
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 1, fake.Calls(daytonatest.OpDeleteSession))
	assert.True(t, lockFree(t, filepath.Join(home, "lock")), "the command is dead")
	require.NoError(t, os.WriteFile(filepath.Join(home, "go"), nil, 0o644))
	assert.NoFileExists(t, filepath.Join(home, "later"))
	after := run(t, client, inst, "ls -A /tmp")
	assert.Equal(t, 1, strings.Count(after.Output, ".auxilia-exec-"), "only the listing command's own folder is in /tmp: %q", after.Output)
}

// At its timeout a command is killed with its session; the output it
// wrote is kept, stderr apart. (The timeout leaves the jail time to start
// on a loaded machine.)
func TestExecuteTimeoutKeepsTheOutputSoFar(t *testing.T) {
	fake, client, inst := started(t, daytonatest.Options{})
	streams := map[string]string{}
	const timeout = 5 * time.Second
	res, err := client.Execute(context.Background(), inst, provider.ExecRequest{
		Command: "echo before; echo oops >&2; exec 9>lock; flock 9; sleep 60; echo after", Timeout: timeout,
		OnOutput: func(stream, text string) { streams[stream] += text },
	})
	require.NoError(t, err, "a timeout is a result")
	assert.True(t, res.TimedOut)
	assert.Equal(t, provider.TimeoutExitCode, res.ExitCode)
	assert.Equal(t, "before\noops\n"+provider.TimeoutNotice(timeout), res.Output)
	assert.Equal(t, map[string]string{"stdout": "before\n", "stderr": "oops\n"}, streams)
	assert.Equal(t, 1, fake.Calls(daytonatest.OpDeleteSession))
	assert.True(t, lockFree(t, filepath.Join(fake.HomeDir(inst.ID), "lock")), "the command is dead")
}

// A warm command costs a session's four calls, and nothing else.
func TestExecuteCalls(t *testing.T) {
	fake, client, inst := started(t, daytonatest.Options{})
	fake.ResetCalls()
	res := run(t, client, inst, "echo hi; exit 3")
	assert.Equal(t, 3, res.ExitCode)
	assert.Equal(t, "hi\n", res.Output)
	for _, op := range []string{daytonatest.OpCreateSession, daytonatest.OpSessionExecuteCommand, daytonatest.OpGetSessionCommandLogs, daytonatest.OpDeleteSession} {
		assert.Equal(t, 1, fake.Calls(op), op)
	}
	assert.Zero(t, fake.Calls(daytonatest.OpExecuteCommand))
	assert.Zero(t, fake.Calls(daytonatest.OpGetSandbox))
	assert.Zero(t, fake.Calls(daytonatest.OpGetSessionCommand), "the exit code comes with the output")
}

// A daemon without sessions answers 404 once; its instance's commands go
// to /process/execute from then on.
func TestExecuteWithoutSessionsAsksOnce(t *testing.T) {
	fake, client, inst := started(t, daytonatest.Options{NoSessions: true})
	fake.ResetCalls()
	assert.Equal(t, "one\n", run(t, client, inst, "echo one").Output)
	assert.Equal(t, "two\n", run(t, client, inst, "echo two").Output)
	assert.Equal(t, 1, fake.Calls(daytonatest.OpCreateSession))
	assert.Equal(t, 2, fake.Calls(daytonatest.OpExecuteCommand))
}

// A session whose command cannot start, or whose output cannot be
// followed, is deleted all the same: nothing is left running, nor any
// folder of the command's.
func TestExecuteDeletesTheSessionOnFailure(t *testing.T) {
	for _, op := range []string{daytonatest.OpSessionExecuteCommand, daytonatest.OpGetSessionCommandLogs} {
		t.Run(op, func(t *testing.T) {
			fake, client, inst := started(t, daytonatest.Options{})
			fake.Inject(op, daytonatest.Fault{Status: http.StatusInternalServerError, Message: "daemon broke"})
			fake.ResetCalls()
			_, err := client.Execute(context.Background(), inst, provider.ExecRequest{Command: "sleep 60", Timeout: time.Minute})
			require.Error(t, err)
			assert.Contains(t, err.Error(), "daemon broke", "the daemon's own words")
			assert.Equal(t, 1, fake.Calls(daytonatest.OpDeleteSession))
			after := run(t, client, inst, "ls -A /tmp")
			assert.Equal(t, 1, strings.Count(after.Output, ".auxilia-exec-"), "only the listing command's own folder is in /tmp: %q", after.Output)
		})
	}
}

// lockFree reports whether no process holds a lock on the file p.
func lockFree(t *testing.T, p string) bool {
	t.Helper()
	f, err := os.Open(p)
	require.NoError(t, err)
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false
	}
	require.NoError(t, err)
	return true
}
