package jailfs

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// placer makes entries in a tree, each in a folder it opened from the
// top one name at a time without following links: an entry below a link
// is refused, never written through it.
type placer struct {
	top   *dir
	lim   Limits
	stats Stats
	// open are the folders from the top down to the last entry's
	// parent, and names their names.
	open  []*dir
	names []string
	// made are the folders placed, with the mode and time each is given
	// once everything is in them.
	made map[string]folderMeta
}

type folderMeta struct {
	mode    uint32
	modTime time.Time
}

func newPlacer(top *dir, lim Limits) *placer {
	return &placer{top: top, lim: lim, made: map[string]folderMeta{}}
}

// place makes the entry hdr describes, with a file's content read from r.
func (p *placer) place(hdr *tar.Header, r io.Reader) error {
	if hdr.Typeflag == tar.TypeXGlobalHeader {
		return nil
	}
	name, err := entryName(hdr.Name)
	if err != nil {
		return err
	}
	size := int64(0)
	if hdr.Typeflag == tar.TypeReg || hdr.Typeflag == tar.TypeGNUSparse {
		size = hdr.Size
	}
	if err := p.stats.count(size, p.lim); err != nil {
		return err
	}
	if name == "." {
		if hdr.Typeflag == tar.TypeDir {
			return nil // the tree's own folder is the caller's
		}
		return &UnsafeEntryError{hdr.Name, "is a file in the tree's own place"}
	}
	mode := uint32(fs.FileMode(hdr.Mode).Perm())
	switch hdr.Typeflag {
	case tar.TypeDir:
		return p.folder(name, mode, hdr.ModTime)
	case tar.TypeReg, tar.TypeGNUSparse: // archive/tar reads the old TypeRegA as TypeReg
		return p.file(name, mode, hdr.ModTime, r, size)
	case tar.TypeSymlink:
		if p.lim.InsideLinksOnly && !linkStaysInside(name, hdr.Linkname) {
			return &UnsafeEntryError{hdr.Name, "is a symbolic link leading outside (" + hdr.Linkname + ")"}
		}
		if hdr.Linkname == "" || strings.ContainsRune(hdr.Linkname, 0) {
			return &UnsafeEntryError{hdr.Name, "is a symbolic link to nowhere"}
		}
		return p.link(name, hdr.Linkname, hdr.ModTime)
	case tar.TypeLink:
		return &UnsafeEntryError{hdr.Name, "is a hard link, which these trees do not hold"}
	}
	return &UnsafeEntryError{hdr.Name, fmt.Sprintf("is of a kind a jail's folder does not hold (type %q)", hdr.Typeflag)}
}

func (p *placer) folder(name string, mode uint32, modTime time.Time) error {
	parent, base, err := p.parent(name)
	if err != nil {
		return err
	}
	if err := p.clear(parent, base, name, true); err != nil {
		return err
	}
	err = unix.Mkdirat(parent.fd, base, 0o700)
	if err != nil && !errors.Is(err, unix.EEXIST) {
		return err
	}
	p.made[name] = folderMeta{mode: mode, modTime: modTime}
	return nil
}

func (p *placer) file(name string, mode uint32, modTime time.Time, r io.Reader, size int64) error {
	parent, base, err := p.parent(name)
	if err != nil {
		return err
	}
	if err := p.clear(parent, base, name, false); err != nil {
		return err
	}
	fd, err := openat(parent.fd, base, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL)
	if err != nil {
		return err
	}
	f := fileOf(fd, base)
	_, err = io.CopyN(f, r, size)
	if err == nil {
		err = unix.Fchmod(fd, mode)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return setTime(parent, base, modTime)
}

func (p *placer) link(name, target string, modTime time.Time) error {
	parent, base, err := p.parent(name)
	if err != nil {
		return err
	}
	if err := p.clear(parent, base, name, false); err != nil {
		return err
	}
	if err := unix.Symlinkat(target, parent.fd, base); err != nil {
		return err
	}
	return setTime(parent, base, modTime)
}

// clear makes room for an entry: a later entry replaces an earlier one
// (never writes through it), but a folder is replaced only by a folder.
func (p *placer) clear(parent *dir, base, name string, folder bool) error {
	st, err := parent.stat(base)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case st.Mode&unix.S_IFMT == unix.S_IFDIR:
		if folder {
			return nil
		}
		return &UnsafeEntryError{name, "would replace a folder"}
	}
	return unix.Unlinkat(parent.fd, base, 0)
}

// parent opens the folder that holds name, making missing folders on the
// way (they get mode 0755 unless an entry of their own says otherwise).
func (p *placer) parent(name string) (*dir, string, error) {
	parts := strings.Split(name, "/")
	base, want := parts[len(parts)-1], parts[:len(parts)-1]
	keep := 0
	for keep < len(p.names) && keep < len(want) && p.names[keep] == want[keep] {
		keep++
	}
	for len(p.open) > keep {
		p.open[len(p.open)-1].close()
		p.open, p.names = p.open[:len(p.open)-1], p.names[:len(p.names)-1]
	}
	for _, part := range want[keep:] {
		d := p.top
		if len(p.open) > 0 {
			d = p.open[len(p.open)-1]
		}
		sub, err := d.sub(part)
		if errors.Is(err, fs.ErrNotExist) {
			if err = unix.Mkdirat(d.fd, part, 0o700); err == nil {
				made := path.Join(append(slices.Clone(p.names), part)...)
				p.made[made] = folderMeta{mode: 0o755, modTime: time.Now()}
				sub, err = d.sub(part)
			}
		}
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
			return nil, "", &UnsafeEntryError{name, "lies below " + path.Join(append(p.names, part)...) + ", which is not a folder"}
		}
		if err != nil {
			return nil, "", err
		}
		p.open, p.names = append(p.open, sub), append(p.names, part)
	}
	if len(p.open) == 0 {
		return p.top, base, nil
	}
	return p.open[len(p.open)-1], base, nil
}

// finish gives the folders placed their modes and times, the deepest
// first: a folder shut to its owner is shut after what is in it is done.
func (p *placer) finish() error {
	names := make([]string, 0, len(p.made))
	for name := range p.made {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	for _, name := range names {
		meta := p.made[name]
		parent, base, err := p.parent(name)
		if err != nil {
			return err
		}
		sub, err := parent.sub(base)
		if err != nil {
			return err
		}
		err = unix.Fchmod(sub.fd, meta.mode)
		sub.close()
		if err == nil {
			err = setTime(parent, base, meta.modTime)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (p *placer) close() {
	for _, d := range p.open {
		d.close()
	}
	p.open, p.names = nil, nil
}

// setTime gives name in parent its time, a link its own.
func setTime(parent *dir, base string, t time.Time) error {
	ts := unix.NsecToTimespec(t.UnixNano())
	return unix.UtimesNanoAt(parent.fd, base, []unix.Timespec{ts, ts}, unix.AT_SYMLINK_NOFOLLOW)
}
