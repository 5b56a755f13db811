package daytonatest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/google/uuid"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/shell"
)

// scriptsDir is where, inside a jail, the command being run is found: the
// daemon feeds its shell the command on stdin, the fake sources it from a
// file, so that no command is too long for an argument.
const scriptsDir = "/run/daytona"

// jail is the bubblewrap jail of a sandbox: its home at WorkDir, its own /tmp
// that outlives each command (as a container's does), and the scripts folder.
func (s *Server) jail(box sandboxBox) bubblewrap.Jail {
	return bubblewrap.Jail{
		Root:         box.home,
		WorkDir:      WorkDir,
		MemoryMB:     s.opts.MemoryMB,
		MaxProcesses: s.opts.MaxProcesses,
		Binds: []bubblewrap.Bind{
			{Host: box.tmp, Sandbox: "/tmp"},
			{Host: scriptsHost(box), Sandbox: scriptsDir, ReadOnly: true},
		},
	}
}

func scriptsHost(box sandboxBox) string { return filepath.Join(filepath.Dir(box.home), "run") }

// makeSandboxDirs makes a new sandbox's home (with the .daytona folder the
// daemon makes there) and /tmp, owned by the user its commands run as.
func makeSandboxDirs(home, tmp string) error {
	uid, gid := bubblewrap.Jail{}.User()
	daemonDir := filepath.Join(home, ".daytona")
	for _, dir := range []string{daemonDir, tmp, filepath.Join(filepath.Dir(home), "run")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	for _, dir := range []string{home, daemonDir, tmp} {
		if err := os.Chown(dir, uid, gid); err != nil && os.Geteuid() == 0 {
			return err
		}
	}
	return nil
}

// jailShell is the shell commands run with in the fake's jails.
const jailShell = "/bin/sh"

// systemDirs are the host folders a jail shows, read-only.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc", "/dev", "/proc"}

// isDir reports whether p is a folder in the sandbox.
func (b sandboxBox) isDir(p string) bool {
	if _, _, ok := b.resolve(p); ok {
		root, name, err := b.open(p)
		if err != nil {
			return false
		}
		defer root.Close()
		info, err := root.Stat(name)
		return err == nil && info.IsDir()
	}
	p = path.Clean(p)
	for _, dir := range systemDirs {
		if p == "/" || p == dir || strings.HasPrefix(p, dir+"/") {
			info, err := os.Stat(p)
			return err == nil && info.IsDir()
		}
	}
	return false
}

// ran is how a command ended, as the daemon reports it.
type ran struct {
	exitCode int
	output   string
	timedOut bool
}

// run runs a command in the sandbox's jail, in cwd, with its timeout, as
// the daemon's /process/execute does (ExecuteCommand in Daytona's
// apps/daemon/pkg/toolbox/process/execute.go): a shell in a process group
// of its own, stdout and stderr into one buffer, the group killed at the
// timeout, and the answer once the shell has ended and nothing holds its
// output any more (cmd.Wait), so that a job left in the background with
// the output open holds the command, past its timeout when it left the
// group.
func (s *Server) run(ctx context.Context, box sandboxBox, req executeRequest) ran {
	cwd := WorkDir
	if req.Cwd != nil && *req.Cwd != "" {
		cwd = *req.Cwd
	}
	// The daemon cannot start its shell in a folder that does not exist,
	// and says so as Go's exec does.
	if !box.isDir(cwd) {
		return ran{exitCode: -1, output: "fork/exec " + jailShell + ": no such file or directory"}
	}
	text := req.Command
	if s.opts.ArgvCommands {
		args := splitArguments(req.Command)
		if len(args) == 0 || !startable(args[0]) {
			// Go's exec cannot start it: the daemon answers -1 and no output.
			return ran{exitCode: -1}
		}
		text = argvScript(args)
	}
	j, err := s.sandboxJail(box)
	if err != nil {
		return ran{exitCode: -1, output: err.Error()}
	}
	script, err := os.CreateTemp(scriptsHost(box), "cmd-*.sh")
	if err != nil {
		return ran{exitCode: -1, output: err.Error()}
	}
	defer os.Remove(script.Name())
	_, werr := script.WriteString(text)
	if cerr := script.Close(); werr != nil || cerr != nil {
		return ran{exitCode: -1, output: fmt.Sprintf("writing the command: %v %v", werr, cerr)}
	}
	_ = os.Chmod(script.Name(), 0o644)

	var start strings.Builder
	fmt.Fprintf(&start, "cd %s || exit 1\n", shell.Quote(cwd))
	for k, v := range req.Envs {
		fmt.Fprintf(&start, "export %s=%s\n", k, shell.Quote(v))
	}
	fmt.Fprintf(&start, "exec %s %s\n", jailShell, shell.Quote(path.Join(scriptsDir, filepath.Base(script.Name()))))
	id := "x-" + uuid.NewString()
	files := filepath.Join(j.ctl, id)
	defer func() {
		for _, ext := range []string{".sh", ".out", ".pid", ".code"} {
			_ = os.Remove(files + ext)
		}
	}()
	if err := os.WriteFile(files+".sh", []byte(start.String()), 0o644); err != nil {
		return ran{exitCode: -1, output: err.Error()}
	}
	if err := mkfifo(files + ".out"); err != nil {
		return ran{exitCode: -1, output: err.Error()}
	}
	output := j.drain(files + ".out")
	pgid, err := j.start("exec", id)
	if err != nil {
		return ran{exitCode: -1, output: err.Error()}
	}
	var timedOut atomic.Bool
	if req.Timeout != nil && *req.Timeout > 0 && pgid > 0 {
		timer := time.AfterFunc(time.Duration(*req.Timeout)*time.Second, func() {
			timedOut.Store(true)
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
		})
		defer timer.Stop()
	}
	var out string
	select {
	case out = <-output:
	case <-ctx.Done():
		return ran{exitCode: -1, output: "the fake closed"}
	}
	if timedOut.Load() {
		return ran{timedOut: true}
	}
	raw, err := j.await(files+".code", 5*time.Second)
	code, cerr := strconv.Atoi(raw)
	if err != nil || cerr != nil {
		return ran{exitCode: -1, output: out}
	}
	return ran{exitCode: code, output: out}
}

// drain reads a command's output pipe to its end: until nothing holds it
// open for writing any more. The jail's end ends it too.
func (j *sandboxJail) drain(fifo string) <-chan string {
	result := make(chan string, 1)
	opened := make(chan struct{})
	go func() {
		select {
		case <-opened:
		case <-j.ctx.Done(): // nobody will write: let the open below return
			if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close()
			}
		}
	}()
	go func() {
		f, err := os.Open(fifo)
		close(opened)
		if err != nil {
			result <- err.Error()
			return
		}
		defer f.Close()
		raw, _ := io.ReadAll(f)
		result <- string(raw)
	}()
	return result
}

// lockedBuffer takes stdout and stderr together, from two goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
