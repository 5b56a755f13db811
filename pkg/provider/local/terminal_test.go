package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The terminal's shell is in the instance's jail, as its commands are:
// its folder at /workspace, the jail's host name and user, no network,
// a terminal type programs know; destroying the instance ends it.
func TestTerminalIsInTheInstancesJail(t *testing.T) {
	eachIsolation(t, func(t *testing.T, isolation string) {
		c := newIsolatedClient(t, isolation)
		ctx := context.Background()
		inst, err := c.Create(ctx, provider.Labels{Workspace: "ws-1", Sandbox: "sb-1", Thread: "th-jail"})
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Destroy(context.Background(), inst) })
		_, err = c.Execute(ctx, inst, provider.ExecRequest{Command: "echo from-a-command > mark.txt", Timeout: time.Minute})
		require.NoError(t, err)

		pty, err := c.OpenTerminal(ctx, inst, provider.DefaultTermSize)
		require.NoError(t, err)
		t.Cleanup(func() { _ = pty.Close() })
		_, err = pty.Write([]byte(`echo "[$(pwd) $(hostname) $(id -u) $TERM $(cat mark.txt)]"; getent hosts example.com || echo "[off""line]"` + "\r"))
		require.NoError(t, err)
		out := readUntil(t, pty, "[offline]")
		assert.Contains(t, out, fmt.Sprintf("[/workspace sandbox %d xterm-256color from-a-command]", c.user(t, inst).UID))

		ended := make(chan error, 1)
		go func() {
			_, err := io.Copy(io.Discard, pty)
			ended <- err
		}()
		require.NoError(t, c.Destroy(ctx, inst))
		select {
		case err := <-ended:
			require.Error(t, err, "the shell did not exit: it was ended")
			assert.True(t, errors.Is(err, provider.ErrGone), "destroyed: %v", err)
		case <-time.After(20 * time.Second):
			t.Fatal("destroying the instance did not end its terminal")
		}
	})
}

// readUntil reads the terminal until its output holds want.
func readUntil(t *testing.T, pty provider.PTY, want string) string {
	t.Helper()
	var out strings.Builder
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for !strings.Contains(out.String(), want) {
			n, err := pty.Read(buf)
			out.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("the terminal did not show %q", want)
	}
	return out.String()
}
