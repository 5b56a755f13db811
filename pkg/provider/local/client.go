package local

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sync"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/jailfs"
	"github.com/auxilia/sandboxes/pkg/provider"
)

const (
	providerName = "local"
	// workDir is where an instance's folder is mounted in its jails.
	workDir = "/workspace"
)

// instanceID is what Create names instances: "loc-" and 16 hex digits.
var instanceID = regexp.MustCompile(`^loc-[0-9a-f]{16}$`)

// client drives the instances of one local sandbox: folders under
// instances, each mounted as /workspace in a bubblewrap jail per command.
type client struct {
	instances string
	pythons   string // holds the Python environment instances start from
	bwrap     string
	python    string // makes the instances' Python environment ("" = python3)
	config    Config
	// cgroups bound the commands of each bubblewrap instance together; nil
	// where the host has none the server may write.
	cgroups *bubblewrap.Cgroups
	// iso is how instances are isolated (the sandbox's isolation).
	iso isolator
	// disks is set where the server can give each instance a disk of its
	// own (it runs as root); elsewhere an instance is a plain folder.
	disks bool
	// ids are the host users instances' jails run as, one each (see
	// users.go); users holds each instance's, by id, once known.
	ids   bubblewrap.IDs
	users sync.Map
	// index is where default packages are installed from.
	index packageIndex
	// holds keeps commands from starting while an instance is still (see
	// still), by instance id.
	holds sync.Map

	mu      sync.Mutex
	running map[string]*commands // by instance id
}

// Probe checks that bubblewrap can jail commands here, nothing ever runs
// without it, and that instances can have a Python environment of their own.
func (c *client) Probe(ctx context.Context) error {
	if err := c.config.refused("probe"); err != nil {
		return err
	}
	if err := bubblewrap.Available(ctx, c.bwrap, !c.config.Network.Offline()); err != nil {
		return provider.Errorf(provider.ErrFailed, providerName, "probe", "%v", err)
	}
	if err := os.MkdirAll(c.instances, 0o700); err != nil {
		return provider.Errorf(provider.ErrFailed, providerName, "probe", "cannot make the instances folder: %v", err)
	}
	if err := c.checkVenv(ctx); err != nil {
		return provider.Errorf(provider.ErrFailed, providerName, "probe", "%v", bare(err))
	}
	return nil
}

// Create writes the instance's labels, then makes its folder with its
// Python environment: the reaper finds by its labels an instance whose
// creator died before hearing its id.
func (c *client) Create(ctx context.Context, labels provider.Labels) (provider.Instance, error) {
	return c.create(ctx, labels, c.giveVenv)
}

// create makes an instance whose folder fill then fills.
func (c *client) create(ctx context.Context, labels provider.Labels, fill func(context.Context, provider.Instance) error) (provider.Instance, error) {
	fail := func(err error) (provider.Instance, error) {
		return provider.Instance{}, provider.Errorf(provider.ErrFailed, providerName, "create", "%v", bare(err))
	}
	if err := c.config.refused("create"); err != nil {
		return provider.Instance{}, err
	}
	// Nothing could run in it.
	if err := bubblewrap.Installed(c.bwrap); err != nil {
		return fail(err)
	}
	if err := os.MkdirAll(c.instances, 0o700); err != nil {
		return fail(err)
	}
	id, err := newID()
	if err != nil {
		return fail(err)
	}
	f := c.filesOf(id)
	user, err := c.register(id, labelsOf(labels))
	if err != nil {
		return fail(err)
	}
	provider.Created(ctx, id)
	inst := provider.Instance{ID: id, WorkDir: workDir}
	if err := c.makeFolder(ctx, f, user); err != nil {
		_ = c.Destroy(context.WithoutCancel(ctx), inst)
		return fail(err)
	}
	if err := fill(ctx, inst); err != nil {
		_ = c.Destroy(context.WithoutCancel(ctx), inst)
		return fail(err)
	}
	return inst, nil
}

// makeFolder makes the instance's folder: a disk of its own where the
// server can mount one, else a plain folder. Either belongs to the user
// its commands run as.
func (c *client) makeFolder(ctx context.Context, f files, user jailfs.User) error {
	if err := os.Mkdir(f.dir, 0o700); err != nil {
		return err
	}
	if c.disks {
		return f.disk().Make(ctx, c.config.diskMB(), user.UID, user.GID)
	}
	if user != c.serverUser() {
		return os.Chown(f.dir, user.UID, user.GID)
	}
	return nil
}

// Reconnect finds the instance again, resumes it if paused, and mounts
// its disk once: a disk that no longer mounts fails here rather than at
// the first command.
func (c *client) Reconnect(ctx context.Context, inst provider.Instance) (provider.Instance, error) {
	if err := c.config.refused("reconnect"); err != nil {
		return provider.Instance{}, err
	}
	_, done, err := c.workspace("reconnect", inst)
	if err != nil {
		return provider.Instance{}, err
	}
	done()
	if err := c.resume("reconnect", inst.ID); err != nil {
		return provider.Instance{}, err
	}
	inst.WorkDir = workDir
	return inst, nil
}

// KeepAlive does nothing: local instances never expire.
func (c *client) KeepAlive(context.Context, provider.Instance) error { return nil }

// Persist does nothing: the folder is the instance's files.
func (c *client) Persist(context.Context, provider.Instance) error { return nil }

// Destroy ends the instance's commands and removes its disk, its folder
// and, last, its labels: until then the reaper can find it again.
func (c *client) Destroy(ctx context.Context, inst provider.Instance) error {
	if _, err := c.folder("destroy", inst); err != nil {
		return nil // not one of ours: nothing to destroy
	}
	finish := c.stopAll(inst.ID)
	defer finish()
	f := c.filesOf(inst.ID)
	err := func() error {
		if err := c.iso.destroy(ctx, inst.ID); err != nil {
			return err
		}
		if _, err := os.Lstat(f.image); err == nil {
			if err := f.disk().Remove(); err != nil {
				return err
			}
		}
		if err := jailfs.RemoveAll(f.dir); err != nil {
			return err
		}
		if err := os.Remove(f.paused()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err := os.Remove(f.labels); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		c.users.Delete(inst.ID)
		c.holds.Delete(inst.ID)
		return nil
	}()
	if err != nil {
		return provider.Errorf(provider.ErrFailed, providerName, "destroy", "cannot remove instance %s: %v", inst.ID, bare(err))
	}
	return nil
}

// folder is the host folder of inst; ErrGone when its id is not one of ours.
func (c *client) folder(op string, inst provider.Instance) (string, error) {
	if !instanceID.MatchString(inst.ID) {
		return "", gone(op, inst.ID)
	}
	return filepath.Join(c.instances, inst.ID), nil
}

// workspace makes the instance's folder ready for use: its disk mounted,
// until done is called. ErrGone when the instance does not exist.
func (c *client) workspace(op string, inst provider.Instance) (dir string, done func(), err error) {
	dir, err = c.folder(op, inst)
	if err != nil {
		return "", nil, err
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return "", nil, gone(op, inst.ID)
	}
	f := c.filesOf(inst.ID)
	if _, err := os.Lstat(f.image); err != nil {
		return dir, func() {}, nil // a plain folder
	}
	done, err = f.disk().Use()
	if err != nil {
		return "", nil, provider.Errorf(provider.ErrFailed, providerName, op, "instance %s: %v", inst.ID, err)
	}
	return dir, done, nil
}

// door is how the server reaches the instance's files: as its jails' user
// (see jailfs), with its disk mounted until done is called.
func (c *client) door(op string, inst provider.Instance) (user jailfs.User, dir string, done func(), err error) {
	dir, done, err = c.workspace(op, inst)
	if err != nil {
		return jailfs.User{}, "", nil, err
	}
	if user, err = c.userOf(inst.ID); err != nil {
		done()
		return jailfs.User{}, "", nil, provider.Errorf(provider.ErrFailed, providerName, op, "instance %s: %v", inst.ID, bare(err))
	}
	return user, dir, done, nil
}

// jail is where a command runs on the folder dir as user (its UID and
// GID; none: the setup jails' own).
func (c *client) jail(user jailfs.User, dir string, group *bubblewrap.Cgroup) bubblewrap.Jail {
	return bubblewrap.Jail{
		UID:          user.UID,
		GID:          user.GID,
		Bwrap:        c.bwrap,
		Root:         dir,
		WorkDir:      workDir,
		Network:      !c.config.Network.Offline(),
		Egress:       c.config.egress(),
		MemoryMB:     c.config.memoryMB(),
		MaxProcesses: c.config.MaxProcesses,
		// A runaway write ends there where the folder has no disk of its
		// own to fill; on a disk it changes nothing.
		MaxFileMB: c.config.diskMB(),
		Cgroup:    group,
		Env:       venvEnv,
	}
}

func gone(op, id string) error {
	return provider.Errorf(provider.ErrGone, providerName, op, "instance %q does not exist", id)
}

func newID() (string, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return "loc-" + hex.EncodeToString(b), nil
}

// bare drops the host path from a file error: the server's paths are not
// the caller's business.
func bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
