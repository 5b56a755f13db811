package local

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// A local instance is paused by stopping its processes (its cgroup's
// freezer where the server has cgroups, else SIGSTOP) and marking it so:
// its folder stays as it is. Its files are kept by copying its folder
// aside, under kept/ beside the instances, and an instance made from them
// starts with a copy.

const (
	pausedSuffix = ".paused"
	keptFolder   = "kept"
)

// keptID is what Keep names what it kept: "kept-" and 16 hex digits.
var keptID = regexp.MustCompile(`^kept-[0-9a-f]{16}$`)

// Pause stops what the instance runs and marks it paused; its next
// Reconnect (or command) lets it go on.
func (c *client) Pause(ctx context.Context, inst provider.Instance) error {
	if err := c.existing("pause", inst); err != nil {
		return err
	}
	if err := os.WriteFile(c.filesOf(inst.ID).paused(), nil, 0o600); err != nil {
		return provider.Errorf(provider.ErrFailed, providerName, "pause", "instance %s: %v", inst.ID, bare(err))
	}
	if c.cgroups != nil {
		if err := c.cgroups.Freeze(inst.ID, true); err != nil {
			return provider.Errorf(provider.ErrFailed, providerName, "pause", "instance %s: %v", inst.ID, err)
		}
	}
	return nil
}

// resume lets a paused instance's processes go on and unmarks it.
func (c *client) resume(op, id string) error {
	marker := c.filesOf(id).paused()
	if _, err := os.Lstat(marker); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if c.cgroups != nil {
		if err := c.cgroups.Freeze(id, false); err != nil {
			return provider.Errorf(provider.ErrFailed, providerName, op, "instance %s: %v", id, err)
		}
	}
	if err := os.Remove(marker); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return provider.Errorf(provider.ErrFailed, providerName, op, "instance %s: %v", id, bare(err))
	}
	return nil
}

// Paused reports whether the instance is paused: tests look.
func (c *client) Paused(inst provider.Instance) bool {
	_, err := os.Lstat(c.filesOf(inst.ID).paused())
	return err == nil
}

func (f files) paused() string { return f.dir + pausedSuffix }

// Keep copies the instance's folder aside, owners and modes kept.
func (c *client) Keep(ctx context.Context, inst provider.Instance) (provider.Kept, error) {
	const op = "keep"
	dir, done, err := c.workspace(op, inst)
	if err != nil {
		return provider.Kept{}, err
	}
	defer done()
	id, err := newID()
	if err != nil {
		return provider.Kept{}, provider.Errorf(provider.ErrFailed, providerName, op, "%v", err)
	}
	kept := provider.Kept{ID: "kept-" + strings.TrimPrefix(id, "loc-"), At: time.Now().UTC()}
	to := c.keptDir(kept.ID)
	if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
		return provider.Kept{}, provider.Errorf(provider.ErrFailed, providerName, op, "%v", bare(err))
	}
	if err := copyFolder(ctx, dir, to); err != nil {
		_ = removeAll(to)
		return provider.Kept{}, provider.Errorf(provider.ErrFailed, providerName, op, "instance %s: %v", inst.ID, err)
	}
	return kept, nil
}

// CreateFrom makes an instance, as Create does, whose folder is a copy of
// the kept one (its Python environment included).
func (c *client) CreateFrom(ctx context.Context, labels provider.Labels, kept provider.Kept) (provider.Instance, error) {
	const op = "create_from"
	from, err := c.kept(op, kept)
	if err != nil {
		return provider.Instance{}, err
	}
	if _, err := os.Stat(from); err != nil {
		return provider.Instance{}, provider.Errorf(provider.ErrGone, providerName, op, "kept files %q do not exist", kept.ID)
	}
	return c.create(ctx, labels, func(ctx context.Context, inst provider.Instance) error {
		dir, done, err := c.workspace(op, inst)
		if err != nil {
			return err
		}
		defer done()
		return copyFolder(ctx, from, dir)
	})
}

// Forget removes the kept folder.
func (c *client) Forget(ctx context.Context, kept provider.Kept) error {
	dir, err := c.kept("forget", kept)
	if err != nil {
		return nil // not one of ours: nothing to forget
	}
	if err := removeAll(dir); err != nil {
		return provider.Errorf(provider.ErrFailed, providerName, "forget", "kept files %s: %v", kept.ID, bare(err))
	}
	return nil
}

// kept is the host folder of kept files; ErrGone when the id is not one of ours.
func (c *client) kept(op string, kept provider.Kept) (string, error) {
	if !keptID.MatchString(kept.ID) {
		return "", provider.Errorf(provider.ErrGone, providerName, op, "kept files %q do not exist", kept.ID)
	}
	return c.keptDir(kept.ID), nil
}

func (c *client) keptDir(id string) string {
	return filepath.Join(filepath.Dir(c.instances), keptFolder, id)
}

// existing says ErrGone when the instance does not exist.
func (c *client) existing(op string, inst provider.Instance) error {
	dir, err := c.folder(op, inst)
	if err != nil {
		return err
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return gone(op, inst.ID)
	}
	return nil
}

// copyFolder copies what is in from into to (made if missing), as it is:
// owners, modes, times and symbolic links (never followed).
func copyFolder(ctx context.Context, from, to string) error {
	if err := os.MkdirAll(to, 0o700); err != nil {
		return bare(err)
	}
	out, err := exec.CommandContext(ctx, "cp", "-a", "--", from+"/.", to).CombinedOutput()
	if err != nil {
		return errors.New("copying the folder failed: " + strings.TrimSpace(strings.ReplaceAll(string(out), filepath.Dir(from), "…")))
	}
	return nil
}

var (
	_ provider.Pauser = (*client)(nil)
	_ provider.Keeper = (*client)(nil)
)
