package local

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/auxilia/sandboxes/pkg/jailfs"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// A local instance is paused by stopping its processes (its cgroup's
// freezer where the server has cgroups; runsc pause under gVisor) and
// marking it so:
// its folder stays as it is. Its files are kept as an archive under kept/
// beside the instances, which the door (jailfs) writes as the instance's
// user, never following a link, while its processes are stopped; an
// instance made from them unpacks it, as its own user. Kept files of older
// versions are folders: they are read as the user every jail then ran as.

const (
	pausedSuffix = ".paused"
	keptFolder   = "kept"
	keptSuffix   = ".tar"
	// keptDraft starts the name of an archive being written: a server that
	// stopped meanwhile leaves one, and the next sweeps it.
	keptDraft = ".draft-"
	// maxKeptEntries bounds what kept files hold, besides the disk's size.
	maxKeptEntries = 1 << 20
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
	if err := c.iso.freeze(inst.ID, true); err != nil {
		return provider.Errorf(provider.ErrFailed, providerName, "pause", "instance %s: %v", inst.ID, err)
	}
	return nil
}

// resume lets a paused instance's processes go on and unmarks it.
func (c *client) resume(op, id string) error {
	marker := c.filesOf(id).paused()
	if _, err := os.Lstat(marker); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err := c.iso.freeze(id, false); err != nil {
		return provider.Errorf(provider.ErrFailed, providerName, op, "instance %s: %v", id, err)
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

// Keep archives the instance's folder aside, its processes stopped
// meanwhile. A sparse file counts, and is kept, at its full size.
func (c *client) Keep(ctx context.Context, inst provider.Instance) (provider.Kept, error) {
	const op = "keep"
	user, dir, done, err := c.door(op, inst)
	if err != nil {
		return provider.Kept{}, err
	}
	defer done()
	id, err := newID()
	if err != nil {
		return provider.Kept{}, provider.Errorf(provider.ErrFailed, providerName, op, "%v", err)
	}
	kept := provider.Kept{ID: "kept-" + strings.TrimPrefix(id, "loc-"), At: time.Now().UTC()}
	err = c.still(op, inst.ID, func() error {
		if err := os.MkdirAll(c.keptFolder(), 0o700); err != nil {
			return err
		}
		return writeWhole(c.keptArchive(kept.ID), keptDraft, func(w io.Writer) error {
			_, err := user.Archive(dir, w, c.keptLimits())
			return err
		})
	})
	if err != nil {
		return provider.Kept{}, provider.Errorf(provider.ErrFailed, providerName, op, "instance %s: %v", inst.ID, keptError(err))
	}
	if fi, err := os.Stat(c.keptArchive(kept.ID)); err == nil {
		kept.Bytes = fi.Size()
	}
	return kept, nil
}

// CreateFrom makes an instance, as Create does, whose folder holds the kept
// files (its Python environment included), unpacked as its own user.
func (c *client) CreateFrom(ctx context.Context, labels provider.Labels, kept provider.Kept) (provider.Instance, error) {
	const op = "create_from"
	archive, folder, err := c.kept(op, kept)
	if err != nil {
		return provider.Instance{}, err
	}
	return c.create(ctx, labels, func(ctx context.Context, inst provider.Instance) error {
		user, dir, done, err := c.door(op, inst)
		if err != nil {
			return err
		}
		defer done()
		if folder != "" {
			err = unpackFolder(folder, user, dir, c.keptLimits())
		} else {
			err = unpackArchive(archive, user, dir, c.keptLimits())
		}
		if err != nil {
			return errors.New("unpacking the kept files failed: " + keptError(err).Error())
		}
		return nil
	})
}

// Forget removes the kept files.
func (c *client) Forget(ctx context.Context, kept provider.Kept) error {
	archive, folder, err := c.kept("forget", kept)
	if err != nil {
		return nil // not one of ours, or gone already: nothing to forget
	}
	if folder != "" {
		err = os.RemoveAll(folder) // never through a link
	} else {
		err = os.Remove(archive)
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return provider.Errorf(provider.ErrFailed, providerName, "forget", "kept files %s: %v", kept.ID, bare(err))
	}
	return nil
}

// kept finds the kept files: an archive, or a folder an older version
// kept; ErrGone when the id is not one of ours or they are not there.
func (c *client) kept(op string, kept provider.Kept) (archive, folder string, err error) {
	if keptID.MatchString(kept.ID) {
		archive = c.keptArchive(kept.ID)
		if _, err := os.Lstat(archive); err == nil {
			return archive, "", nil
		}
		folder = filepath.Join(c.keptFolder(), kept.ID)
		if info, err := os.Lstat(folder); err == nil && info.IsDir() {
			return "", folder, nil
		}
	}
	return "", "", provider.Errorf(provider.ErrGone, providerName, op, "kept files %q do not exist", kept.ID)
}

func (c *client) keptFolder() string { return filepath.Join(filepath.Dir(c.instances), keptFolder) }

func (c *client) keptArchive(id string) string { return filepath.Join(c.keptFolder(), id+keptSuffix) }

// keptLimits bound kept files: what the instance's disk holds.
func (c *client) keptLimits() jailfs.Limits {
	return jailfs.Limits{MaxBytes: int64(c.config.diskMB()) << 20, MaxEntries: maxKeptEntries}
}

// unpackArchive unpacks kept files into dir as user.
func unpackArchive(archive string, user jailfs.User, dir string, lim jailfs.Limits) error {
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = user.Extract(dir, f, lim)
	return err
}

// unpackFolder copies kept files an older version kept as a folder into
// dir as user. They are read as the user every jail then ran as, whose
// they are, while user writes them: neither may read the other's.
func unpackFolder(folder string, user jailfs.User, dir string, lim jailfs.Limits) error {
	r, w := io.Pipe()
	var wg sync.WaitGroup
	wg.Go(func() {
		_, err := legacyUser.Archive(folder, w, lim)
		w.CloseWithError(err)
	})
	_, err := user.Extract(dir, r, lim)
	r.CloseWithError(errors.New("the unpacking stopped"))
	wg.Wait()
	return err
}

// keptError words a failure of the door for the caller: without the
// server's paths.
func keptError(err error) error {
	if errors.Is(err, jailfs.ErrTooLarge) {
		return errors.New("the files are larger than the instance's disk (resources.disk_mb) allows: " + err.Error())
	}
	return bare(err)
}

// still runs fn with the instance's processes stopped, where the server
// has cgroups, and no command of it starting meanwhile: what fn reads of
// its files is then one moment's. A paused instance stays paused.
func (c *client) still(op, id string, fn func() error) error {
	hold := c.stillness(id)
	hold.Lock()
	defer hold.Unlock()
	if !c.iso.canFreeze() {
		return fn()
	}
	if err := c.iso.freeze(id, true); err != nil {
		return provider.Errorf(provider.ErrFailed, providerName, op, "instance %s: %v", id, err)
	}
	if _, err := os.Lstat(c.filesOf(id).paused()); errors.Is(err, fs.ErrNotExist) {
		defer func() { _ = c.iso.freeze(id, false) }()
	}
	return fn()
}

// stillness is held by still, and for a moment by each command of the
// instance as it starts.
func (c *client) stillness(id string) *sync.RWMutex {
	hold, _ := c.holds.LoadOrStore(id, new(sync.RWMutex))
	return hold.(*sync.RWMutex)
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

var (
	_ provider.Pauser = (*client)(nil)
	_ provider.Keeper = (*client)(nil)
)
