package bubblewrap

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// hostCommand is a program the server runs on the host to set a jail up:
// with no environment, files as descriptors 3, 4, …, as user (nil: the
// server's own), and killed if the thread that starts it ends, which Run
// keeps until the jail is over.
func hostCommand(user *syscall.Credential, files []*os.File, path string, args ...string) *exec.Cmd {
	cmd := exec.Command(path, args...)
	cmd.Env = []string{}
	cmd.ExtraFiles = files
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: user, Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = exitTimeout
	return cmd
}

// jailUser is the credential of the jail's user for a host command, when the
// server runs as root; nil when it runs commands as itself.
func jailUser(asRoot bool, uid, gid int) *syscall.Credential {
	if !asRoot {
		return nil
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
}

// helper is a host process that holds namespaces for the server while it
// sets a jail up: cat, started through unshare or nsenter. It echoes a line
// once it runs, so once its namespaces are in place, and ends when its
// input closes.
type helper struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	stderr strings.Builder
}

// startHelper runs cmd, whose command line ends in cat, and waits until it
// echoes.
func startHelper(cmd *exec.Cmd) (*helper, error) {
	h := &helper{cmd: cmd}
	cmd.Stderr = &h.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	h.in = in
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer outR.Close()
	cmd.Stdout = outW
	err = cmd.Start()
	outW.Close()
	if err != nil {
		return nil, err
	}
	_ = outR.SetReadDeadline(time.Now().Add(setupTimeout))
	echo := make([]byte, 1)
	if _, err := in.Write([]byte("\n")); err == nil {
		_, err = io.ReadFull(outR, echo)
	}
	if echo[0] != '\n' {
		_ = cmd.Process.Kill()
		return nil, h.failed()
	}
	return h, nil
}

// pid is the helper's process id.
func (h *helper) pid() int { return h.cmd.Process.Pid }

// namespace opens the helper's namespace of the given kind ("user", "net").
func (h *helper) namespace(kind string) (*os.File, error) {
	return os.Open(fmt.Sprintf("/proc/%d/ns/%s", h.pid(), kind))
}

// stop ends the helper and waits until it is gone.
func (h *helper) stop() {
	_ = h.in.Close()
	_ = h.cmd.Wait()
}

// failed says why the helper did not start: in its own words, which name
// the program that said them, where it said any.
func (h *helper) failed() error {
	waitErr := h.cmd.Wait()
	if said := strings.TrimSpace(h.stderr.String()); said != "" {
		line, _, _ := strings.Cut(said, "\n")
		return errors.New(line)
	}
	if waitErr == nil {
		waitErr = errors.New("it ended before it was ready")
	}
	return fmt.Errorf("%s failed: %w", filepath.Base(h.cmd.Path), waitErr)
}
