package daytona_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExecuteTellsTheStreamsApart(t *testing.T) {
	forEachDialect(t, daytonatest.Options{}, func(t *testing.T, opts daytonatest.Options) {
		_, client, inst := started(t, opts)
		streams := map[string]string{}
		res, err := client.Execute(context.Background(), inst, provider.ExecRequest{
			Command: "echo one; echo two >&2; sleep 0.2; echo three; printf 'no newline' >&2", Timeout: time.Minute,
			OnOutput: func(stream, text string) { streams[stream] += text },
		})
		require.NoError(t, err)
		assert.Equal(t, "one\nthree\n", streams["stdout"])
		assert.Equal(t, "two\nno newline", streams["stderr"], "stderr exactly, its last line unended")
		assert.Equal(t, "one\ntwo\nthree\nno newline", res.Output, "both, in the order written")
	})
}

func TestExecuteShellSyntax(t *testing.T) {
	forEachDialect(t, daytonatest.Options{}, func(t *testing.T, opts daytonatest.Options) {
		_, client, inst := started(t, opts)
		cmd := `x='it'"'"'s'; printf '%s|%s\n' "$x" "\\back"` + "\ncat <<'EOF'\n$HOME stays\nEOF"
		res := run(t, client, inst, cmd)
		assert.Equal(t, "it's|\\back\n$HOME stays\n", res.Output)
	})
}

func TestExecuteLongCommand(t *testing.T) {
	forEachDialect(t, daytonatest.Options{}, func(t *testing.T, opts daytonatest.Options) {
		_, client, inst := started(t, opts)
		long := strings.Repeat("x", 300_000) // more than one exec argument may hold
		res := run(t, client, inst, "printf '%s' '"+long+"' | wc -c")
		assert.Equal(t, "300000", strings.TrimSpace(res.Output))
	})
}

func TestExecuteHasNoStdin(t *testing.T) {
	forEachDialect(t, daytonatest.Options{}, func(t *testing.T, opts daytonatest.Options) {
		_, client, inst := started(t, opts)
		res := run(t, client, inst, "cat; echo done")
		assert.Equal(t, "done\n", res.Output)
	})
}

func TestExecuteExitCodes(t *testing.T) {
	forEachDialect(t, daytonatest.Options{}, func(t *testing.T, opts daytonatest.Options) {
		_, client, inst := started(t, opts)
		assert.Equal(t, 0, run(t, client, inst, "true").ExitCode)
		assert.Equal(t, 255, run(t, client, inst, "exit 255").ExitCode)
		assert.Equal(t, 137, run(t, client, inst, "kill -9 $$").ExitCode, "a killed command: 128 + the signal")
	})
}

func TestExecuteLimitsStderrToo(t *testing.T) {
	forEachDialect(t, daytonatest.Options{}, func(t *testing.T, opts daytonatest.Options) {
		_, client, inst := started(t, opts)
		res, err := client.Execute(context.Background(), inst, provider.ExecRequest{
			Command: "for i in $(seq 1 2000); do echo line$i >&2; done", Timeout: time.Minute, OutputLimit: 100})
		require.NoError(t, err)
		assert.True(t, res.Truncated)
		assert.True(t, strings.HasPrefix(res.Output, "line1\nline2\n"))
		assert.True(t, strings.HasSuffix(res.Output, provider.TruncationNotice(100)))
	})
}

func TestExecuteRelativeToTheWorkDir(t *testing.T) {
	forEachDialect(t, daytonatest.Options{}, func(t *testing.T, opts daytonatest.Options) {
		_, client, inst := started(t, opts)
		ctx := context.Background()
		require.NoError(t, client.WriteFile(ctx, inst, "rel/a.txt", []byte("A")))
		assert.Equal(t, "A", run(t, client, inst, "cat rel/a.txt").Output)
		info, err := client.Stat(ctx, inst, "rel/a.txt")
		require.NoError(t, err)
		assert.Equal(t, inst.WorkDir+"/rel/a.txt", info.Path, "relative paths resolve in the work dir")
	})
}

// A job left running in the background does not hold the command: it
// returns when its shell does, as on execd.
func TestExecuteReturnsWithAJobLeftRunning(t *testing.T) {
	forEachDialect(t, daytonatest.Options{}, func(t *testing.T, opts daytonatest.Options) {
		_, client, inst := started(t, opts)
		begun := time.Now()
		res, err := client.Execute(context.Background(), inst, provider.ExecRequest{
			Command: "sleep 30 & echo started; echo on stderr >&2", Timeout: 20 * time.Second,
		})
		require.NoError(t, err)
		assert.Equal(t, 0, res.ExitCode)
		assert.False(t, res.TimedOut)
		assert.Equal(t, "started\non stderr\n", res.Output)
		assert.Less(t, time.Since(begun), 10*time.Second)
	})
}

// Commands run in bash where the image has it, as on execd and the
// gateway, whatever shell the daemon itself picks.
func TestExecuteInBash(t *testing.T) {
	forEachDialect(t, daytonatest.Options{}, func(t *testing.T, opts daytonatest.Options) {
		_, client, inst := started(t, opts)
		res := run(t, client, inst, "echo 'v=ok' > vars.sh; source vars.sh; [[ $v == ok ]] && echo \"$v\"; set -o pipefail; false | true; echo $?")
		assert.Equal(t, "ok\n1\n", res.Output)
	})
}

// Daemons before v0.156 run a command without a shell; commands are sent
// in a form they run too, timeouts and all.
func TestExecuteOnDaemonsWithoutAShell(t *testing.T) {
	forEachDialect(t, daytonatest.Options{ArgvCommands: true}, func(t *testing.T, opts daytonatest.Options) {
		_, client, inst := started(t, opts)
		res := run(t, client, inst, "x='two words'\necho \"$x\"; echo oops >&2\nexit 3")
		assert.Equal(t, 3, res.ExitCode)
		assert.Equal(t, "two words\noops\n", res.Output)

		// Three seconds: a jailed command on a loaded machine may take one to say anything.
		res, err := client.Execute(context.Background(), inst, provider.ExecRequest{Command: "echo before\nsleep 30", Timeout: 3 * time.Second})
		require.NoError(t, err)
		assert.True(t, res.TimedOut)
		assert.Equal(t, "before\n"+provider.TimeoutNotice(3*time.Second), res.Output)
	})
}

// A command whose caller gives up is killed: it writes nothing after.
func TestExecuteCancelledIsKilled(t *testing.T) {
	forEachDialect(t, daytonatest.Options{}, func(t *testing.T, opts daytonatest.Options) {
		fake, client, inst := started(t, opts)
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(500*time.Millisecond, cancel)
		_, err := client.Execute(ctx, inst, provider.ExecRequest{Command: "sleep 1.5; touch later", Timeout: time.Minute})
		require.ErrorIs(t, err, context.Canceled)
		time.Sleep(2500 * time.Millisecond)
		_, err = os.Stat(filepath.Join(fake.HomeDir(inst.ID), "later"))
		assert.True(t, os.IsNotExist(err), "the cancelled command was killed before it wrote: %v", err)
		after := run(t, client, inst, "ls -A /tmp")
		assert.Equal(t, 1, strings.Count(after.Output, ".auxilia-exec-"), "only the listing command's own folder is in /tmp: %q", after.Output)
	})
}

// forEachDialect runs test against a daemon with sessions and one without,
// each as base otherwise is.
func forEachDialect(t *testing.T, base daytonatest.Options, test func(t *testing.T, opts daytonatest.Options)) {
	for _, d := range []struct {
		name       string
		noSessions bool
	}{{"sessions", false}, {"without sessions", true}} {
		t.Run(d.name, func(t *testing.T) {
			opts := base
			opts.NoSessions = d.noSessions
			test(t, opts)
		})
	}
}
