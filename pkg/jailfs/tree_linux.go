package jailfs

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// The methods below work on a whole tree, as the jail's user; see the
// package's doc. Their folders are opened as User.Open opens its own.

// Archive writes what is under dir to w as a tar (PAX): folders, regular
// files and links, named relative to dir, in order. Sockets, FIFOs and
// devices are left out.
func (u User) Archive(dir string, w io.Writer, lim Limits) (stats Stats, err error) {
	err = u.Open(dir, func(root *os.Root) error {
		stats, err = archive(root, w, lim)
		return err
	})
	return stats, err
}

func archive(root *os.Root, w io.Writer, lim Limits) (Stats, error) {
	d, err := top(root)
	if err != nil {
		return Stats{}, err
	}
	defer d.close()
	tw := tar.NewWriter(w)
	stats, err := walk(d, lim, func(hdr *tar.Header, r io.Reader) error {
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if r != nil {
			_, err := io.Copy(tw, r)
			return err
		}
		return nil
	})
	if err != nil {
		return stats, err
	}
	return stats, tw.Close()
}

// Extract unpacks a tar under dir. It refuses the whole archive at the
// first entry that is absolute, climbs out with "..", lies below a link or
// a file, is a hard link, a device or a FIFO, or goes over lim; what it
// placed until then stays, for the caller to remove.
func (u User) Extract(dir string, r io.Reader, lim Limits) (stats Stats, err error) {
	err = u.Open(dir, func(root *os.Root) error {
		stats, err = extract(root, r, lim)
		return err
	})
	return stats, err
}

func extract(root *os.Root, r io.Reader, lim Limits) (Stats, error) {
	d, err := top(root)
	if err != nil {
		return Stats{}, err
	}
	defer d.close()
	p := newPlacer(d, lim)
	defer p.close()
	tr := tar.NewReader(r)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return p.stats, err
		}
		if err := p.place(hdr, tr); err != nil {
			return p.stats, err
		}
	}
	return p.stats, p.finish()
}

// Copy copies what is under from to under to, as Archive and Extract
// would together: from is read as the user too.
func (u User) Copy(from, to string, lim Limits) (stats Stats, err error) {
	src, err := os.OpenRoot(from)
	if err != nil {
		return Stats{}, err
	}
	defer src.Close()
	err = u.Open(to, func(dst *os.Root) error {
		stats, err = copyTree(src, dst, lim)
		return err
	})
	return stats, err
}

func copyTree(from, to *os.Root, lim Limits) (Stats, error) {
	src, err := top(from)
	if err != nil {
		return Stats{}, err
	}
	defer src.close()
	dst, err := top(to)
	if err != nil {
		return Stats{}, err
	}
	defer dst.close()
	p := newPlacer(dst, lim)
	defer p.close()
	stats, err := walk(src, lim, p.place)
	if err != nil {
		return stats, err
	}
	return stats, p.finish()
}

// RemoveAll removes dir and what it holds, as the server: os.RemoveAll
// never follows a link, and root may remove anything. A server that is not
// root is its jails' user: it first opens to itself what they shut.
func RemoveAll(dir string) error {
	if err := os.RemoveAll(dir); err == nil || os.Geteuid() == 0 {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	err = empty(root)
	root.Close()
	if err != nil {
		return err
	}
	return os.RemoveAll(dir)
}

// Empty removes everything under dir, dir itself staying: folders the
// user shut are opened to it first, as their owner may.
func (u User) Empty(dir string) error { return u.Open(dir, empty) }

func empty(root *os.Root) error {
	d, err := top(root)
	if err != nil {
		return err
	}
	defer d.close()
	return emptyDir(d, 0)
}

func emptyDir(d *dir, depth int) error {
	if depth >= maxDepth*8 {
		return errors.New("jailfs: the tree is too deep to remove")
	}
	for {
		names, err := d.f.Readdirnames(1024)
		if len(names) == 0 {
			if errors.Is(err, io.EOF) || err == nil {
				return nil
			}
			return err
		}
		for _, name := range names {
			if err := remove(d, name, depth); err != nil {
				return err
			}
		}
		// What was read is gone: read the folder again from its start.
		if _, err := d.f.Seek(0, io.SeekStart); err != nil {
			return err
		}
	}
}

// remove removes name from d, and first what is in it when it is a folder.
// A name that changes under it (a folder swapped for a link, or the other
// way round) is tried again as what it has become.
func remove(d *dir, name string, depth int) error {
	for range maxSwaps {
		err := removeOnce(d, name, depth)
		if !changed(err) {
			return err
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
	}
	return fmt.Errorf("jailfs: %s keeps changing while it is removed", name)
}

// maxSwaps bounds how often remove tries a name that keeps changing.
const maxSwaps = 100

func removeOnce(d *dir, name string, depth int) error {
	err := unix.Unlinkat(d.fd, name, 0)
	if !errors.Is(err, unix.EISDIR) {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	o, err := d.openOwn(name, unix.O_RDONLY|unix.O_DIRECTORY, 0o700)
	if err != nil {
		return err
	}
	sub := &dir{f: o.f, fd: int(o.f.Fd())}
	_ = unix.Fchmod(sub.fd, 0o700) // it goes: what it held must be removable
	err = emptyDir(sub, depth+1)
	sub.close()
	o.restore()
	if err != nil {
		return err
	}
	return unix.Unlinkat(d.fd, name, unix.AT_REMOVEDIR)
}
