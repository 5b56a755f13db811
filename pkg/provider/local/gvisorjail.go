package local

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/gvisor"
	"github.com/auxilia/sandboxes/pkg/jailfs"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/shell"
)

// An instance isolated by gVisor runs its commands in one container of its
// own (runsc), started by its first command and kept until it is
// destroyed: its folder at /workspace, the host's system read-only as a
// bubblewrap jail sees it, its resources bounded by runsc's cgroup. What
// runsc keeps of it is in the data folder's runsc/ folder, under the
// instance's id: its container's id (never used twice, as runsc needs),
// runsc's state and the container's bundle. A server that restarts finds
// the container there, still running, or starts another.

const (
	runscFolder = "runsc"
	// containerIDFile holds the id of an instance's container.
	containerIDFile = "container"
)

// gvisorIsolation runs an instance's commands in its gVisor container.
type gvisorIsolation struct{ c *client }

// gvisorInstance is what this process knows of an instance's container.
type gvisorInstance struct {
	mu      sync.Mutex
	known   *gvisor.Container // nil: not yet seen running by this process
	pid     int               // known's sandbox process
	release func()            // ends the use of its disk the container holds
	// router is known's way out where it has network: it lives no longer
	// than this process, so a networked container this process did not
	// start is started again.
	router *bubblewrap.Router
}

// forget lets go of what the instance's container held, once it is gone;
// i.mu held.
func (i *gvisorInstance) forget() {
	if i.release != nil {
		i.release()
	}
	if i.router != nil {
		i.router.Close()
	}
	i.known, i.release, i.router = nil, nil, nil
}

// gvisorInstances are those of this process, by their runsc folder.
var gvisorInstances sync.Map // folder → *gvisorInstance

func (g gvisorIsolation) folder(id string) string {
	return filepath.Join(filepath.Dir(g.c.instances), runscFolder, id)
}

func (g gvisorIsolation) instance(id string) *gvisorInstance {
	v, _ := gvisorInstances.LoadOrStore(g.folder(id), &gvisorInstance{})
	return v.(*gvisorInstance)
}

// updateNetwork refilters the router of the instance's running container
// by the client's rules (none out, where the sandbox is now offline). A
// container without a router (offline, or not started by this process)
// takes rules only as it starts: the next command that needs a network
// starts it again with one.
func (g gvisorIsolation) updateNetwork(op, id string) error {
	i := g.instance(id)
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.router == nil {
		if g.c.config.gvisorNetwork() {
			return provider.Errorf(provider.ErrUnsupported, providerName, op, "its gVisor container runs without a network: its next start gives it one")
		}
		return nil // offline it is, and offline it stays
	}
	return i.router.Filter(g.c.config.routerEgress())
}

// containerOf is the container runsc knows by the id in folder.
func (g gvisorIsolation) containerOf(folder, id string) gvisor.Container {
	s := g.c.config.isolation.GVisor
	return gvisor.Container{ID: id, Runsc: s.Runsc, Platform: s.Platform,
		State: filepath.Join(folder, "state"), Bundle: filepath.Join(folder, "bundle"), Network: g.c.config.gvisorNetwork()}
}

// recorded is the container an earlier start recorded, if any; i.mu held.
func (g gvisorIsolation) recorded(id string) (gvisor.Container, bool) {
	folder := g.folder(id)
	data, err := os.ReadFile(filepath.Join(folder, containerIDFile))
	if err != nil {
		return gvisor.Container{}, false
	}
	return g.containerOf(folder, strings.TrimSpace(string(data))), true
}

// running is the instance's container where it runs (or is paused) and,
// if it has network, this process started it (its router ends with the
// process that started it); i.mu held.
func (g gvisorIsolation) running(ctx context.Context, id string, i *gvisorInstance) (gvisor.Container, bool) {
	if i.known != nil && gvisor.Alive(i.pid) {
		return *i.known, true
	}
	c, ok := g.recorded(id)
	if !ok {
		return gvisor.Container{}, false
	}
	status, pid := c.Look(ctx)
	if status != gvisor.Running && status != gvisor.Paused || c.Network && i.router == nil {
		return gvisor.Container{}, false
	}
	i.known, i.pid = &c, pid
	return c, true
}

// start starts the instance's container on its folder dir, once what an
// earlier one left is removed; i.mu held.
func (g gvisorIsolation) start(ctx context.Context, inst provider.Instance, user jailfs.User, dir string, i *gvisorInstance) (gvisor.Container, error) {
	if old, ok := g.recorded(inst.ID); ok {
		if err := old.Delete(ctx); err != nil {
			return gvisor.Container{}, err
		}
	}
	i.forget()
	folder := g.folder(inst.ID)
	if err := os.MkdirAll(folder, 0o700); err != nil {
		return gvisor.Container{}, err
	}
	suffix := make([]byte, 4)
	if _, err := rand.Read(suffix); err != nil {
		return gvisor.Container{}, err
	}
	c := g.containerOf(folder, inst.ID+"-"+hex.EncodeToString(suffix))
	if err := os.WriteFile(filepath.Join(folder, containerIDFile), []byte(c.ID), 0o600); err != nil {
		return gvisor.Container{}, err
	}
	// The container holds the folder's disk for as long as it runs.
	release := func() {}
	if f := g.c.filesOf(inst.ID); exists(f.image) {
		done, err := f.disk().Use()
		if err != nil {
			return gvisor.Container{}, err
		}
		release = done
	}
	cfg := &g.c.config
	spec := gvisor.Spec{Root: filepath.Join(c.Bundle, "root"), System: bubblewrap.HostSystem(user.UID, user.GID, workDir),
		Workspace: dir, UID: user.UID, GID: user.GID,
		MemoryMB: cfg.memoryMB(), CPU: cfg.cpu(), MaxProcesses: cfg.MaxProcesses, TmpMB: cfg.memoryMB(),
		Env: append([]string{"LANG=C.UTF-8", "TERM=dumb"}, venvEnv...)}
	// runsc's own network stack bypasses the netfilter of the namespace
	// it runs in: the router beyond it filters what it sends.
	var router *bubblewrap.Router
	if c.Network {
		var err error
		if router, err = bubblewrap.StartRouter(user.UID, user.GID, cfg.routerEgress()); err != nil {
			release()
			return gvisor.Container{}, err
		}
		spec.NetNS, spec.System.Files["/etc/resolv.conf"] = router.NetNS, router.ResolvConf
	}
	if err := c.Start(ctx, spec); err != nil {
		release()
		if router != nil {
			router.Close()
		}
		_ = c.Delete(context.WithoutCancel(ctx))
		return gvisor.Container{}, err
	}
	_, pid := c.Look(ctx)
	i.known, i.pid, i.release, i.router = &c, pid, release, router
	return c, nil
}

func (g gvisorIsolation) runner(op string, inst provider.Instance, user jailfs.User, dir string) (runner, func(), error) {
	i := g.instance(inst.ID)
	i.mu.Lock()
	defer i.mu.Unlock()
	ctx := context.Background()
	c, ok := g.running(ctx, inst.ID, i)
	if !ok {
		var err error
		if c, err = g.start(ctx, inst, user, dir, i); err != nil {
			return nil, nil, provider.Errorf(provider.ErrFailed, providerName, op, "instance %s: cannot start its gVisor container: %v", inst.ID, bare(err))
		}
	}
	return gvisorRunner{c: c, user: user, lost: func() bool { return g.lost(inst.ID, c) }, router: i.router, egress: g.c.config.routerEgress()}, func() {}, nil
}

// lost checks, after a command failed, whether the container still runs:
// where runsc no longer runs it (the host ended gVisor's kernel, as it does
// one past the instance's memory), it is forgotten, and the next command
// starts another. It says whether it was lost.
func (g gvisorIsolation) lost(id string, c gvisor.Container) bool {
	i := g.instance(id)
	i.mu.Lock()
	defer i.mu.Unlock()
	if status := c.Status(context.Background()); status == gvisor.Running || status == gvisor.Paused {
		return false
	}
	if i.known != nil && i.known.ID == c.ID {
		i.forget()
	}
	return true
}

// freeze pauses or resumes the container where it runs: one not running
// has nothing to stop.
func (g gvisorIsolation) freeze(id string, frozen bool) error {
	i := g.instance(id)
	i.mu.Lock()
	defer i.mu.Unlock()
	ctx := context.Background()
	c, ok := g.running(ctx, id, i)
	if !ok {
		return nil
	}
	switch status := c.Status(ctx); {
	case frozen && status == gvisor.Running:
		return c.Pause(ctx)
	case !frozen && status == gvisor.Paused:
		return c.Resume(ctx)
	}
	return nil
}

func (g gvisorIsolation) canFreeze() bool { return true }

// destroy deletes the container and what runsc kept of it.
func (g gvisorIsolation) destroy(ctx context.Context, id string) error {
	i := g.instance(id)
	i.mu.Lock()
	defer i.mu.Unlock()
	if c, ok := g.recorded(id); ok {
		if err := c.Delete(ctx); err != nil {
			return err
		}
	}
	i.forget()
	gvisorInstances.Delete(g.folder(id))
	return os.RemoveAll(g.folder(id))
}

// gvisorRunner runs commands in an instance's container as its user.
type gvisorRunner struct {
	c    gvisor.Container
	user jailfs.User
	// lost says whether the container is gone, forgetting it if so.
	lost func() bool
	// router is the container's way out (nil: none), and egress its
	// rules; install, when set, makes the command the default packages'
	// install (see forInstall).
	router  *bubblewrap.Router
	egress  *bubblewrap.Egress
	install *packageIndex
}

// installing lets the container reach the index alone until done, which
// puts the sandbox's rules back; where it cannot, it cuts the container
// off.
func (r gvisorRunner) installing() (done func() error, err error) {
	if r.router == nil {
		return func() error { return nil }, nil
	}
	egress := r.install.egress()
	if err := r.router.Filter(&egress); err != nil {
		return nil, err
	}
	return func() error {
		if err := r.router.Filter(r.egress); err != nil {
			r.router.Close()
			return fmt.Errorf("gvisor: the sandbox's network rules could not be put back after the install, so the instance is cut off: %w", err)
		}
		return nil
	}, nil
}

// errKernelEnded is why a command whose container ended fails.
var errKernelEnded = errors.New("gVisor's kernel of the instance ended under the command, with every process of the instance " +
	"(most likely its processes together used more memory than resources.memory_mb allows); the next command starts it again")

func (r gvisorRunner) Run(ctx context.Context, command string, timeout time.Duration, stdout, stderr io.Writer) (res bubblewrap.Result, err error) {
	if r.install != nil {
		done, err := r.installing()
		if err != nil {
			return bubblewrap.Result{}, err
		}
		defer func() {
			if derr := done(); err == nil {
				err = derr
			}
		}()
		var env strings.Builder
		for _, kv := range r.install.env() {
			env.WriteString("export " + shell.Quote(kv) + "; ")
		}
		command = env.String() + command
	}
	return r.run(ctx, command, timeout, stdout, stderr)
}

// run runs command in the container, telling its kernel's end from the
// command's.
func (r gvisorRunner) run(ctx context.Context, command string, timeout time.Duration, stdout, stderr io.Writer) (bubblewrap.Result, error) {
	began := time.Now()
	res, err := r.c.Exec(ctx, r.user.UID, r.user.GID, command, timeout, stdout, stderr)
	took := time.Since(began)
	switch {
	case err != nil && ctx.Err() != nil:
		return bubblewrap.Result{ExitCode: -1, Duration: took}, fmt.Errorf("gvisor: command ended: %w", context.Cause(ctx))
	case err != nil:
		return bubblewrap.Result{}, err
	case res.TimedOut:
		return bubblewrap.Result{ExitCode: bubblewrap.TimeoutExitCode, TimedOut: true, Duration: took}, nil
	case res.ExitCode != 0 && r.lost():
		return bubblewrap.Result{}, errKernelEnded
	}
	return bubblewrap.Result{ExitCode: res.ExitCode, Duration: took}, nil
}

func (r gvisorRunner) RunTerminal(ctx context.Context, command string, tty *os.File) (bubblewrap.Result, error) {
	began := time.Now()
	env := append([]string{"LANG=C.UTF-8", bubblewrap.TerminalEnv}, venvEnv...)
	sh, err := r.c.Terminal(r.user.UID, r.user.GID, []string{"/bin/sh", "-c", command}, env, tty)
	if err != nil {
		return bubblewrap.Result{}, err
	}
	stop := context.AfterFunc(ctx, func() { sh.Kill(context.Background()) })
	code, err := sh.Wait()
	took := time.Since(began)
	if !stop() {
		return bubblewrap.Result{ExitCode: -1, Duration: took}, fmt.Errorf("gvisor: terminal ended: %w", context.Cause(ctx))
	}
	return bubblewrap.Result{ExitCode: code, Duration: took}, err
}

// exists reports whether name is there (a link counts as itself).
func exists(name string) bool {
	_, err := os.Lstat(name)
	return !errors.Is(err, fs.ErrNotExist)
}
