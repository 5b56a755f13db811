package gvisor_test

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/hostterm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readUntil reads the terminal until want shows or the time is up.
func readUntil(t *testing.T, r io.Reader, want string) string {
	t.Helper()
	var out bytes.Buffer
	got := make(chan struct{})
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := r.Read(buf)
			out.Write(buf[:n])
			if strings.Contains(out.String(), want) || err != nil {
				close(got)
				return
			}
		}
	}()
	select {
	case <-got:
	case <-time.After(20 * time.Second):
		t.Fatalf("no %q on the terminal", want)
	}
	return out.String()
}

func TestAShellGetsATerminalOfItsSizeAndItsExitCode(t *testing.T) {
	c, _ := startContainer(t)
	term, tty, err := hostterm.Open(provider.TermSize{Cols: 100, Rows: 30}, func() {})
	require.NoError(t, err)
	defer term.Close()
	sh, err := c.Terminal(testUID, testUID, []string{"/bin/sh", "-i"}, []string{"TERM=xterm"}, tty)
	require.NoError(t, err)
	_, err = term.Write([]byte("stty size; [ -t 0 ] && echo IS-A-TTY; id -u; echo END$((1+1))\n"))
	require.NoError(t, err)
	out := readUntil(t, term, "END2")
	assert.Contains(t, out, "30 100")
	assert.Contains(t, out, "IS-A-TTY")
	assert.Contains(t, out, "600123")

	require.NoError(t, term.Resize(context.Background(), provider.TermSize{Cols: 90, Rows: 20}))
	_, err = term.Write([]byte("stty size; exit 4\n"))
	require.NoError(t, err)
	code, err := sh.Wait()
	require.NoError(t, tty.Close())
	term.Ended(code, err)
	require.NoError(t, err)
	assert.Equal(t, 4, code)
	assert.Contains(t, readUntil(t, term, "20 90"), "20 90", "resized")
}

func TestAKilledShellEnds(t *testing.T) {
	c, _ := startContainer(t)
	term, tty, err := hostterm.Open(provider.TermSize{Cols: 80, Rows: 24}, func() {})
	require.NoError(t, err)
	defer term.Close()
	sh, err := c.Terminal(testUID, testUID, []string{"/bin/sh", "-c", "echo READY; sleep 300"}, nil, tty)
	require.NoError(t, err)
	readUntil(t, term, "READY")
	start := time.Now()
	sh.Kill(context.Background())
	code, err := sh.Wait()
	require.NoError(t, tty.Close())
	term.Ended(code, err)
	require.NoError(t, err)
	assert.NotEqual(t, 0, code)
	assert.Less(t, time.Since(start), 15*time.Second)
}
