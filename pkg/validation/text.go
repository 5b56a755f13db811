package validation

import (
	"strings"
	"unicode/utf8"
)

// Text says whether s is text: valid UTF-8 without a NUL. A database column
// keeps it alike on both engines (Postgres refuses a NUL outright), and a
// file tool can show it.
func Text(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}
