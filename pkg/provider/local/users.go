package local

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/auxilia/sandboxes/pkg/jailfs"
	"golang.org/x/sys/unix"
)

// Each instance's jails run as a host user of its own, from the run of ids
// the Kind was given (see bubblewrap.IDs): its labels say which. A server
// that does not run as root runs every jail as itself.

// legacyUser is who the jails of an instance made before instances had
// users of their own ran as, and so whose its files are.
var legacyUser = jailfs.User{UID: 65534, GID: 65534}

// register writes a new instance's labels with the user its jails will
// run as: one of the run no instance in the folder has. The folder is
// locked meanwhile, against the other clients and processes that make
// instances in it.
func (c *client) register(id string, labels storedLabels) (jailfs.User, error) {
	if os.Geteuid() != 0 {
		return c.serverUser(), writeLabels(c.filesOf(id).labels, labels)
	}
	unlock, err := lockFolder(c.instances)
	if err != nil {
		return jailfs.User{}, err
	}
	defer unlock()
	used, err := c.usersInUse()
	if err != nil {
		return jailfs.User{}, err
	}
	uid, gid, err := c.ids.Pick(func(uid int) bool { return used[uid] })
	if err != nil {
		return jailfs.User{}, err
	}
	u := jailfs.User{UID: uid, GID: gid}
	labels.UID, labels.GID = u.UID, u.GID
	if err := writeLabels(c.filesOf(id).labels, labels); err != nil {
		return jailfs.User{}, err
	}
	c.users.Store(id, u)
	return u, nil
}

// usersInUse are the users of the instances in the folder.
func (c *client) usersInUse() (map[int]bool, error) {
	entries, err := os.ReadDir(c.instances)
	if err != nil {
		return nil, err
	}
	used := map[int]bool{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), labelsSuffix) {
			continue
		}
		l, err := readLabels(filepath.Join(c.instances, e.Name()))
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errBadLabels) {
			continue // destroyed meanwhile, or a draft's leftover
		}
		if err != nil {
			return nil, err
		}
		if l.UID != 0 {
			used[l.UID] = true
		}
	}
	return used, nil
}

// userOf is who the jails of instance id run as.
func (c *client) userOf(id string) (jailfs.User, error) {
	if os.Geteuid() != 0 {
		return c.serverUser(), nil
	}
	if u, ok := c.users.Load(id); ok {
		return u.(jailfs.User), nil
	}
	l, err := readLabels(c.filesOf(id).labels)
	if err != nil {
		return jailfs.User{}, err
	}
	u := legacyUser
	if l.UID != 0 {
		u = jailfs.User{UID: l.UID, GID: l.GID}
	}
	c.users.Store(id, u)
	return u, nil
}

func (c *client) serverUser() jailfs.User {
	return jailfs.User{UID: os.Geteuid(), GID: os.Getegid()}
}

// lockFolder takes an exclusive lock on dir until unlock: every opening
// of it is a lock of its own, so goroutines of one process wait for each
// other as other processes do.
func lockFolder(dir string) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
