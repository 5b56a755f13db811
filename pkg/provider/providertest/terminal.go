package providertest

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// RunTerminal checks a provider's interactive terminal through its real
// PTY path, on inst (a running instance of client, which must be a
// provider.TerminalOpener): the opening size, a cd that lasts, python3's
// prompt, Ctrl-C to a foreground program, a resize, the shell's exit code,
// and Close (twice, and on a shell still running a program). Each subtest
// opens its own terminal.
func RunTerminal(t *testing.T, client provider.Client, inst provider.Instance) {
	opener, ok := client.(provider.TerminalOpener)
	require.True(t, ok, "the client is a TerminalOpener")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	open := func(t *testing.T, size provider.TermSize) *terminal {
		pty, err := opener.OpenTerminal(ctx, inst, size)
		require.NoError(t, err, "open a terminal")
		term := watch(pty)
		t.Cleanup(func() { _ = pty.Close() })
		return term
	}

	t.Run("opens with the size asked", func(t *testing.T) {
		term := open(t, provider.TermSize{Cols: 100, Rows: 30})
		term.send(t, "stty size\r")
		term.Expect(t, "30 100\r\n")
	})
	t.Run("cd lasts", func(t *testing.T) {
		term := open(t, provider.DefaultTermSize)
		term.send(t, "cd /tmp && pwd\r")
		term.Expect(t, "/tmp\r\n")
		term.send(t, "pwd\r")
		term.Expect(t, "/tmp\r\n")
	})
	t.Run("python3 interactively", func(t *testing.T) {
		term := open(t, provider.DefaultTermSize)
		term.send(t, "python3\r")
		term.Expect(t, ">>> ")
		term.send(t, "print(6*7)\r")
		term.Expect(t, "42\r\n")
		term.send(t, "exit()\r")
		term.send(t, "echo back-$((40+2))\r") // the echo of the line says $((40+2)); only the shell says 42
		term.Expect(t, "back-42")
	})
	t.Run("Ctrl-C ends the foreground program", func(t *testing.T) {
		term := open(t, provider.DefaultTermSize)
		term.send(t, "echo sleeping-$((1+1)); sleep 100\r")
		term.Expect(t, "sleeping-2")
		time.Sleep(500 * time.Millisecond) // the shell has started sleep, which now holds the terminal
		term.send(t, "\x03")
		time.Sleep(200 * time.Millisecond)
		term.send(t, "echo status=$?\r")
		term.Expect(t, "status=130")
	})
	t.Run("resize", func(t *testing.T) {
		term := open(t, provider.DefaultTermSize)
		require.NoError(t, term.pty.Resize(ctx, provider.TermSize{Cols: 120, Rows: 40}))
		term.send(t, "stty size\r")
		term.Expect(t, "40 120\r\n")
	})
	t.Run("exit ends the terminal with its code", func(t *testing.T) {
		term := open(t, provider.DefaultTermSize)
		term.send(t, "exit 3\r")
		require.ErrorIs(t, term.Ended(t), io.EOF, "Read gives io.EOF once the shell has exited")
		assert.Equal(t, 3, term.pty.ExitCode())
		require.NoError(t, term.pty.Close())
		require.NoError(t, term.pty.Close(), "closing twice is fine")
	})
	t.Run("Close kills a running shell", func(t *testing.T) {
		term := open(t, provider.DefaultTermSize)
		term.send(t, "echo started-$((1+1)); sleep 2 && echo late > late.txt\r")
		term.Expect(t, "started-2")
		require.NoError(t, term.pty.Close())
		require.NoError(t, term.pty.Close(), "closing twice is fine")
		term.Ended(t)
		late := inst.WorkDir + "/late.txt"
		for waited := time.Duration(0); waited <= 3*time.Second; waited += 250 * time.Millisecond {
			_, err := client.Stat(ctx, inst, late)
			require.ErrorIs(t, err, provider.ErrNotFound, "a closed terminal's shell wrote %s", late)
			time.Sleep(250 * time.Millisecond)
		}
	})
}

// terminal is a PTY whose output a goroutine shows on its screen.
type terminal struct {
	pty provider.PTY
	*Screen
}

func watch(pty provider.PTY) *terminal {
	term := &terminal{pty: pty, Screen: NewScreen()}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := pty.Read(buf)
			term.Show(buf[:n])
			if err != nil {
				term.End(err)
				return
			}
		}
	}()
	return term
}

func (term *terminal) send(t *testing.T, keys string) {
	t.Helper()
	_, err := term.pty.Write([]byte(keys))
	require.NoError(t, err, "type %q", keys)
}
