package bubblewrap

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/user"
	"strconv"
	"strings"
)

// IDs are a run of host user ids, and one of group ids, that jails may run
// as: one of each per instance, so that no two instances share the
// kernel's accounting per user (key quotas, inotify instances, pipe
// buffers, process counts) or each other's files.
type IDs struct {
	UID, GID int // the first of each run
	Count    int
}

// containerIDs are the ids systemd leaves to containers' users
// (systemd.io/UIDS-GIDS: 524288 to 1879048191): no account of the host's
// own is among them.
var containerIDs = IDs{UID: 524288, GID: 524288, Count: 1879048191 - 524288 + 1}

// At returns the n-th user and group of the run.
func (ids IDs) At(n int) (uid, gid int) { return ids.UID + n, ids.GID + n }

// Pick returns a user and group of the run whose user taken does not
// hold, nor nobody: at random, so that servers on other data folders of
// the host seldom pick alike, else the first free one.
func (ids IDs) Pick(taken func(uid int) bool) (uid, gid int, err error) {
	free := func(uid int) bool { return uid != nobody && !taken(uid) }
	for range 64 {
		if uid, gid := ids.At(rand.IntN(ids.Count)); free(uid) {
			return uid, gid, nil
		}
	}
	for n := range ids.Count {
		if uid, gid := ids.At(n); free(uid) {
			return uid, gid, nil
		}
	}
	return 0, 0, fmt.Errorf("every user of the run %s is taken: remove some sandboxes, or give a longer run", ids)
}

// String is the run as ParseIDs reads it, or two runs where the groups'
// differ from the users'.
func (ids IDs) String() string {
	if ids.UID == ids.GID {
		return fmt.Sprintf("%d-%d", ids.UID, ids.UID+ids.Count-1)
	}
	return fmt.Sprintf("users %d-%d, groups %d-%d", ids.UID, ids.UID+ids.Count-1, ids.GID, ids.GID+ids.Count-1)
}

// ParseIDs reads a run as FIRST-LAST, the same numbers for users and
// groups. Root, nobody and the server's own user are never in it.
func ParseIDs(s string) (IDs, error) {
	first, last, ok := strings.Cut(strings.TrimSpace(s), "-")
	a, errA := strconv.Atoi(strings.TrimSpace(first))
	b, errB := strconv.Atoi(strings.TrimSpace(last))
	switch {
	case !ok || errA != nil || errB != nil:
		return IDs{}, fmt.Errorf("must be a run of ids as FIRST-LAST, such as 524288-589823, not %q", s)
	case a < 1 || b < a || b >= nobody && a <= nobody || b > 1<<32-2:
		return IDs{}, fmt.Errorf("must run from 1 up to 4294967294, leaving out 65534 (nobody), not %q", s)
	case a <= os.Geteuid() && os.Geteuid() <= b:
		return IDs{}, fmt.Errorf("must leave out the server's own user %d, not %q", os.Geteuid(), s)
	}
	return IDs{UID: a, GID: a, Count: b - a + 1}, nil
}

// HostIDs is the run jails take unless the operator names one: the
// subordinate ids /etc/subuid and /etc/subgid give the server's user,
// where they give it any, else those systemd leaves to containers.
func HostIDs() IDs {
	uid := os.Geteuid()
	name := ""
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		name = u.Username
	}
	users, okU := subordinate("/etc/subuid", name, uid)
	groups, okG := subordinate("/etc/subgid", name, uid)
	if !okU || !okG {
		return containerIDs
	}
	return IDs{UID: users.UID, GID: groups.UID, Count: min(users.Count, groups.Count)}
}

// subordinate reads the first run a subid file gives the user (by name or
// by number).
func subordinate(file, name string, uid int) (IDs, bool) {
	f, err := os.Open(file)
	if err != nil {
		return IDs{}, false
	}
	defer f.Close()
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		fields := strings.Split(strings.TrimSpace(lines.Text()), ":")
		if len(fields) != 3 || (fields[0] != name && fields[0] != strconv.Itoa(uid)) {
			continue
		}
		first, err1 := strconv.Atoi(fields[1])
		count, err2 := strconv.Atoi(fields[2])
		if err1 == nil && err2 == nil && first > 0 && count > 0 {
			return IDs{UID: first, Count: count}, true
		}
	}
	return IDs{}, false
}
