package jailfs

import (
	"archive/tar"
	"errors"
	"io"
	"io/fs"
	"path"
	"time"

	"golang.org/x/sys/unix"
)

// walk calls visit with each entry under top, a folder before what it
// holds and names in order, with a file's content in r: exactly hdr.Size
// bytes, padded with zeros where a command shrank the file meanwhile. It
// stops past lim. Folders, regular files and links are entries; sockets,
// FIFOs and devices are left out.
func walk(top *dir, lim Limits, visit func(hdr *tar.Header, r io.Reader) error) (Stats, error) {
	w := walker{lim: lim, visit: visit}
	err := w.folder(top, "", 0)
	return w.stats, err
}

type walker struct {
	lim   Limits
	visit func(hdr *tar.Header, r io.Reader) error
	stats Stats
}

func (w *walker) folder(d *dir, prefix string, depth int) error {
	if depth >= maxDepth {
		return &UnsafeEntryError{prefix, "lies too deep"}
	}
	names, err := d.names(w.lim.MaxEntries - w.stats.Entries)
	if errors.Is(err, ErrTooLarge) {
		return tooMany(w.lim.MaxEntries)
	}
	if err != nil {
		return err
	}
	for _, name := range names {
		if err := w.entry(d, name, path.Join(prefix, name), depth); err != nil {
			return err
		}
	}
	return nil
}

// entry visits one name in d. A name that changed kind between its stat
// and its opening (a folder swapped for a link) is looked at once more,
// then left out.
func (w *walker) entry(d *dir, name, rel string, depth int) error {
	for range 2 {
		st, err := d.stat(name)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // removed meanwhile
		}
		if err != nil {
			return err
		}
		var done bool
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFDIR:
			done, err = w.dir(d, name, rel, depth)
		case unix.S_IFREG:
			done, err = w.file(d, name, rel)
		case unix.S_IFLNK:
			done, err = w.link(d, name, rel, st)
		default:
			return nil
		}
		if err != nil || done {
			return err
		}
	}
	return nil
}

// changed reports whether err says name is no longer what its stat said.
func changed(err error) bool {
	return errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ENOENT) ||
		errors.Is(err, unix.EINVAL) || errors.Is(err, unix.EISDIR) || errors.Is(err, errNotRegular)
}

var errNotRegular = errors.New("not a regular file")

func (w *walker) dir(d *dir, name, rel string, depth int) (bool, error) {
	o, err := d.openOwn(name, unix.O_RDONLY|unix.O_DIRECTORY, 0o500)
	if changed(err) {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	defer o.restore()
	sub := &dir{f: o.f, fd: int(o.f.Fd())}
	defer sub.close()
	hdr, err := o.header(rel+"/", tar.TypeDir)
	if err == nil {
		err = w.add(hdr, nil)
	}
	if err == nil {
		err = w.folder(sub, rel, depth+1)
	}
	return true, err
}

func (w *walker) file(d *dir, name, rel string) (bool, error) {
	o, err := d.openOwn(name, unix.O_RDONLY, 0o400)
	if err == nil {
		defer o.restore()
		defer o.f.Close()
	}
	var hdr *tar.Header
	if err == nil {
		hdr, err = o.header(rel, tar.TypeReg)
	}
	if changed(err) {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	r := io.MultiReader(io.LimitReader(o.f, hdr.Size), zeros{})
	return true, w.add(hdr, io.LimitReader(r, hdr.Size))
}

func (w *walker) link(d *dir, name, rel string, st unix.Stat_t) (bool, error) {
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlinkat(d.fd, name, buf)
	if changed(err) {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	hdr := &tar.Header{Name: rel, Typeflag: tar.TypeSymlink, Linkname: string(buf[:n]), Mode: 0o777,
		ModTime: time.Unix(st.Mtim.Unix()), Format: tar.FormatPAX}
	return true, w.add(hdr, nil)
}

func (w *walker) add(hdr *tar.Header, r io.Reader) error {
	if err := w.stats.count(hdr.Size, w.lim); err != nil {
		return err
	}
	return w.visit(hdr, r)
}

// header describes what o holds as an entry of kind: its mode as it was
// before the door opened it, its permission bits only.
func (o opened) header(name string, kind byte) (*tar.Header, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(o.f.Fd()), &st); err != nil {
		return nil, err
	}
	want := uint32(unix.S_IFREG)
	if kind == tar.TypeDir {
		want = unix.S_IFDIR
	}
	if st.Mode&unix.S_IFMT != want {
		return nil, errNotRegular
	}
	mode := st.Mode
	if o.shut {
		mode = o.mode
	}
	hdr := &tar.Header{Name: name, Typeflag: kind, Mode: int64(mode & 0o777), ModTime: time.Unix(st.Mtim.Unix()), Format: tar.FormatPAX}
	if kind == tar.TypeReg {
		hdr.Size = st.Size
	}
	return hdr, nil
}

// zeros reads as an endless run of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
