package daytonatest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/creack/pty"

	"github.com/auxilia/sandboxes/pkg/provider/fakekit"
)

// ptyShell is the shell of the fake's terminals. The daemon picks zsh, else
// bash, from /etc/shells, else $SHELL, else sh (GetShell in
// apps/daemon/pkg/common/get_shell.go).
const ptyShell = "bash"

// ptySession is one of the daemon's PTY sessions: a login shell on a
// pseudo-terminal and the WebSockets attached to it (PTYSession in
// apps/daemon/pkg/toolbox/process/pty/types.go). Unlike the fake's
// commands, its shell runs on the host, as the fake's own user, in the
// sandbox's folder there (its home for WorkDir, its /tmp folder for /tmp).
type ptySession struct {
	box sandboxBox
	// runs counts the goroutines of the shell, waited for by Server.Close.
	runs *sync.WaitGroup
	// life ends with the fake: the shell is killed.
	life context.Context
	// drop takes the session out of the daemon's list once its shell has ended.
	drop func(*ptySession)

	mu     sync.Mutex // guards info, cmd, ptmx, ctx, cancel
	info   ptyInfo
	cmd    *exec.Cmd
	ptmx   *os.File
	ctx    context.Context
	cancel context.CancelFunc
	// in funnels what every client types to the one writer of the pty.
	in chan []byte

	clientsMu sync.Mutex
	clients   map[*ptyClient]struct{}
}

// newPTY adds a session to the daemon's list, its shell not yet started.
func (s *Server) newPTY(box sandboxBox, info ptyInfo) *ptySession {
	ps := &ptySession{box: box, info: info, runs: &s.sessionRuns, life: s.life,
		in: make(chan []byte, 1024), clients: map[*ptyClient]struct{}{}}
	ps.drop = func(p *ptySession) { s.dropPTY(box, p.info.ID, p) }
	s.mu.Lock()
	s.ptys[sessionKey{box.id, info.ID}] = ps
	s.mu.Unlock()
	return ps
}

// Info is the session's PtySessionInfo now.
func (ps *ptySession) Info() ptyInfo {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.info
}

// start starts the shell, `bash -i -l`, on a pty of the session's size, in
// its folder, with its variables; a session whose shell has run cannot be
// started again. When the shell ends, the clients are closed with its exit
// code and the session leaves the list (start in
// apps/daemon/pkg/toolbox/process/pty/session.go).
func (ps *ptySession) start() error {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.info.Active && ps.cmd != nil {
		return nil
	}
	if ps.cmd != nil {
		return errors.New("PTY session has already been used and cannot be restarted")
	}
	cmd := exec.Command(ptyShell, "-i", "-l")
	// A folder the sandbox does not show is not on the host either: the
	// start fails as the daemon's does in a missing folder.
	cmd.Dir = ps.box.hostPath(ps.info.Cwd)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + ps.box.home}
	for k, v := range ps.info.Envs {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: ps.info.Rows, Cols: ps.info.Cols})
	if err != nil {
		return fmt.Errorf("pty.StartWithSize: %w", err)
	}
	ps.cmd, ps.ptmx, ps.info.Active = cmd, ptmx, true
	ps.ctx, ps.cancel = context.WithCancel(ps.life)
	ps.runs.Add(3)
	go ps.readLoop(ptmx)
	go ps.writeLoop(ps.ctx, ptmx)
	go ps.reap(cmd, ptmx)
	return nil
}

// reap waits for the shell's end: its exit code as Go's ExitCode gives it
// (-1 for a signal), 1 when waiting failed; the clients are closed with it
// at once, whatever output is still on its way (the reaping goroutine of
// start in session.go).
func (ps *ptySession) reap(cmd *exec.Cmd, ptmx *os.File) {
	defer ps.runs.Done()
	stop := context.AfterFunc(ps.life, ps.kill) // the fake's close kills every shell
	err := cmd.Wait()
	stop()
	code := cmd.ProcessState.ExitCode()
	if err != nil && cmd.ProcessState == nil {
		code = 1
	}
	ps.mu.Lock()
	ps.info.Active = false
	ps.mu.Unlock()
	ps.closeClients(code)
	ps.drop(ps)
	// The daemon leaves the pty open; the fake closes it once nothing is left
	// to read, so that its goroutines end.
	ps.cancel()
	_ = ptmx.Close()
}

// kill kills the shell and every process it started, then closes the
// clients with 137, SIGKILL's code; a session whose shell is over is left
// alone (kill in session.go). The caller takes it out of the list.
func (ps *ptySession) kill() {
	ps.mu.Lock()
	if !ps.info.Active {
		ps.mu.Unlock()
		return
	}
	// Descendants first, while the shell still holds them as its children.
	killTree(ps.cmd.Process.Pid)
	ps.cancel()
	_ = ps.ptmx.Close()
	_ = ps.cmd.Process.Kill()
	ps.info.Active = false
	ps.mu.Unlock()
	ps.closeClients(137)
}

// killTree sends SIGKILL to every descendant of pid, leaves first
// (killProcessTree in session.go).
func killTree(pid int) {
	for _, child := range childrenOf(pid) {
		killTree(child)
		_ = syscall.Kill(child, syscall.SIGKILL)
	}
}

// childrenOf lists the processes whose parent is pid.
func childrenOf(pid int) []int {
	var children []int
	for _, p := range fakekit.Processes() {
		if p.Parent == pid {
			children = append(children, p.PID)
		}
	}
	return children
}

// resize sets the pty's size, which the shell sees as SIGWINCH (resize in session.go).
func (ps *ptySession) resize(cols, rows uint16) error {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if !ps.info.Active {
		return errors.New("cannot resize inactive PTY session")
	}
	ps.info.Cols, ps.info.Rows = cols, rows
	if ps.ptmx == nil {
		return errors.New("PTY file descriptor is not available")
	}
	return pty.Setsize(ps.ptmx, &pty.Winsize{Cols: cols, Rows: rows})
}

// readLoop hands what the pty shows to every client, 32 KiB at most at a
// time (ptyReadLoop in session.go).
func (ps *ptySession) readLoop(ptmx *os.File) {
	defer ps.runs.Done()
	buf := make([]byte, 32<<10)
	for {
		n, err := ptmx.Read(buf)
		if n > 0 {
			ps.broadcast(append([]byte(nil), buf[:n]...))
		}
		if err != nil {
			return
		}
	}
}

// writeLoop writes what the clients type to the pty, in the order it came
// (inputWriteLoop in session.go).
func (ps *ptySession) writeLoop(ctx context.Context, ptmx *os.File) {
	defer ps.runs.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case data := <-ps.in:
			if _, err := ptmx.Write(data); err != nil {
				return
			}
		}
	}
}

// hostPath is where a folder of the sandbox is on the host: its home and
// /tmp are folders of the fake's, the system folders the host's own.
func (b sandboxBox) hostPath(p string) string {
	if root, name, ok := b.resolve(p); ok {
		return filepath.Join(root, name)
	}
	return p
}
