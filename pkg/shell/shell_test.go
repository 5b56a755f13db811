package shell

import (
	"os/exec"
	"testing"
)

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"":           `''`,
		"plain":      `'plain'`,
		"it's":       `'it'\''s'`,
		"'":          `''\'''`,
		"$HOME `x`":  "'$HOME `x`'",
		"a b\nc\\d*": "'a b\nc\\d*'",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestJoin(t *testing.T) {
	if got := Join(nil); got != "" {
		t.Errorf("Join(nil) = %q, want empty", got)
	}
	if got, want := Join([]string{"pip", "a b", "it's"}), `'pip' 'a b' 'it'\''s'`; got != want {
		t.Errorf("Join = %s, want %s", got, want)
	}
}

// TestQuoteNUL pins what the package comment promises: a NUL in a quoted
// word makes the command fail to start, it never runs cut short.
func TestQuoteNUL(t *testing.T) {
	err := exec.Command("sh", "-c", "printf %s "+Quote("a\x00; echo pwned")).Run()
	if err == nil {
		t.Fatal("a command line holding NUL ran")
	}
}
