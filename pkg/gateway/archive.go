package gateway

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"syscall"
)

// archiveLimits bound what an archive may hold, whichever way it goes.
type archiveLimits struct {
	MaxBytes   int64 // the sum of the files' sizes
	MaxEntries int
}

// maxArchiveEntries bounds the entries of one archive.
const maxArchiveEntries = 200_000

// errArchiveTooLarge: an archive goes over its limits.
var errArchiveTooLarge = errors.New("archive too large")

// unsafeEntryError: an archive entry that would write outside the workspace or make something other than files, folders and links.
type unsafeEntryError struct {
	name, why string
}

func (e *unsafeEntryError) Error() string { return fmt.Sprintf("entry %q %s", e.name, e.why) }

// writeArchive writes the workspace under root as a tar: folders, regular
// files and symbolic links, with names relative to the workspace. Other
// kinds of file (sockets, FIFOs, devices) are left out.
func writeArchive(root *os.Root, w io.Writer, lim archiveLimits) (entries int, err error) {
	tw := tar.NewWriter(w)
	var total int64
	var walk func(dir string) error
	walk = func(dir string) error {
		f, err := root.OpenFile(dir, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			return err
		}
		list, err := f.ReadDir(-1)
		f.Close()
		if err != nil {
			return err
		}
		sort.Slice(list, func(i, j int) bool { return list[i].Name() < list[j].Name() })
		for _, e := range list {
			name := path.Join(dir, e.Name())
			fi, err := e.Info()
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed by a running command meanwhile
			} else if err != nil {
				return err
			}
			hdr := &tar.Header{Name: name, Mode: int64(fi.Mode().Perm()), ModTime: fi.ModTime(), Format: tar.FormatPAX}
			switch {
			case fi.IsDir():
				hdr.Typeflag, hdr.Name = tar.TypeDir, name+"/"
			case fi.Mode().IsRegular():
				hdr.Typeflag, hdr.Size = tar.TypeReg, fi.Size()
			case fi.Mode()&fs.ModeSymlink != 0:
				if hdr.Linkname, err = root.Readlink(name); err != nil {
					return err
				}
				hdr.Typeflag = tar.TypeSymlink
			default:
				continue
			}
			if entries++; entries > lim.MaxEntries {
				return fmt.Errorf("%w: more than %d entries", errArchiveTooLarge, lim.MaxEntries)
			}
			if total += hdr.Size; total > lim.MaxBytes {
				return fmt.Errorf("%w: more than %d bytes of files", errArchiveTooLarge, lim.MaxBytes)
			}
			if err := tw.WriteHeader(hdr); err != nil {
				return err
			}
			switch hdr.Typeflag {
			case tar.TypeReg:
				if err := copyFile(root, name, tw, hdr.Size); err != nil {
					return err
				}
			case tar.TypeDir:
				if err := walk(name); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk("."); err != nil {
		return entries, err
	}
	return entries, tw.Close()
}

// copyFile writes exactly size bytes of a file, padding with zeros if a command shrank it meanwhile.
func copyFile(root *os.Root, name string, w io.Writer, size int64) error {
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	n, err := io.Copy(w, io.LimitReader(f, size))
	if err != nil {
		return err
	}
	_, err = io.CopyN(w, zeros{}, size-n)
	return err
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// extractArchive unpacks a tar into the (new, empty) folder under root. It
// refuses the whole archive at the first entry that is absolute, climbs
// with "..", writes through a symbolic link, is a link that climbs out of
// the workspace, a hard link or a device, or goes over the limits.
// Absolute link targets are kept: they resolve only inside the sandbox,
// and the gateway's own file access (os.Root) never follows them.
func extractArchive(root *os.Root, r io.Reader, lim archiveLimits, owner fileOwner) (entries int, total int64, err error) {
	tr := tar.NewReader(r)
	links := map[string]bool{}
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return entries, total, nil
		}
		if err != nil {
			return entries, total, err
		}
		if hdr.Typeflag == tar.TypeXGlobalHeader {
			continue
		}
		name, err := entryName(hdr.Name)
		if err != nil {
			return entries, total, err
		}
		if entries++; entries > lim.MaxEntries {
			return entries, total, fmt.Errorf("%w: more than %d entries", errArchiveTooLarge, lim.MaxEntries)
		}
		if through := linkAncestor(name, links); through != "" {
			return entries, total, &unsafeEntryError{hdr.Name, "writes through the symbolic link " + through}
		}
		perm := fs.FileMode(hdr.Mode).Perm()
		switch hdr.Typeflag {
		case tar.TypeDir:
			if name == "." {
				continue
			}
			if err := root.MkdirAll(name, perm|0o700); err != nil {
				return entries, total, err
			}
			if err := owner.give(root, name); err != nil {
				return entries, total, err
			}
		case tar.TypeReg, tar.TypeGNUSparse: // archive/tar reads the old TypeRegA as TypeReg
			if name == "." {
				return entries, total, &unsafeEntryError{hdr.Name, "is a file in the workspace's place"}
			}
			// hdr.Size is what the file unpacks to: a sparse file's holes
			// are written out as zeros, so they count, however few bytes
			// the archive spends on them.
			if total += hdr.Size; hdr.Size < 0 || total > lim.MaxBytes {
				return entries, total, fmt.Errorf("%w: its files unpack to more than %d bytes (sparse files count at their full size)", errArchiveTooLarge, lim.MaxBytes)
			}
			if err := extractFile(root, name, tr, hdr, perm|0o600); err != nil {
				return entries, total, err
			}
			if err := owner.give(root, name); err != nil {
				return entries, total, err
			}
			delete(links, name)
		case tar.TypeSymlink:
			if !linkStaysInside(name, hdr.Linkname) {
				return entries, total, &unsafeEntryError{hdr.Name, "is a symbolic link leading outside the workspace (" + hdr.Linkname + ")"}
			}
			if err := makeParent(root, name); err != nil {
				return entries, total, err
			}
			_ = root.Remove(name)
			if err := root.Symlink(hdr.Linkname, name); err != nil {
				return entries, total, err
			}
			links[name] = true
			if err := owner.give(root, name); err != nil {
				return entries, total, err
			}
		case tar.TypeLink:
			return entries, total, &unsafeEntryError{hdr.Name, "is a hard link, which snapshots do not use"}
		default:
			return entries, total, &unsafeEntryError{hdr.Name, fmt.Sprintf("is of a kind the workspace does not hold (type %q)", hdr.Typeflag)}
		}
	}
}

func extractFile(root *os.Root, name string, r io.Reader, hdr *tar.Header, perm fs.FileMode) error {
	if err := makeParent(root, name); err != nil {
		return err
	}
	if fi, err := root.Lstat(name); err == nil && !fi.IsDir() {
		_ = root.Remove(name) // a later entry replaces an earlier one, never writes through it
	}
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	_, err = io.CopyN(f, r, hdr.Size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return root.Chtimes(name, hdr.ModTime, hdr.ModTime)
}

func makeParent(root *os.Root, name string) error {
	if dir := path.Dir(name); dir != "." {
		return root.MkdirAll(dir, 0o755)
	}
	return nil
}

// entryName checks an archive name and returns it cleaned and relative.
func entryName(raw string) (string, error) {
	name := raw
	for strings.HasPrefix(name, "./") {
		name = name[2:]
	}
	switch {
	case raw == "" || strings.ContainsRune(raw, 0):
		return "", &unsafeEntryError{raw, "has no usable name"}
	case strings.HasPrefix(name, "/"):
		return "", &unsafeEntryError{raw, "has an absolute path"}
	case len(raw) > 4096:
		return "", &unsafeEntryError{raw[:64] + "…", "has a name longer than 4096 bytes"}
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return "", &unsafeEntryError{raw, "climbs out with \"..\""}
		}
	}
	return path.Clean("./" + name), nil
}

// linkAncestor returns the first proper ancestor of name that the archive made a symbolic link.
func linkAncestor(name string, links map[string]bool) string {
	for dir := path.Dir(name); dir != "." && dir != "/"; dir = path.Dir(dir) {
		if links[dir] {
			return dir
		}
	}
	return ""
}

// linkStaysInside reports whether a relative link target stays in the workspace.
func linkStaysInside(name, target string) bool {
	if target == "" || strings.ContainsRune(target, 0) {
		return false
	}
	if path.IsAbs(target) {
		return true
	}
	joined := path.Join(path.Dir(name), target)
	return joined != ".." && !strings.HasPrefix(joined, "../")
}
