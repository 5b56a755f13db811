// Package shell quotes text for a POSIX shell. It is the one place the
// project does so: every command line built for sh or bash, in the
// providers, the gateway and their test fakes, quotes its words here.
package shell

import "strings"

// Quote makes s one word for any POSIX shell (sh, dash, bash, zsh in sh
// mode), whatever s holds: it is wrapped in single quotes, inside which
// every byte stands for itself, and each single quote in s
// closes the quotes, is written escaped (\') and reopens them.
//
// NUL is the one byte no shell word can hold: the kernel ends every
// argument at its first NUL. Quote leaves a NUL where it is; Go's os/exec
// refuses such an argument outright (EINVAL) rather than cut it short, so
// a command line holding one fails to start instead of running something
// else. Callers that take text from users reject NUL before it gets here.
func Quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Join quotes each of args with Quote and joins them with spaces: the
// shell reads them back as exactly those words, none of them expanded.
func Join(args []string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = Quote(a)
	}
	return strings.Join(quoted, " ")
}
