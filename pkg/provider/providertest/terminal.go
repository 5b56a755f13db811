package providertest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// termWait bounds each wait for a terminal's output: long enough for a
// remote provider, short against the `sleep 100` a Ctrl-C must end.
const termWait = 20 * time.Second

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
		term.expect(t, "30 100\r\n")
	})
	t.Run("cd lasts", func(t *testing.T) {
		term := open(t, provider.DefaultTermSize)
		term.send(t, "cd /tmp && pwd\r")
		term.expect(t, "/tmp\r\n")
		term.send(t, "pwd\r")
		term.expect(t, "/tmp\r\n")
	})
	t.Run("python3 interactively", func(t *testing.T) {
		term := open(t, provider.DefaultTermSize)
		term.send(t, "python3\r")
		term.expect(t, ">>> ")
		term.send(t, "print(6*7)\r")
		term.expect(t, "42\r\n")
		term.send(t, "exit()\r")
		term.send(t, "echo back-$((40+2))\r") // the echo of the line says $((40+2)); only the shell says 42
		term.expect(t, "back-42")
	})
	t.Run("Ctrl-C ends the foreground program", func(t *testing.T) {
		term := open(t, provider.DefaultTermSize)
		term.send(t, "echo sleeping-$((1+1)); sleep 100\r")
		term.expect(t, "sleeping-2")
		time.Sleep(500 * time.Millisecond) // the shell has started sleep, which now holds the terminal
		term.send(t, "\x03")
		time.Sleep(200 * time.Millisecond)
		term.send(t, "echo status=$?\r")
		term.expect(t, "status=130")
	})
	t.Run("resize", func(t *testing.T) {
		term := open(t, provider.DefaultTermSize)
		require.NoError(t, term.pty.Resize(ctx, provider.TermSize{Cols: 120, Rows: 40}))
		term.send(t, "stty size\r")
		term.expect(t, "40 120\r\n")
	})
	t.Run("exit ends the terminal with its code", func(t *testing.T) {
		term := open(t, provider.DefaultTermSize)
		term.send(t, "exit 3\r")
		require.ErrorIs(t, term.ended(t), io.EOF, "Read gives io.EOF once the shell has exited")
		assert.Equal(t, 3, term.pty.ExitCode())
		require.NoError(t, term.pty.Close())
		require.NoError(t, term.pty.Close(), "closing twice is fine")
	})
	t.Run("Close kills a running shell", func(t *testing.T) {
		term := open(t, provider.DefaultTermSize)
		term.send(t, "echo started-$((1+1)); sleep 2; echo late > late.txt\r")
		term.expect(t, "started-2")
		require.NoError(t, term.pty.Close())
		require.NoError(t, term.pty.Close(), "closing twice is fine")
		term.ended(t)
		late := inst.WorkDir + "/late.txt"
		for waited := time.Duration(0); waited <= 3*time.Second; waited += 250 * time.Millisecond {
			_, err := client.Stat(ctx, inst, late)
			require.ErrorIs(t, err, provider.ErrNotFound, "a closed terminal's shell wrote %s", late)
			time.Sleep(250 * time.Millisecond)
		}
	})
}

// terminal is a PTY whose output a goroutine gathers, for the suite to
// wait on.
type terminal struct {
	pty     provider.PTY
	mu      sync.Mutex
	out     bytes.Buffer
	seen    int           // how much of out the suite has matched
	changed chan struct{} // closed and replaced on each new output
	done    chan struct{} // closed once Read has failed
	err     error         // Read's last error, once done
}

func watch(pty provider.PTY) *terminal {
	term := &terminal{pty: pty, changed: make(chan struct{}), done: make(chan struct{})}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := pty.Read(buf)
			term.mu.Lock()
			term.out.Write(buf[:n])
			close(term.changed)
			term.changed = make(chan struct{})
			term.mu.Unlock()
			if err != nil {
				term.err = err
				close(term.done)
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

// expect waits for want in the output not yet matched, then marks the
// output up to it as matched. What is typed is echoed, and a shell may
// wrap its output in escape sequences (bracketed paste's, a title's), so
// want is a piece only the output holds: "42\r\n" after print(6*7).
func (term *terminal) expect(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(termWait)
	for {
		term.mu.Lock()
		rest := term.out.String()[term.seen:]
		at := strings.Index(rest, want)
		if at >= 0 {
			term.seen += at + len(want)
		}
		changed := term.changed
		term.mu.Unlock()
		if at >= 0 {
			return
		}
		select {
		case <-changed:
		case <-term.done:
			if term.has(want) {
				return
			}
			t.Fatalf("the terminal ended (%v) before showing %q; it showed %q", term.err, want, tail(rest))
		case <-deadline:
			t.Fatalf("the terminal did not show %q in %s; it showed %q", want, termWait, tail(rest))
		}
	}
}

// has reports whether the output not yet matched holds want, and marks it.
func (term *terminal) has(want string) bool {
	term.mu.Lock()
	defer term.mu.Unlock()
	at := strings.Index(term.out.String()[term.seen:], want)
	if at >= 0 {
		term.seen += at + len(want)
	}
	return at >= 0
}

// ended waits for Read to fail and returns its error.
func (term *terminal) ended(t *testing.T) error {
	t.Helper()
	select {
	case <-term.done:
		return term.err
	case <-time.After(termWait):
		t.Fatalf("Read did not return in %s after the shell ended", termWait)
		return errors.New("unreachable")
	}
}
