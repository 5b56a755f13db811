package gvisor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
)

// Container is one long-lived runsc sandbox: an instance. Its init waits;
// each command is a `runsc exec` in it.
//
// Two containers must never share an ID, even one after the other: where
// they did, the later one's sandbox died under its first commands (most
// likely the first one's cgroup, named after the ID, being removed).
type Container struct {
	// ID names it to runsc.
	ID string
	// Runsc is the binary; Platform is one of Platforms ("" = Ptrace).
	Runsc, Platform string
	// State is runsc's state folder (--root), one per container: Delete
	// removes it. Bundle is the folder of its config.json.
	State, Bundle string
	// Network, when set, gives the container gVisor's own network stack
	// (runsc --network=sandbox) on the interfaces of Spec.NetNS; unset,
	// it has none.
	Network bool
}

// Spec is what a container is made with.
type Spec struct {
	// Root is a folder of the caller's, the container's root, read-only:
	// Start writes System's files and links into it and makes the mount
	// points of its binds. The host's own root is never the container's:
	// runsc mounts nothing visible over it.
	Root string
	// System is what the container sees of the host, as a bubblewrap jail
	// does.
	System bubblewrap.SystemView
	// Workspace is the host folder mounted read-write at /workspace.
	Workspace string
	// UID and GID are the host user and group its processes run as.
	UID, GID int
	// MemoryMB bounds each process, and the whole container with
	// KernelMemoryMB more for gVisor's kernel through runsc's cgroup; CPU
	// (a number of CPUs) bounds the whole container through it; MaxProcesses
	// bounds its processes together (they are one user's). 0 leaves one
	// unbounded.
	MemoryMB     int
	CPU          float64
	MaxProcesses int
	// TmpMB is the size of its /tmp (0 = 64).
	TmpMB int
	// Cgroup is the cgroup path runsc makes for it ("" = none).
	Cgroup string
	// Env is what its processes have in their environment besides PATH
	// and HOME, as KEY=VALUE.
	Env []string
	// NetNS is the path of the network namespace a container with Network
	// joins, whose interfaces and routes gVisor's stack takes: packets it
	// sends bypass that namespace's netfilter (bubblewrap.Router filters
	// them beyond it).
	NetNS string
}

// KernelMemoryMB is what gVisor's kernel may use besides its processes'
// MemoryMB: past both together, the host ends the container whole.
const KernelMemoryMB = 256

// initLine is the container's first process: it waits for ever, reaping
// the orphans of the commands (dash's wait reaps any child).
const initLine = "while :; do sleep 3600 & wait; done"

// execPath is the PATH its commands get, unless told another.
const execPath = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// environment is env with PATH and HOME where env has none.
func environment(env []string) []string {
	has := map[string]bool{}
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		has[k] = true
	}
	var out []string
	for _, kv := range []string{execPath, "HOME=/workspace"} {
		if k, _, _ := strings.Cut(kv, "="); !has[k] {
			out = append(out, kv)
		}
	}
	return append(out, env...)
}

// config is the OCI runtime config of spec: the host's system read-only,
// the workspace read-write, a private /tmp, the network namespace NetNS
// or one of its own.
func (s Spec) config() map[string]any {
	tmp := s.TmpMB
	if tmp == 0 {
		tmp = 64
	}
	resources := map[string]any{}
	var rlimits []any
	if s.MemoryMB > 0 {
		// The host's cgroup holds gVisor's kernel too, which it ends
		// whole when they pass it: each process gets MemoryMB at most,
		// and the kernel an allowance of its own above.
		resources["memory"] = map[string]any{"limit": int64(s.MemoryMB+KernelMemoryMB) << 20}
		rlimits = append(rlimits, map[string]any{"type": "RLIMIT_AS", "hard": int64(s.MemoryMB) << 20, "soft": int64(s.MemoryMB) << 20})
	}
	// Every process of the container runs as its one user, in a kernel of
	// its own: that user's process limit bounds them together. (The host's
	// pids cgroup would count gVisor's own threads too.)
	if s.MaxProcesses > 0 {
		rlimits = append(rlimits, map[string]any{"type": "RLIMIT_NPROC", "hard": s.MaxProcesses, "soft": s.MaxProcesses})
	}
	if s.CPU > 0 {
		resources["cpu"] = map[string]any{"quota": int64(s.CPU * 100000), "period": 100000}
	}
	network := map[string]any{"type": "network"}
	if s.NetNS != "" {
		network["path"] = s.NetNS
	}
	linux := map[string]any{"resources": resources, "namespaces": []any{
		map[string]any{"type": "pid"}, map[string]any{"type": "ipc"}, map[string]any{"type": "uts"},
		map[string]any{"type": "mount"}, network}}
	if s.Cgroup != "" {
		linux["cgroupsPath"] = s.Cgroup
	}
	mounts := []any{
		map[string]any{"destination": "/proc", "type": "proc", "source": "proc"},
		map[string]any{"destination": "/tmp", "type": "tmpfs", "source": "tmpfs",
			"options": []string{"nosuid", "nodev", "size=" + strconv.Itoa(tmp) + "m"}},
		map[string]any{"destination": "/workspace", "type": "bind", "source": s.Workspace, "options": []string{"rbind", "rw"}},
	}
	for _, b := range s.System.Binds {
		mode := "rw"
		if b.ReadOnly {
			mode = "ro"
		}
		mounts = append(mounts, map[string]any{"destination": b.Sandbox, "type": "bind", "source": b.Host, "options": []string{"rbind", mode}})
	}
	return map[string]any{
		"ociVersion": "1.0.2",
		"process": map[string]any{"user": map[string]any{"uid": s.UID, "gid": s.GID},
			"args": []string{"/bin/sh", "-c", initLine}, "env": environment(s.Env),
			"cwd": "/workspace", "noNewPrivileges": true, "capabilities": map[string]any{}, "rlimits": rlimits},
		"root":     map[string]any{"path": s.Root, "readonly": true},
		"hostname": "sandbox",
		"mounts":   mounts,
		"linux":    linux,
	}
}

// makeRoot fills the container's root: its files, its links and the mount
// points of what is mounted in it, every user's to read.
func (s Spec) makeRoot() error {
	if s.Root == "" {
		return errors.New("gvisor: the container has no root folder")
	}
	dirs := []string{"/proc", "/tmp", "/dev", "/workspace"}
	var files []string
	for _, b := range s.System.Binds {
		if info, err := os.Stat(b.Host); err == nil && !info.IsDir() {
			files = append(files, b.Sandbox)
		} else {
			dirs = append(dirs, b.Sandbox)
		}
	}
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(s.Root, d), 0o755); err != nil {
			return err
		}
	}
	for _, f := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(s.Root, f)), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(s.Root, f), nil, 0o644); err != nil {
			return err
		}
	}
	for name, text := range s.System.Files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(s.Root, name)), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(s.Root, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	for name, target := range s.System.Links {
		if err := os.Symlink(target, filepath.Join(s.Root, name)); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	return os.Chmod(s.Root, 0o755)
}

// Start writes the bundle and starts the container, with network where
// c.Network is set (on s.NetNS), none otherwise.
func (c Container) Start(ctx context.Context, s Spec) error {
	if err := os.MkdirAll(c.Bundle, 0o700); err != nil {
		return err
	}
	if err := s.makeRoot(); err != nil {
		return err
	}
	data, err := json.Marshal(s.config())
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(c.Bundle, "config.json"), data, 0o600); err != nil {
		return err
	}
	_, err = c.run(ctx, "run", "--detach", "--bundle", c.Bundle, c.ID)
	return err
}

// Result is how a command ended.
type Result struct {
	ExitCode int
	TimedOut bool
}

// Exec runs line with sh -c in the container as its user, with the
// container's environment, streaming its output. What it started and left
// in its process group ends with it; past timeout (0: none) or when ctx
// ends, the command and every process it started are killed.
func (c Container) Exec(ctx context.Context, uid, gid int, line string, timeout time.Duration, stdout, stderr io.Writer) (Result, error) {
	run, cancel := ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		run, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()
	// runsc exec makes the command lead a process group of its own in the
	// container; its pid (and group) is written where a timeout finds it.
	pids, err := os.MkdirTemp(c.Bundle, "exec-")
	if err != nil {
		return Result{}, err
	}
	defer os.RemoveAll(pids)
	pidFile := filepath.Join(pids, "pid")
	user := fmt.Sprintf("%d:%d", uid, gid)
	cmd := exec.Command(c.Runsc, c.flags("exec", "--cwd", "/workspace", "--user", user, "--internal-pid-file", pidFile,
		c.ID, "/bin/sh", "-c", execLine, "sh", line)...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return Result{}, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return Result{ExitCode: exit.ExitCode()}, nil
		}
		return Result{}, err
	case <-run.Done():
	}
	// End the command's group in the sandbox, as its own user, once runsc
	// has said which it is (a command cancelled as it starts may be
	// running before its pid is written). runsc exec ends with its
	// command; killing it instead would take the whole sandbox down.
	for ended := false; !ended; {
		if pid, rerr := os.ReadFile(pidFile); rerr == nil && len(bytes.TrimSpace(pid)) > 0 {
			c.killGroup(context.Background(), strings.TrimSpace(string(pid)))
			<-done
			break
		}
		select {
		case <-done:
			ended = true
		case <-time.After(50 * time.Millisecond):
		}
	}
	if ctx.Err() != nil {
		return Result{}, ctx.Err()
	}
	return Result{ExitCode: -1, TimedOut: true}, nil
}

// killGroup ends process group pgid in the container. It runs as the
// container's root with the one capability to kill any user's process: as
// the command's user, it could not start where the command used up the
// user's processes (a fork bomb does).
func (c Container) killGroup(ctx context.Context, pgid string) {
	_, _ = c.run(ctx, "exec", "--user", "0:0", "--cap", "CAP_KILL", c.ID, "/bin/sh", "-c", killGroup, "kill", pgid)
}

// killGroup kills every process of the group $1 but the shell running it
// (and zombies), one by one, again until none is left, as what forks
// meanwhile joins the group: runsc 20221219 answers a kill of the whole
// group (kill -- -PGID) and delivers nothing.
const killGroup = `g=$1; n=1; while [ "$n" != 0 ]; do n=0; for s in /proc/[0-9]*/stat; do
  { read -r r < "$s"; } 2>/dev/null || continue
  set -- ${r##*) }
  p=${s%/stat}; p=${p#/proc/}
  if [ "$3" = "$g" ] && [ "$p" != "$$" ] && [ "$1" != Z ]; then kill -KILL "$p" 2>/dev/null; n=1; fi
done; done`

// execLine runs $1 (runsc exec makes it lead a process group of its own),
// then ends what it left in its group, as a jail's command does; it exits
// with $1's code.
const execLine = `sh -c "$1"; c=$?; set -- $$; ` + killGroup + `
exit $c`

// Pause freezes every process of the container; Resume thaws them.
func (c Container) Pause(ctx context.Context) error {
	_, err := c.run(ctx, "pause", c.ID)
	return err
}

// Resume thaws a paused container.
func (c Container) Resume(ctx context.Context) error {
	_, err := c.run(ctx, "resume", c.ID)
	return err
}

// Delete ends the container and forgets it; deleting one that is gone is
// no error.
func (c Container) Delete(ctx context.Context) error {
	out, err := c.run(ctx, "delete", "--force", c.ID)
	if err != nil && !c.gone(ctx) {
		return fmt.Errorf("%w: %s", err, out)
	}
	// runsc keeps the network namespace of --network=none mounted in its
	// state folder.
	if err := unix.Unmount(filepath.Join(c.State, "null-netns"), unix.MNT_DETACH); err != nil && !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("gvisor: unmount the container's network namespace: %w", err)
	}
	if err := os.RemoveAll(c.State); err != nil {
		return err
	}
	return os.RemoveAll(c.Bundle)
}

// The statuses of a container runsc knows.
const (
	Running = "running"
	Paused  = "paused"
)

// Status is the container's status as runsc says it (Running, Paused,
// "stopped"…), "" where runsc does not know it.
func (c Container) Status(ctx context.Context) string {
	status, _ := c.Look(ctx)
	return status
}

// Look is Status and the pid of the container's sandbox process (0 where
// runsc does not say), which Alive checks in a moment, without runsc.
func (c Container) Look(ctx context.Context) (status string, pid int) {
	out, err := c.run(ctx, "state", c.ID)
	if err != nil {
		return "", 0
	}
	var state struct {
		Status string
		Pid    int
	}
	if json.Unmarshal([]byte(out), &state) != nil {
		return "", 0
	}
	// runsc takes a sandbox whose process is a zombie (the host ended it,
	// and nothing reaped it yet) for a running one.
	if state.Pid > 0 && (state.Status == Running || state.Status == Paused) && !Alive(state.Pid) {
		return "stopped", state.Pid
	}
	return state.Status, state.Pid
}

// Alive reports whether process pid exists and is no zombie.
func Alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, ok := strings.Cut(string(stat), ") ")
	return ok && !strings.HasPrefix(rest, "Z") && !strings.HasPrefix(rest, "X")
}

// gone reports whether runsc no longer knows the container.
func (c Container) gone(ctx context.Context) bool {
	_, err := c.run(ctx, "state", c.ID)
	return err != nil
}

func (c Container) flags(args ...string) []string {
	platform := c.Platform
	if platform == "" {
		platform = Ptrace
	}
	network := "--network=none"
	if c.Network {
		network = "--network=sandbox"
	}
	return append([]string{"--root=" + c.State, "--platform=" + platform, network}, args...)
}

// run runs one runsc subcommand, its error in runsc's words.
func (c Container) run(ctx context.Context, args ...string) (string, error) {
	// Its output goes to a file: a pipe would be held open by the
	// sandbox that `run --detach` leaves behind, and never end.
	f, err := os.CreateTemp("", "auxilia-runsc-")
	if err != nil {
		return "", err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	cmd := exec.CommandContext(ctx, c.Runsc, c.flags(args...)...)
	cmd.Stdout, cmd.Stderr = f, f
	err = cmd.Run()
	out, _ := os.ReadFile(f.Name())
	if err != nil {
		if words := Words(string(out)); words != "" {
			return "", fmt.Errorf("runsc %s: %s", args[0], words)
		}
		return "", fmt.Errorf("runsc %s: %w", args[0], err)
	}
	return string(out), nil
}
