package bubblewrap

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// How long bwrap may take to tell the jail's first process, and how long
// the kernel may take to empty a PID namespace: both are instant in practice.
const (
	setupTimeout = 30 * time.Second
	exitTimeout  = 10 * time.Second
)

// beforeRelease, when set, is called once a jail is set up and its command
// waits to start: tests stop the server there.
var beforeRelease func()

// launch is one bwrap process and the pipes it speaks on.
type launch struct {
	cmd     *exec.Cmd
	info    *os.File // bwrap writes {"child-pid": …} here
	status  *os.File // bwrap writes {"exit-code": …} here once the command has run
	ready   *os.File // the jail's gate writes a line here once the jail is set up
	release *os.File // a line here lets the gate start the command
	stderr  *headWriter
	fed     func() // waits until bwrap has read its options and files

	tools   tools
	user    *syscall.Credential // the jail's user, for host commands (nil: the server's)
	network bool
	egress  Egress
	net     *network // the jail's connection, once made
	cgroup  *Cgroup  // bounds the jail with others; nil: none

	mu     sync.Mutex
	first  *firstProcess
	killed bool
}

// start starts bwrap for command. The jail's command then waits at its gate
// until handOver lets it go on.
func (j Jail) start(t tools, bwrap, root, command string, stdout, stderr io.Writer) (l *launch, err error) {
	uid, gid := j.User()
	asRoot := os.Geteuid() == 0
	limits, err := j.limitsCommand()
	if err != nil {
		return nil, fmt.Errorf("bubblewrap: %w", err)
	}

	var p plumbing
	defer func() {
		if err != nil {
			p.close()
			err = fmt.Errorf("bubblewrap: %w", err)
		}
	}()
	l = &launch{stderr: &headWriter{w: stderr}, tools: t, user: jailUser(asRoot, uid, gid), network: j.Network, egress: j.Egress, cgroup: j.Cgroup}
	if l.stderr.w == nil {
		l.stderr.w = io.Discard
	}
	var fds pipeFDs
	// The gate's descriptors first: it names them with one digit.
	if l.release, fds.release, err = p.to(); err != nil {
		return nil, err
	}
	if l.ready, fds.ready, err = p.from(); err != nil {
		return nil, err
	}
	if asRoot {
		userns, err := newUserNamespace(t, uid, gid)
		if err != nil {
			return nil, err
		}
		fds.userns = p.give(userns)
	}
	if l.info, fds.info, err = p.from(); err != nil {
		return nil, err
	}
	if l.status, fds.status, err = p.from(); err != nil {
		return nil, err
	}
	files := j.dataFiles(uid, gid)
	for _, f := range files {
		fd, err := p.feed(f.content)
		if err != nil {
			return nil, err
		}
		fds.data = append(fds.data, fd)
	}
	filter, err := jailFilter()
	if err != nil {
		return nil, err
	}
	if fds.seccomp, err = p.feed(filter); err != nil {
		return nil, err
	}
	// Options go through a pipe: the jail sees bwrap's command line, and
	// should not learn where Root is on the host.
	options := j.options(root, files, fds)
	argsFD, err := p.feed(strings.Join(options, "\x00") + "\x00")
	if err != nil {
		return nil, err
	}

	argv := slices.Concat([]string{"--args", itoa(argsFD), "--"}, gate(fds), limits, []string{"/bin/sh", "-c", command})
	l.cmd = hostCommand(l.user, p.theirs, bwrap, argv...)
	l.cmd.Stdout = stdout
	l.cmd.Stderr = l.stderr
	if j.tty != nil {
		// bwrap leads a session whose controlling terminal is tty, its stdin.
		l.cmd.Stdin, l.cmd.Stdout = j.tty, j.tty
		l.cmd.SysProcAttr.Setsid, l.cmd.SysProcAttr.Setctty, l.cmd.SysProcAttr.Ctty = true, true, 0
	}
	if err := closeInheritedOnExec(); err != nil {
		return nil, err
	}
	if err := l.cmd.Start(); err != nil {
		return nil, err
	}
	p.closeTheirs()
	l.fed = p.startFeeding()
	return l, nil
}

// handOver takes hold of the jail's first process, waits until bwrap has
// set the jail up, puts the jail in its cgroup, connects the jail when it
// has network, and lets its command start.
func (l *launch) handOver() error {
	pid, err := l.firstPid()
	if err != nil {
		return err
	}
	p, err := openFirstProcess(pid, l.cmd.Process.Pid)
	if err != nil {
		return fmt.Errorf("hold the jail's first process: %w", err)
	}
	if p == nil {
		return nil // bwrap failed while it set the jail up: its status says so
	}
	l.mu.Lock()
	l.first = p
	killed := l.killed
	l.mu.Unlock()
	if killed {
		return errors.New("ended before it started")
	}
	if ready, err := l.awaitGate(); !ready {
		return err // nil: bwrap failed while it set the jail up, and its status says so
	}
	// bwrap does not wait for the server before it starts the gate, so the
	// jail's processes are moved together, while the gate holds them still.
	if err := l.cgroup.addTree(pid); err != nil {
		return err
	}
	if l.network {
		if l.net, err = connect(l.tools, p, pid, l.user, l.egress); err != nil {
			return err
		}
	}
	if beforeRelease != nil {
		beforeRelease()
	}
	if _, err := l.release.Write([]byte("\n")); err != nil {
		return fmt.Errorf("start the jail: %w", err)
	}
	return nil
}

// awaitGate waits until the jail's command is at its gate, so the jail is
// set up; not ready and no error when bwrap stopped before.
func (l *launch) awaitGate() (ready bool, err error) {
	_ = l.ready.SetReadDeadline(time.Now().Add(setupTimeout))
	_, err = l.ready.Read(make([]byte, 1))
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, io.EOF):
		return false, nil
	}
	return false, fmt.Errorf("wait for the jail: %w", err)
}

// firstPid reads the pid of the jail's first process from bwrap.
func (l *launch) firstPid() (int, error) {
	_ = l.info.SetReadDeadline(time.Now().Add(setupTimeout))
	var info struct {
		ChildPid int `json:"child-pid"`
	}
	if err := json.NewDecoder(l.info).Decode(&info); err != nil || info.ChildPid <= 0 {
		return 0, errors.New("bwrap did not make the jail")
	}
	return info.ChildPid, nil
}

// kill ends the jail. Before its first process is known, killing bwrap
// would strand that process, so handOver ends both once it is known.
func (l *launch) kill() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.killed = true
	if l.first != nil {
		l.first.kill()
		_ = l.cmd.Process.Kill()
	}
}

// abort ends the jail after a failed handOver.
func (l *launch) abort() {
	l.kill()
	_ = l.cmd.Process.Kill()
}

// exitCode is the command's exit code as bwrap reports it; ran is false
// when bwrap failed before it could start the command.
func (l *launch) exitCode() (code int, ran bool) {
	_ = l.status.SetReadDeadline(time.Now().Add(time.Second))
	dec := json.NewDecoder(l.status)
	for {
		var doc struct {
			ExitCode *int `json:"exit-code"`
		}
		if err := dec.Decode(&doc); err != nil {
			return 0, false
		}
		if doc.ExitCode != nil {
			return *doc.ExitCode, true
		}
	}
}

// waitGone waits until no process of the jail is left.
func (l *launch) waitGone() error {
	if l.first == nil {
		return nil
	}
	return l.first.waitGone(exitTimeout)
}

// close ends the jail's connection and releases the pipes and the pidfd
// once bwrap has exited.
func (l *launch) close() {
	if l.net != nil {
		l.net.close()
	}
	l.fed()
	closeAll([]*os.File{l.info, l.status, l.ready, l.release})
	if l.first != nil {
		l.first.close()
	}
}

// headWriter passes output on and keeps its first bytes: where bwrap says
// why it could not set a jail up.
type headWriter struct {
	w    io.Writer
	head []byte
}

func (h *headWriter) Write(p []byte) (int, error) {
	if room := 4096 - len(h.head); room > 0 {
		h.head = append(h.head, p[:min(room, len(p))]...)
	}
	return h.w.Write(p)
}
