package gateway

import (
	"os"
	"sync"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/jailfs"
)

// jailUsers hand each sandbox a host user of its own, from a run of ids,
// when the gateway runs as root: sandboxes then share neither files nor
// the kernel's limits per user (key quotas, inotify instances, pipe
// buffers, processes). A gateway that is not root runs every sandbox's
// commands, and opens every workspace, as itself.
type jailUsers struct {
	ids bubblewrap.IDs

	mu    sync.Mutex
	taken map[int]bool
}

func newJailUsers(ids bubblewrap.IDs) *jailUsers {
	return &jailUsers{ids: ids, taken: map[int]bool{}}
}

// take hands out a user no sandbox has, until put.
func (u *jailUsers) take() (jailfs.User, error) {
	if os.Geteuid() != 0 {
		return gatewayUser(), nil
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	uid, gid, err := u.ids.Pick(func(uid int) bool { return u.taken[uid] })
	if err != nil {
		return jailfs.User{}, err
	}
	u.taken[uid] = true
	return jailfs.User{UID: uid, GID: gid}, nil
}

// claim marks the user of a sandbox found in the data folder as taken.
func (u *jailUsers) claim(user jailfs.User) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.taken[user.UID] = true
}

// put gives a sandbox's user back.
func (u *jailUsers) put(user jailfs.User) {
	u.mu.Lock()
	defer u.mu.Unlock()
	delete(u.taken, user.UID)
}

// legacyUser is who the commands of a sandbox made before sandboxes had
// users of their own ran as: nobody, for a gateway running as root.
func legacyUser() jailfs.User {
	if os.Geteuid() != 0 {
		return gatewayUser()
	}
	return jailfs.User{UID: 65534, GID: 65534}
}

func gatewayUser() jailfs.User { return jailfs.User{UID: os.Geteuid(), GID: os.Getegid()} }
