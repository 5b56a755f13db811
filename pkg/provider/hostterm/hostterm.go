// Package hostterm is a provider.PTY over a pseudo-terminal of this host,
// for providers whose shells run here: the provider starts the shell on
// the terminal's slave end and says when it has ended.
package hostterm

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// Terminal is the master end of a pseudo-terminal whose shell a provider
// runs. It is a provider.PTY.
type Terminal struct {
	master *os.File
	kill   func() // ends the shell, whatever it runs

	exited chan struct{} // closed by Ended
	code   int
	err    error

	closing   atomic.Bool
	closeOnce sync.Once
}

// Open makes a pseudo-terminal of the given size. The caller starts a
// shell on tty, closes tty once the shell has ended, then calls Ended; kill
// must end the shell (Close calls it).
func Open(size provider.TermSize, kill func()) (term *Terminal, tty *os.File, err error) {
	master, tty, err := pty.Open()
	if err != nil {
		return nil, nil, err
	}
	term = &Terminal{master: master, kill: kill, exited: make(chan struct{}), code: -1}
	if err := term.setSize(size); err != nil {
		_ = master.Close()
		_ = tty.Close()
		return nil, nil, err
	}
	return term, tty, nil
}

// Ended says the shell is over, with its exit code (-1 when it was
// killed), or err when it could not run; the terminal's reader then gets
// err, or io.EOF. Call it once, after tty is closed.
func (t *Terminal) Ended(code int, err error) {
	t.code, t.err = code, err
	close(t.exited)
}

// Read gives the terminal's output, then io.EOF once the shell has ended
// and its output has been read.
func (t *Terminal) Read(p []byte) (int, error) {
	n, err := t.master.Read(p)
	if err == nil {
		return n, nil
	}
	// The slave end closed (EIO) or the terminal was closed: the shell is over.
	<-t.exited
	if t.err != nil && !t.closing.Load() {
		return n, t.err
	}
	return n, io.EOF
}

// Write types p on the terminal.
func (t *Terminal) Write(p []byte) (int, error) {
	n, err := t.master.Write(p)
	if err != nil {
		select {
		case <-t.exited:
			return n, errors.New("the terminal's shell has ended")
		default:
		}
	}
	return n, err
}

// Resize sets the terminal's size; the program in its foreground gets SIGWINCH.
func (t *Terminal) Resize(_ context.Context, size provider.TermSize) error {
	return t.setSize(size)
}

// setSize sets the size without putting the master in blocking mode (as
// its Fd would), so that Close still ends a Read in progress.
func (t *Terminal) setSize(size provider.TermSize) error {
	conn, err := t.master.SyscallConn()
	if err != nil {
		return err
	}
	ws := &unix.Winsize{Row: size.Rows, Col: size.Cols}
	var ioctlErr error
	if err := conn.Control(func(fd uintptr) { ioctlErr = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, ws) }); err != nil {
		return err
	}
	return ioctlErr
}

// ExitCode is the shell's exit status once it has ended; -1 before, or
// when it was killed.
func (t *Terminal) ExitCode() int {
	select {
	case <-t.exited:
		return t.code
	default:
		return -1
	}
}

// Close kills the shell if it still runs, waits until it has ended and
// releases the terminal. Closing twice is not an error.
func (t *Terminal) Close() error {
	t.closeOnce.Do(func() {
		t.closing.Store(true)
		t.kill()
		<-t.exited
		_ = t.master.Close()
	})
	return nil
}

var _ provider.PTY = (*Terminal)(nil)
