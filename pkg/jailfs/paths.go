package jailfs

import (
	"path"
	"strings"
)

// Inside resolves p, absolute or relative to dir, to a clean absolute path
// and its name relative to dir ("." for dir itself). ok says whether the
// path lies within dir: no "..", however placed, leads out. It is the one
// check of a sandbox path by its words, shared by the providers, the
// gateway and the run service; links are a matter for the os.Root that
// opens the name (see IsEscape). dir must be a clean absolute path.
func Inside(dir, p string) (clean, rel string, ok bool) {
	if !path.IsAbs(p) {
		p = path.Join(dir, p)
	}
	clean = path.Clean(p)
	if clean == dir {
		return clean, ".", true
	}
	prefix := dir
	if !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	if rel, ok = strings.CutPrefix(clean, prefix); ok {
		return clean, rel, true
	}
	return clean, "", false
}

// escapeText is what os.Root's refusal of a name that leads out of its
// folder says. The standard library does not export the error, so this is
// the one place that knows its words; TestEscapeTextIsTheStdlibs provokes
// the refusal and fails loudly should a Go release change them.
const escapeText = "path escapes from parent"

// IsEscape reports whether err, or an error it wraps, is os.Root's refusal
// of a name that leads out of its folder (through "..", or a symbolic link
// to an absolute path or out of the folder).
func IsEscape(err error) bool {
	if err == nil {
		return false
	}
	if err.Error() == escapeText {
		return true
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return IsEscape(u.Unwrap())
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if IsEscape(e) {
				return true
			}
		}
	}
	return false
}
