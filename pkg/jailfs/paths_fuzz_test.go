package jailfs

import (
	"path"
	"strings"
	"testing"
)

// FuzzInside: whatever the path, Inside's clean path is the folder joined
// with its relative name when it says the path is inside, never lies
// outside the folder when it says so, and is outside it when it says not.
func FuzzInside(f *testing.F) {
	for _, p := range []string{"", ".", "..", "a/../..", "/workspace", "/workspace/../x", "/workspace2", "a//b/./c", "../workspace/x", "/"} {
		f.Add("/workspace", p)
	}
	f.Add("/", "../etc")
	f.Fuzz(func(t *testing.T, dir, p string) {
		dir = path.Clean("/" + dir)
		clean, rel, ok := Inside(dir, p)
		if clean != path.Clean(clean) || !path.IsAbs(clean) {
			t.Fatalf("Inside(%q, %q) gave %q, not clean and absolute", dir, p, clean)
		}
		under := clean == dir || strings.HasPrefix(clean, strings.TrimSuffix(dir, "/")+"/")
		if ok != under {
			t.Fatalf("Inside(%q, %q) = %q, ok %v", dir, p, clean, ok)
		}
		if !ok {
			if rel != "" {
				t.Fatalf("Inside(%q, %q) refused the path but named %q", dir, p, rel)
			}
			return
		}
		if path.Join(dir, rel) != clean || path.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, "../") {
			t.Fatalf("Inside(%q, %q) = %q, %q: the name does not lead back", dir, p, clean, rel)
		}
	})
}
