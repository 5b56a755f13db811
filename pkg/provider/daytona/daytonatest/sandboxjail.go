package daytonatest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/shell"
)

// ctlDir is where, inside a sandbox's jail, the fake and the jail's
// launcher talk: the launcher's request pipe, the pids it reports, the
// pipes of the commands' output.
const ctlDir = "/run/daytona-ctl"

// launcher is the first program of a sandbox's jail, which plays the
// daemon's process starts: on "session ID" it starts a session's shell in
// a process group of its own, reading its commands from the pipe ID.in
// (exec.Command with Setpgid and a stdin pipe in Daytona's
// apps/daemon/pkg/session/create.go); on "exec ID" it runs the script
// ID.sh in a group of its own, its stdout and stderr both to the pipe
// ID.out, and writes its exit code to ID.code (exec.Command with Setpgid
// in apps/daemon/pkg/toolbox/process/execute.go). It answers each with
// the group's pid, as the jail sees it, in ID.pid. Job control (set -m)
// is what gives each job its own process group in a shell, and bash's
// alone works without a terminal. It first
// writes its pid namespace, by which the fake finds the jail's processes
// among the host's.
const launcher = `set -m
c=` + ctlDir + `
exec 3<>"$c/in"
readlink /proc/self/ns/pid >"$c/ns.new" && mv "$c/ns.new" "$c/ns"
while IFS=' ' read -r op id <&3; do
	case $op in
	session) ` + jailShell + ` <"$c/$id.in" >/dev/null 2>&1 3<&- & ;;
	exec) { ` + jailShell + ` "$c/$id.sh" </dev/null >"$c/$id.out" 2>&1 3<&-; echo "$?" >"$c/$id.code.new"; mv "$c/$id.code.new" "$c/$id.code"; } 3<&- & ;;
	*) continue ;;
	esac
	echo "$!" >"$c/$id.pid.new" && mv "$c/$id.pid.new" "$c/$id.pid"
done
`

// sandboxJail is the one jail a started sandbox's processes all run in,
// as a container's do: what a command leaves running goes on after it
// until the sandbox stops, and a process whose parent dies is taken by the
// jail's first process, as by a container's init.
type sandboxJail struct {
	ctl    string // on the host
	ns     string // the jail's pid namespace, as /proc/PID/ns/pid reads
	in     *os.File
	ctx    context.Context
	cancel context.CancelFunc
	ended  chan struct{}
}

// ctlHost is the host folder of a sandbox's ctlDir.
func ctlHost(box sandboxBox) string { return filepath.Join(filepath.Dir(box.home), "ctl") }

// sandboxJail returns the sandbox's jail, starting it if it has none.
func (s *Server) sandboxJail(box sandboxBox) (*sandboxJail, error) {
	s.jailsMu.Lock()
	defer s.jailsMu.Unlock()
	if j := s.jails[box.id]; j != nil && j.ctx.Err() == nil {
		return j, nil
	}
	j, err := s.startJail(box)
	if err != nil {
		return nil, err
	}
	s.jails[box.id] = j
	return j, nil
}

// endJail kills a sandbox's jail and all that runs in it: the sandbox stopped.
func (s *Server) endJail(sandboxID string) {
	s.jailsMu.Lock()
	defer s.jailsMu.Unlock()
	if j := s.jails[sandboxID]; j != nil {
		j.cancel()
		delete(s.jails, sandboxID)
	}
}

func (s *Server) startJail(box sandboxBox) (*sandboxJail, error) {
	ctl := ctlHost(box)
	_ = os.RemoveAll(ctl)
	if err := makeOwnedDir(ctl); err != nil {
		return nil, err
	}
	if err := mkfifo(filepath.Join(ctl, "in")); err != nil {
		return nil, err
	}
	// Opened for reading and writing, so as not to wait for the launcher.
	in, err := os.OpenFile(filepath.Join(ctl, "in"), os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(s.life)
	j := &sandboxJail{ctl: ctl, in: in, ctx: ctx, cancel: cancel, ended: make(chan struct{})}
	jail := s.jail(box)
	jail.Binds = append(jail.Binds, bubblewrap.Bind{Host: ctl, Sandbox: ctlDir})
	s.sessionRuns.Add(1)
	go func() {
		defer s.sessionRuns.Done()
		defer close(j.ended)
		defer in.Close()
		defer cancel()
		// bash: sh has no job control without a terminal.
		_, _ = jail.Run(ctx, "exec bash -c "+shell.Quote(launcher), 0, io.Discard, io.Discard)
	}()
	ns, err := j.await(filepath.Join(ctl, "ns"), 30*time.Second)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("the sandbox's jail did not start: %w", err)
	}
	j.ns = ns
	return j, nil
}

// start asks the launcher to start a session's shell ("session") or a
// command ("exec") named id, and returns the host id of its process group:
// 0 for a command whose group has already ended, leaving nothing to kill.
func (j *sandboxJail) start(op, id string) (int, error) {
	if _, err := fmt.Fprintf(j.in, "%s %s\n", op, id); err != nil {
		return 0, err
	}
	raw, err := j.await(filepath.Join(j.ctl, id+".pid"), 30*time.Second)
	if err != nil {
		return 0, err
	}
	var pid int
	if _, err := fmt.Sscan(raw, &pid); err != nil {
		return 0, fmt.Errorf("the launcher reported pid %q", raw)
	}
	if pgid, found := hostGroup(j.ns, pid); found {
		return pgid, nil
	}
	if op == "exec" {
		return 0, nil // it ran to its end already: its output and code tell
	}
	return 0, fmt.Errorf("the session's shell %d ended as it started", pid)
}

// await reads a file the launcher writes, once it is there.
func (j *sandboxJail) await(p string, limit time.Duration) (string, error) {
	deadline := time.Now().Add(limit)
	for {
		raw, err := os.ReadFile(p)
		if err == nil {
			return strings.TrimSpace(string(raw)), nil
		}
		if j.ctx.Err() != nil {
			return "", errors.New("the sandbox's jail ended")
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("no %s after %s", filepath.Base(p), limit)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func mkfifo(p string) error {
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		return fmt.Errorf("mkfifo %s: %w", p, err)
	}
	return ownByJailUser(p)
}
