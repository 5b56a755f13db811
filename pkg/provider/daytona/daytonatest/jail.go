package daytonatest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

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

// drainOutput holds a command's end until no other process in the jail
// holds its output. The daemon answers only when its shell's output is
// drained, so a job left in the background with the output open holds the
// command to its timeout (cmd.Wait in Daytona's
// apps/daemon/pkg/toolbox/process/execute.go); the jail ends with its
// shell, so the shell waits for those holders itself. The jail's own init
// (pid 1) is not one.
const drainOutput = `p=$(readlink /proc/$$/fd/1)
exec >/dev/null 2>&1
case $p in pipe:*)
	n=${p#pipe:?}; n=${n%?}
	while find /proc/[0-9]*/fd -maxdepth 1 -lname "pipe:?$n?" ! -path "/proc/1/*" ! -path "/proc/$$/*" | grep -q .; do
		sleep 0.05
	done
esac`

// ran is how a command ended, as the daemon reports it.
type ran struct {
	exitCode int
	output   string
	timedOut bool
}

// run runs a command in the sandbox's jail, in cwd, with its timeout.
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

	var env []string
	for k, v := range req.Envs {
		env = append(env, k+"="+v)
	}
	jail := s.jail(box)
	jail.Env = env
	var timeout time.Duration
	if req.Timeout != nil {
		timeout = time.Duration(*req.Timeout) * time.Second
	}
	var out lockedBuffer
	// One stream for stdout and stderr, in the order written, as the daemon's.
	command := fmt.Sprintf("exec 2>&1\ncd %s || exit 1\n%s %s\ns=$?\n%s\nexit \"$s\"\n",
		shell.Quote(cwd), jailShell, shell.Quote(path.Join(scriptsDir, filepath.Base(script.Name()))), drainOutput)
	res, err := jail.Run(ctx, command, timeout, &out, &out)
	switch {
	case res.TimedOut:
		return ran{timedOut: true}
	case err != nil:
		return ran{exitCode: -1, output: out.String() + err.Error()}
	}
	return ran{exitCode: res.ExitCode, output: out.String()}
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
