package jailfs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func TestInside(t *testing.T) {
	for _, c := range []struct {
		dir, p, clean, rel string
		ok                 bool
	}{
		{"/workspace", "", "/workspace", ".", true},
		{"/workspace", ".", "/workspace", ".", true},
		{"/workspace", "a/b/../c", "/workspace/a/c", "a/c", true},
		{"/workspace", "/workspace/", "/workspace", ".", true},
		{"/workspace", "/workspace//x/./y", "/workspace/x/y", "x/y", true},
		{"/workspace", "..", "/", "", false},
		{"/workspace", "../workspace2/x", "/workspace2/x", "", false},
		{"/workspace", "/workspace2", "/workspace2", "", false},
		{"/workspace", "/etc/passwd", "/etc/passwd", "", false},
		{"/workspace", "/workspace/../etc", "/etc", "", false},
		{"/", "etc", "/etc", "etc", true},
		{"/", "/", "/", ".", true},
	} {
		clean, rel, ok := Inside(c.dir, c.p)
		if clean != c.clean || rel != c.rel || ok != c.ok {
			t.Errorf("Inside(%q, %q) = %q, %q, %v; want %q, %q, %v", c.dir, c.p, clean, rel, ok, c.clean, c.rel, c.ok)
		}
	}
}

// TestEscapeTextIsTheStdlibs provokes os.Root's refusal both ways a name
// can leave its folder and checks IsEscape knows it: should a Go release
// reword the unexported error, this fails rather than the refusal turning
// into a plain failure everywhere it is recognised.
func TestEscapeTextIsTheStdlibs(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink("/", filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, name := range []string{"../x", "out/etc"} {
		_, err := root.Open(name)
		if !IsEscape(err) {
			t.Errorf("os.Root refused %q with %v, which IsEscape does not know", name, err)
		}
	}
}

func TestIsEscapeWrapped(t *testing.T) {
	root, err := os.OpenRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	_, err = root.Open("../x")
	var pe *os.PathError
	if !errors.As(err, &pe) {
		t.Fatalf("os.Root refused ../x with %v, not a PathError", err)
	}
	refusal := pe.Err
	for _, err := range []error{
		refusal,
		fmt.Errorf("stat: %w", &os.PathError{Op: "open", Path: "x", Err: refusal}),
		fmt.Errorf("two: %w, %w", os.ErrClosed, refusal),
	} {
		if !IsEscape(err) {
			t.Errorf("IsEscape(%v) = false", err)
		}
	}
	for _, err := range []error{nil, os.ErrNotExist, errors.New("path escapes from parent!"), fmt.Errorf("%v", &os.PathError{Op: "open", Path: "x", Err: refusal})} {
		if IsEscape(err) {
			t.Errorf("IsEscape(%v) = true", err)
		}
	}
}
