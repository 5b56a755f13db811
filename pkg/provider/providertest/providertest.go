// Package providertest is the conformance suite every provider passes: one
// instance taken through its whole life, checking each promise of
// provider.Client as the run service relies on it.
package providertest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Run takes a new instance of client through create, execute, files,
// reconnect and destroy. Subtests run in order on the same instance.
func Run(t *testing.T, client provider.Client) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	require.NoError(t, client.Probe(ctx), "probe")
	inst, err := client.Create(ctx, provider.Labels{Workspace: "ws-1", Sandbox: "sb-1", Thread: "th-1"})
	require.NoError(t, err, "create")
	require.NotEmpty(t, inst.ID, "an instance has an id")
	require.True(t, path.IsAbs(inst.WorkDir), "an instance has an absolute working directory, not %q", inst.WorkDir)
	destroyed := false
	t.Cleanup(func() {
		if !destroyed {
			_ = client.Destroy(context.Background(), inst)
		}
	})

	t.Run("execute", func(t *testing.T) { testExecute(ctx, t, client, inst) })
	t.Run("timeout", func(t *testing.T) { testTimeout(ctx, t, client, inst) })
	t.Run("output limit", func(t *testing.T) { testOutputLimit(ctx, t, client, inst) })
	t.Run("files", func(t *testing.T) { testFiles(ctx, t, client, inst) })
	t.Run("bounded files", func(t *testing.T) { testBoundedFiles(ctx, t, client, inst) })
	t.Run("reconnect", func(t *testing.T) {
		again, err := client.Reconnect(ctx, inst)
		require.NoError(t, err)
		assert.Equal(t, inst.ID, again.ID)
		assert.Equal(t, inst.WorkDir, again.WorkDir)
		res, err := client.Execute(ctx, again, provider.ExecRequest{Command: "cat kept.txt", Timeout: 30 * time.Second})
		require.NoError(t, err)
		assert.Equal(t, "still here\n", res.Output, "files survive a reconnect")
		require.NoError(t, client.KeepAlive(ctx, again))
		require.NoError(t, client.Persist(ctx, again))
		inst = again
	})
	t.Run("destroy", func(t *testing.T) {
		require.NoError(t, client.Destroy(ctx, inst))
		destroyed = true
		_, err := client.Reconnect(ctx, inst)
		require.ErrorIs(t, err, provider.ErrGone, "a destroyed instance is gone")
		require.NoError(t, client.Destroy(ctx, inst), "destroying twice is fine")
	})
}

func run(ctx context.Context, t *testing.T, c provider.Client, inst provider.Instance, cmd string) provider.ExecResult {
	t.Helper()
	res, err := c.Execute(ctx, inst, provider.ExecRequest{Command: cmd, Timeout: 60 * time.Second})
	require.NoError(t, err, "execute %q", cmd)
	return res
}

func testExecute(ctx context.Context, t *testing.T, c provider.Client, inst provider.Instance) {
	res := run(ctx, t, c, inst, "echo hello")
	assert.Equal(t, 0, res.ExitCode)
	assert.Equal(t, "hello\n", res.Output)
	assert.False(t, res.Truncated)
	assert.False(t, res.TimedOut)

	res = run(ctx, t, c, inst, "echo out; echo err 1>&2; exit 3")
	assert.Equal(t, 3, res.ExitCode, "the command's exit code")
	assert.Contains(t, res.Output, "out\n", "stdout is in the output")
	assert.Contains(t, res.Output, "err\n", "stderr is in the output")

	res = run(ctx, t, c, inst, "pwd")
	assert.Equal(t, inst.WorkDir+"\n", res.Output, "commands run in the working directory")

	res = run(ctx, t, c, inst, `printf '%s' "$((6*7))" && printf ' a''b "c" $HOME' | wc -c`)
	assert.Equal(t, 0, res.ExitCode)
	assert.True(t, strings.HasPrefix(res.Output, "42"), "shell syntax works: %q", res.Output)

	var streamed []string
	res, err := c.Execute(ctx, inst, provider.ExecRequest{Command: "echo one; echo two 1>&2", Timeout: time.Minute,
		OnOutput: func(stream, text string) { streamed = append(streamed, stream+":"+text) }})
	require.NoError(t, err)
	joined := strings.Join(streamed, "")
	assert.Contains(t, joined, "stdout:one")
	assert.Contains(t, joined, "stderr:two")
	assert.Equal(t, 0, res.ExitCode)
}

func testTimeout(ctx context.Context, t *testing.T, c provider.Client, inst provider.Instance) {
	start := time.Now()
	res, err := c.Execute(ctx, inst, provider.ExecRequest{Command: "echo started; sleep 60; echo never", Timeout: 2 * time.Second})
	require.NoError(t, err, "a timeout is a result, not an error")
	assert.Less(t, time.Since(start), 30*time.Second, "the command is ended near its timeout")
	assert.Equal(t, provider.TimeoutExitCode, res.ExitCode)
	assert.True(t, res.TimedOut)
	assert.Contains(t, res.Output, "started")
	assert.NotContains(t, res.Output, "never")
	assert.True(t, strings.HasSuffix(res.Output, "Command timed out after 2 seconds"), "output: %q", res.Output)

	assert.Equal(t, "ok\n", run(ctx, t, c, inst, "echo ok").Output, "the instance works after a timeout")
}

func testOutputLimit(ctx context.Context, t *testing.T, c provider.Client, inst provider.Instance) {
	res, err := c.Execute(ctx, inst, provider.ExecRequest{
		Command: "head -c 200000 /dev/zero | tr '\\0' 'a'; echo; echo tail", Timeout: time.Minute, OutputLimit: 1000})
	require.NoError(t, err)
	assert.Equal(t, 0, res.ExitCode)
	assert.True(t, res.Truncated)
	notice := provider.TruncationNotice(1000)
	require.True(t, strings.HasSuffix(res.Output, notice), "output ends with the notice: %q", tail(res.Output))
	kept := strings.TrimSuffix(strings.TrimSuffix(res.Output, notice), "\n")
	assert.Equal(t, strings.Repeat("a", 1000), kept, "the first bytes are kept, up to the limit")
}

func testFiles(ctx context.Context, t *testing.T, c provider.Client, inst provider.Instance) {
	dir := path.Join(inst.WorkDir, "nested")
	file := path.Join(dir, "deep", "data.bin")
	var binary []byte
	for i := 0; i < 4; i++ {
		for b := 0; b < 256; b++ {
			binary = append(binary, byte(b))
		}
	}
	require.NoError(t, c.WriteFile(ctx, inst, file, binary), "write creates parent directories")
	got, err := ReadAll(ctx, c, inst, file)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(binary, got), "files are binary safe")

	info, err := c.Stat(ctx, inst, file)
	require.NoError(t, err)
	assert.False(t, info.Dir)
	assert.EqualValues(t, len(binary), info.Size)
	assert.Equal(t, file, info.Path)
	assert.WithinDuration(t, time.Now(), info.ModifiedAt, 24*time.Hour, "a sensible modification time")

	info, err = c.Stat(ctx, inst, dir)
	require.NoError(t, err)
	assert.True(t, info.Dir)

	entries, err := c.ListFiles(ctx, inst, dir, 100)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	assert.Equal(t, path.Join(dir, "deep"), entries[0].Path)
	assert.True(t, entries[0].Dir)
	entries, err = c.ListFiles(ctx, inst, path.Dir(file), 100)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	assert.Equal(t, file, entries[0].Path)
	assert.EqualValues(t, len(binary), entries[0].Size)

	missing := path.Join(inst.WorkDir, "no", "such.txt")
	_, err = c.Stat(ctx, inst, missing)
	assert.True(t, errors.Is(err, provider.ErrNotFound), "stat of a missing file: %v", err)
	_, err = ReadAll(ctx, c, inst, missing)
	assert.True(t, errors.Is(err, provider.ErrNotFound), "read of a missing file: %v", err)
	_, err = c.ListFiles(ctx, inst, missing, 100)
	assert.True(t, errors.Is(err, provider.ErrNotFound), "list of a missing directory: %v", err)

	text := path.Join(inst.WorkDir, "kept.txt")
	require.NoError(t, c.WriteFile(ctx, inst, text, []byte("first\n")))
	require.NoError(t, c.WriteFile(ctx, inst, text, []byte("still here\n")), "write overwrites")
	assert.Equal(t, "still here\n", run(ctx, t, c, inst, "cat kept.txt").Output, "commands see written files")
	_, err = c.Stat(ctx, inst, path.Join(text, "inner.txt"))
	assert.True(t, errors.Is(err, provider.ErrNotFound), "stat of a path through a file: %v", err)

	run(ctx, t, c, inst, "mkdir -p made && printf 'by a command' > made/by-command.txt")
	got, err = ReadAll(ctx, c, inst, path.Join(inst.WorkDir, "made", "by-command.txt"))
	require.NoError(t, err)
	assert.Equal(t, "by a command", string(got), "files made by commands are readable")

	empty := path.Join(inst.WorkDir, "empty.txt")
	require.NoError(t, c.WriteFile(ctx, inst, empty, nil))
	got, err = ReadAll(ctx, c, inst, empty)
	require.NoError(t, err)
	assert.Empty(t, got, "an empty file round-trips")

	require.NoError(t, c.RemoveFile(ctx, inst, empty))
	_, err = c.Stat(ctx, inst, empty)
	assert.True(t, errors.Is(err, provider.ErrNotFound), "a removed file is gone: %v", err)
}

// testBoundedFiles checks what keeps a large file or directory from being
// held whole: a listing stops at its limit, and a file is a stream that may
// be left unfinished.
func testBoundedFiles(ctx context.Context, t *testing.T, c provider.Client, inst provider.Instance) {
	res := run(ctx, t, c, inst, "mkdir -p many && cd many && for i in 1 2 3 4 5 6 7; do touch f$i; done && "+
		"head -c 3000000 /dev/zero | tr '\\0' 'x' > ../large.txt")
	require.Equal(t, 0, res.ExitCode, res.Output)
	dir := path.Join(inst.WorkDir, "many")
	entries, err := c.ListFiles(ctx, inst, dir, 3)
	require.NoError(t, err)
	assert.Len(t, entries, 3, "a listing stops at its limit")
	for _, e := range entries {
		assert.Equal(t, dir, path.Dir(e.Path))
	}
	entries, err = c.ListFiles(ctx, inst, dir, 100)
	require.NoError(t, err)
	assert.Len(t, entries, 7)

	for range 3 { // a stream left unfinished spoils nothing for the next calls
		f, err := c.OpenFile(ctx, inst, path.Join(inst.WorkDir, "large.txt"))
		require.NoError(t, err)
		head := make([]byte, 10)
		_, err = io.ReadFull(f, head)
		require.NoError(t, err)
		assert.Equal(t, "xxxxxxxxxx", string(head))
		require.NoError(t, f.Close())
	}
	got, err := ReadAll(ctx, c, inst, path.Join(inst.WorkDir, "large.txt"))
	require.NoError(t, err)
	assert.Len(t, got, 3000000, "a stream read to its end is the whole file")
	require.NoError(t, c.RemoveFile(ctx, inst, path.Join(inst.WorkDir, "large.txt")))
}

// ReadAll reads a whole file through OpenFile.
func ReadAll(ctx context.Context, c provider.Client, inst provider.Instance, p string) ([]byte, error) {
	f, err := c.OpenFile(ctx, inst, p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

func tail(s string) string {
	if len(s) > 200 {
		return "…" + s[len(s)-200:]
	}
	return s
}
