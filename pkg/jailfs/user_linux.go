package jailfs

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// User is the host user a jail's commands run as.
type User struct {
	UID, GID int
}

// ErrRootUser refuses a door as root: a jail's user never is.
var ErrRootUser = errors.New("jailfs: a jail's files are never opened as root")

// Open opens dir (a folder the server made, which the jail cannot move)
// and calls use with it as an os.Root, acting as u: see the package's
// doc. use must open what it opens itself, on its own goroutine (another
// goroutine acts as the server); what it opened may then be read and
// written from anywhere.
func (u User) Open(dir string, use func(root *os.Root) error) error {
	// The folder itself is opened as the server: its parents need not be
	// open to the user, and the jail cannot change where it is.
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	return u.act(func() error { return use(root) })
}

// act calls fn on a thread acting as u, when the server runs as root.
func (u User) act(fn func() error) error {
	if os.Geteuid() != 0 {
		return fn() // the server is the jails' user
	}
	if u.UID == 0 || u.GID == 0 {
		return ErrRootUser
	}
	type outcome struct {
		err      error
		panicked any // what fn panicked with, to panic with again in the caller
	}
	done := make(chan outcome, 1)
	go func() {
		// Never unlocked: the thread, and the identity it takes, end with
		// this goroutine.
		runtime.LockOSThread()
		defer func() {
			if p := recover(); p != nil {
				done <- outcome{panicked: p}
			}
		}()
		if err := become(u); err != nil {
			done <- outcome{err: err}
			return
		}
		done <- outcome{err: fn()}
	}()
	o := <-done
	if o.panicked != nil {
		panic(o.panicked)
	}
	return o.err
}

// invalidID is (uid_t)-1: setfsuid and setfsgid change nothing with it and
// return the id in force.
const invalidID = 1<<32 - 1

// become gives the calling thread u's file-system identity and no
// supplementary groups. Raw system calls: Go's and libc's wrappers of
// setgroups apply it to every thread of the process.
func become(u User) error {
	if _, _, errno := unix.RawSyscall(unix.SYS_SETGROUPS, 0, 0, 0); errno != 0 {
		return fmt.Errorf("jailfs: drop the supplementary groups: %w", errno)
	}
	unix.RawSyscall(unix.SYS_SETFSGID, uintptr(u.GID), 0, 0)
	unix.RawSyscall(unix.SYS_SETFSUID, uintptr(u.UID), 0, 0)
	// Neither call reports a failure: read them back.
	gid, _, _ := unix.RawSyscall(unix.SYS_SETFSGID, invalidID, 0, 0)
	uid, _, _ := unix.RawSyscall(unix.SYS_SETFSUID, invalidID, 0, 0)
	if int(uid) != u.UID || int(gid) != u.GID {
		return fmt.Errorf("jailfs: could not act as %d:%d", u.UID, u.GID)
	}
	return nil
}
