package providertest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"syscall"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/hostterm"
)

// OpenTerminal starts an interactive bash of the host on a pseudo-terminal
// in the instance's folder, as the fake's commands run there.
func (f *Fake) OpenTerminal(ctx context.Context, inst provider.Instance, size provider.TermSize) (provider.PTY, error) {
	if err := f.enter(ctx, "terminal"); err != nil {
		return nil, err
	}
	dir, err := f.folder("terminal", inst.ID)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("bash", "--norc", "-i")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TERM=xterm-256color", "LANG=C.UTF-8"}
	// The shell leads a session whose controlling terminal is the pty.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	term, tty, err := hostterm.Open(size, func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	if err != nil {
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	if err := cmd.Start(); err != nil {
		_ = tty.Close()
		term.Ended(-1, err)
		_ = term.Close()
		return nil, err
	}
	go func() {
		err := cmd.Wait()
		_ = tty.Close()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			term.Ended(-1, err)
			return
		}
		term.Ended(cmd.ProcessState.ExitCode(), nil)
	}()
	return term, nil
}

var _ provider.TerminalOpener = (*Fake)(nil)
