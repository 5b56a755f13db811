package jailfs

import (
	"errors"
	"io"
	"os"
	"sort"
	"strconv"

	"golang.org/x/sys/unix"
)

// dir is an open folder of a tree the door works on. What is in it is
// reached by name, one component at a time, never through a link.
type dir struct {
	f  *os.File
	fd int
}

// top opens the folder of root itself.
func top(root *os.Root) (*dir, error) {
	f, err := root.Open(".")
	if err != nil {
		return nil, err
	}
	return &dir{f: f, fd: int(f.Fd())}, nil
}

func (d *dir) close() { _ = d.f.Close() }

// stat describes name in d: a link as itself.
func (d *dir) stat(name string) (unix.Stat_t, error) {
	var st unix.Stat_t
	err := retry(func() error { return unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) })
	return st, err
}

// sub opens the folder name in d; a link there is ELOOP (or ENOTDIR).
func (d *dir) sub(name string) (*dir, error) {
	fd, err := openat(d.fd, name, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return nil, err
	}
	return &dir{f: os.NewFile(uintptr(fd), name), fd: fd}, nil
}

// names lists d's entries in order, failing with ErrTooLarge past most.
func (d *dir) names(most int) ([]string, error) {
	var all []string
	for {
		chunk, err := d.f.Readdirnames(1024)
		all = append(all, chunk...)
		if len(all) > most {
			return nil, tooMany(most)
		}
		if errors.Is(err, io.EOF) || (err == nil && len(chunk) == 0) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(all)
	return all, nil
}

// opened is a file or folder opened by openOwn.
type opened struct {
	f *os.File
	// shut says the door gave the owner access to open it: mode is its
	// mode before, which restore gives back.
	shut    bool
	mode    uint32
	restore func()
}

// openOwn opens name in d, never through a link. A file or folder the
// user shut even to itself (mode 0400 or 0500 missing) is theirs to open
// after a chmod: the door gives the owner need, opens it through its own
// descriptor, and restore shuts it again. Anything else the user may not
// open stays shut (EACCES).
func (d *dir) openOwn(name string, flags int, need uint32) (opened, error) {
	fd, err := openat(d.fd, name, flags)
	if !errors.Is(err, unix.EACCES) {
		if err != nil {
			return opened{}, err
		}
		return opened{f: os.NewFile(uintptr(fd), name), restore: func() {}}, nil
	}
	path, err := openat(d.fd, name, unix.O_PATH)
	if err != nil {
		return opened{}, err
	}
	var st unix.Stat_t
	kind := uint32(0)
	if unix.Fstat(path, &st) == nil {
		kind = st.Mode & unix.S_IFMT
	}
	// The descriptor's own name in /proc reaches exactly the file it holds.
	self := "/proc/self/fd/" + strconv.Itoa(path)
	mode := st.Mode & 0o7777
	if (kind != unix.S_IFREG && kind != unix.S_IFDIR) || unix.Chmod(self, mode|need) != nil {
		_ = unix.Close(path)
		return opened{}, unix.EACCES
	}
	restore := func() {
		_ = unix.Chmod(self, mode)
		_ = unix.Close(path)
	}
	fd, err = open(self, flags)
	if err != nil {
		restore()
		return opened{}, err
	}
	return opened{f: os.NewFile(uintptr(fd), name), shut: true, mode: mode, restore: restore}, nil
}

// openat opens name in dirfd: never through a link, never inherited,
// never waiting on a FIFO.
func openat(dirfd int, name string, flags int) (int, error) {
	var fd int
	err := retry(func() (err error) {
		fd, err = unix.Openat(dirfd, name, flags|unix.O_NOFOLLOW|unix.O_CLOEXEC|nonblock(flags), 0)
		return err
	})
	return fd, err
}

func open(name string, flags int) (int, error) {
	var fd int
	err := retry(func() (err error) {
		fd, err = unix.Open(name, flags|unix.O_CLOEXEC|nonblock(flags), 0)
		return err
	})
	return fd, err
}

// nonblock is O_NONBLOCK, where the flags allow it.
func nonblock(flags int) int {
	if flags&unix.O_PATH != 0 {
		return 0
	}
	return unix.O_NONBLOCK
}

// retry calls fn again while a signal interrupts it.
func retry(fn func() error) error {
	for {
		if err := fn(); !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

func fileOf(fd int, name string) *os.File { return os.NewFile(uintptr(fd), name) }
