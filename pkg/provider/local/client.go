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
	"github.com/auxilia/sandboxes/pkg/provider"
)

const (
	providerName = "local"
	// workDir is where an instance's folder is mounted in its jail.
	workDir = "/workspace"
	// maxFileMB is the largest file a command may write: a runaway write
	// ends there rather than filling the server's disk.
	maxFileMB = 1024
)

// instanceID is what Create names instances: "loc-" and 16 hex digits.
var instanceID = regexp.MustCompile(`^loc-[0-9a-f]{16}$`)

// client drives the instances of one local sandbox: folders under
// instances, each mounted as /workspace in a bubblewrap jail per command.
type client struct {
	instances string
	bwrap     string
	config    Config

	mu      sync.Mutex
	running map[string]*commands // by instance id
}

// Probe checks that bubblewrap can jail commands here: nothing ever runs
// without it.
func (c *client) Probe(ctx context.Context) error {
	if err := bubblewrap.Available(ctx, c.bwrap, c.config.Network); err != nil {
		return provider.Errorf(provider.ErrFailed, providerName, "probe", "%v", err)
	}
	if err := os.MkdirAll(c.instances, 0o700); err != nil {
		return provider.Errorf(provider.ErrFailed, providerName, "probe", "cannot make the instances folder: %v", err)
	}
	return nil
}

// Create makes a new instance folder, owned by the user commands run as.
func (c *client) Create(ctx context.Context, _ provider.Labels) (provider.Instance, error) {
	fail := func(err error) (provider.Instance, error) {
		return provider.Instance{}, provider.Errorf(provider.ErrFailed, providerName, "create", "%v", err)
	}
	if err := os.MkdirAll(c.instances, 0o700); err != nil {
		return fail(err)
	}
	id, err := newID()
	if err != nil {
		return fail(err)
	}
	dir := filepath.Join(c.instances, id)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return fail(err)
	}
	provider.Created(ctx, id)
	if uid, gid, ok := c.owner(); ok {
		if err := os.Chown(dir, uid, gid); err != nil {
			_ = os.Remove(dir)
			return fail(err)
		}
	}
	return provider.Instance{ID: id, WorkDir: workDir}, nil
}

// Reconnect finds the instance's folder again.
func (c *client) Reconnect(ctx context.Context, inst provider.Instance) (provider.Instance, error) {
	dir, err := c.folder("reconnect", inst)
	if err != nil {
		return provider.Instance{}, err
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return provider.Instance{}, gone("reconnect", inst.ID)
	}
	inst.WorkDir = workDir
	return inst, nil
}

// KeepAlive does nothing: local instances never expire.
func (c *client) KeepAlive(context.Context, provider.Instance) error { return nil }

// Persist does nothing: the folder is the instance's files.
func (c *client) Persist(context.Context, provider.Instance) error { return nil }

// Destroy ends the instance's commands and removes its folder.
func (c *client) Destroy(ctx context.Context, inst provider.Instance) error {
	dir, err := c.folder("destroy", inst)
	if errors.Is(err, provider.ErrGone) {
		return nil
	}
	if err != nil {
		return err
	}
	finish := c.stopAll(inst.ID)
	defer finish()
	if err := removeAll(dir); err != nil {
		return provider.Errorf(provider.ErrFailed, providerName, "destroy", "cannot remove instance %s: %v", inst.ID, err)
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

// owner is who files in instance folders must belong to, when that is not
// the server: a server running as root runs commands as another user.
func (c *client) owner() (uid, gid int, chown bool) {
	uid, gid = c.jail("").User()
	return uid, gid, uid != os.Geteuid()
}

func (c *client) jail(dir string) bubblewrap.Jail {
	return bubblewrap.Jail{
		Bwrap:        c.bwrap,
		Root:         dir,
		WorkDir:      workDir,
		Network:      c.config.Network,
		MemoryMB:     c.config.MemoryMB,
		MaxProcesses: c.config.MaxProcesses,
		MaxFileMB:    maxFileMB,
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

// removeAll removes dir and everything in it, even folders a command made
// unwritable, which stop a server that is not root.
func removeAll(dir string) error {
	if err := os.RemoveAll(dir); err == nil {
		return nil
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}
