package shell

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// FuzzQuote: whatever s holds (NUL aside, which no shell word can carry),
// sh prints back exactly s from its quoted form, alone and among other
// words joined by Join.
func FuzzQuote(f *testing.F) {
	if _, err := exec.LookPath("sh"); err != nil {
		f.Skip("no sh on this machine")
	}
	for _, s := range []string{"", "plain", "it's", "'", "''", `'\''`, "$(id)", "`id`", "a\nb", "*", "~", "-n", "\\", "\xff\xfe", "!$#&;|<>(){}[]"} {
		f.Add(s, "other")
	}
	f.Fuzz(func(t *testing.T, s, other string) {
		if strings.ContainsRune(s, 0) || strings.ContainsRune(other, 0) {
			t.Skip("NUL cannot be carried by a shell word")
		}
		if got := runSh(t, "printf %s "+Quote(s)); !bytes.Equal(got, []byte(s)) {
			t.Fatalf("Quote(%q) printed back %q", s, got)
		}
		want := s + "\x00" + other + "\x00"
		if got := runSh(t, `printf '%s\0' `+Join([]string{s, other})); string(got) != want {
			t.Fatalf("Join(%q, %q) printed back %q", s, other, got)
		}
	})
}

func runSh(t *testing.T, line string) []byte {
	t.Helper()
	out, err := exec.Command("sh", "-c", line).Output()
	if err != nil {
		t.Fatalf("sh -c %q: %v", line, err)
	}
	return out
}
