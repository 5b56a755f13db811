package jailfs

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// Limits bound a tree the door copies, archives or unpacks.
type Limits struct {
	// MaxBytes bounds the files' sizes together: a sparse file counts at
	// its full size, which is what it unpacks to.
	MaxBytes   int64
	MaxEntries int
	// InsideLinksOnly refuses links whose relative target climbs out of
	// the tree, for trees from elsewhere that are held to that rule. The
	// door never follows a link either way.
	InsideLinksOnly bool
}

// maxDepth bounds how deep a tree the door walks: each level holds a
// folder open.
const maxDepth = 512

// Stats say how much a tree held.
type Stats struct {
	Entries int
	Bytes   int64 // the files' sizes together
}

// ErrTooLarge: a tree goes over its Limits.
var ErrTooLarge = errors.New("too large")

func tooMany(most int) error { return fmt.Errorf("%w: more than %d entries", ErrTooLarge, most) }

// count adds an entry of size bytes to s, within lim.
func (s *Stats) count(size int64, lim Limits) error {
	if s.Entries++; s.Entries > lim.MaxEntries {
		return tooMany(lim.MaxEntries)
	}
	if s.Bytes += size; size < 0 || s.Bytes > lim.MaxBytes {
		return fmt.Errorf("%w: its files come to more than %d bytes (sparse files count at their full size)", ErrTooLarge, lim.MaxBytes)
	}
	return nil
}

// UnsafeEntryError refuses an entry that would reach outside the tree,
// write through a link, or make what a jail's folder never holds.
type UnsafeEntryError struct {
	Name, Why string
}

func (e *UnsafeEntryError) Error() string { return fmt.Sprintf("entry %q %s", e.Name, e.Why) }

// entryName checks an entry's name and returns it clean and relative;
// "." is the tree's own folder.
func entryName(raw string) (string, error) {
	name := raw
	for strings.HasPrefix(name, "./") {
		name = name[2:]
	}
	switch {
	case raw == "" || strings.ContainsRune(raw, 0):
		return "", &UnsafeEntryError{raw, "has no usable name"}
	case strings.HasPrefix(name, "/"):
		return "", &UnsafeEntryError{raw, "has an absolute path"}
	case len(raw) > 4096:
		return "", &UnsafeEntryError{raw[:64] + "…", "has a name longer than 4096 bytes"}
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return "", &UnsafeEntryError{raw, "climbs out with \"..\""}
		}
	}
	name = path.Clean("./" + name)
	if strings.Count(name, "/") >= maxDepth {
		return "", &UnsafeEntryError{raw[:min(len(raw), 64)] + "…", fmt.Sprintf("lies more than %d folders deep", maxDepth)}
	}
	return name, nil
}

// linkStaysInside reports whether a link's target stays in the tree. An
// absolute target is kept: it resolves only inside the jail, and the door
// never follows it.
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
