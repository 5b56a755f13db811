package gvisor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Shell is a process with a terminal in a container (see Terminal).
type Shell struct {
	c        Container
	cmd      *exec.Cmd
	dir      string
	pidFile  string
	waitOnce sync.Once
	code     int
	err      error
}

// Terminal starts args in the container as uid:gid on tty, the slave end
// of a pseudo-terminal of this host the caller made (see hostterm): the
// sandbox takes it as its process's terminal, so what the caller types,
// reads and resizes on the master end reaches the process. The caller
// waits for the shell, then closes tty.
//
// runsc 20221219's exec has no -t: a terminal needs a process file with
// "terminal": true, and with no console socket runsc uses its own stdin.
func (c Container) Terminal(uid, gid int, args, env []string, tty *os.File) (*Shell, error) {
	process := map[string]any{"terminal": true, "user": map[string]any{"uid": uid, "gid": gid},
		"args": args, "env": environment(env), "cwd": "/workspace",
		"noNewPrivileges": true, "capabilities": map[string]any{}}
	data, err := json.Marshal(process)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(c.Bundle, "terminal-")
	if err != nil {
		return nil, err
	}
	file := filepath.Join(dir, "process.json")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s := &Shell{c: c, dir: dir, pidFile: filepath.Join(dir, "pid")}
	s.cmd = exec.Command(c.Runsc, c.flags("exec", "--internal-pid-file", s.pidFile, "--process", file, c.ID)...)
	s.cmd.Stdin, s.cmd.Stdout, s.cmd.Stderr = tty, tty, tty
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

// Wait waits for the shell's end: its exit code, -1 where it was killed.
func (s *Shell) Wait() (int, error) {
	s.waitOnce.Do(func() {
		err := s.cmd.Wait()
		var exit *exec.ExitError
		switch {
		case err == nil:
		case errors.As(err, &exit):
			s.code = exit.ExitCode()
		default:
			s.code, s.err = -1, err
		}
		os.RemoveAll(s.dir)
	})
	return s.code, s.err
}

// Kill ends the shell and every process of its group in the sandbox
// (killing runsc exec itself would take the sandbox down).
func (s *Shell) Kill(ctx context.Context) {
	// runsc writes the shell's pid once it runs, which may be after the
	// shell has already said something.
	for i := 0; i < 50; i++ {
		if pid, err := os.ReadFile(s.pidFile); err == nil && len(bytes.TrimSpace(pid)) > 0 {
			s.c.killGroup(ctx, strings.TrimSpace(string(pid)))
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}
