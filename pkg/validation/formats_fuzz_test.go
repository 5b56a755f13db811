package validation

import (
	"strings"
	"testing"
)

// shellMeta are the characters that would let a value reach a shell as
// more than a word: no accepted package or image may contain one.
const shellMeta = ";&|$`'\"\\\n\r\t(){}*?[]#~%!^"

func FuzzPipRequirement(f *testing.F) {
	for _, s := range []string{"pandas==2.2.*", "numpy>=1.26,<2", "requests[socks]>=2", "a; rm -rf /", "x @ https://e/x",
		"-e .", "$(id)", "pkg==1.0 ; python_version<'3'", "a\nb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !PipRequirement(s) {
			return
		}
		// Extras' brackets and a version's * are quoted when installed; nothing else may need quoting.
		if strings.ContainsAny(s, ";&|$`'\"\\\n\r\t(){}#%^?") {
			t.Fatalf("accepted %q, which holds a shell character", s)
		}
		if strings.HasPrefix(s, "-") || strings.Contains(s, "://") {
			t.Fatalf("accepted %q, an option or a URL", s)
		}
	})
}

func FuzzImageRef(f *testing.F) {
	for _, s := range []string{"python:3.12-slim", "ghcr.io/org/img:tag", "localhost:5000/a/b@sha256:" + strings.Repeat("a", 64),
		"python 3", "python:3;id", "Python", "a//b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if ImageRef(s) && strings.ContainsAny(s, shellMeta+" ") {
			t.Fatalf("accepted image %q, which holds a shell character", s)
		}
	})
}
