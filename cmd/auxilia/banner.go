package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// printBanner shows the first admin token, once, on standard output: the only
// place a token value is ever written out (the JSON log lines go to standard
// error). Blank lines and a rule of its own set it apart from those lines
// where both reach one terminal; on a terminal the token is also in bold.
func printBanner(w io.Writer, url, value string, terminal bool) {
	rule := strings.Repeat("#", 72)
	shown := value
	if terminal {
		shown = "\x1b[1m" + value + "\x1b[0m"
	}
	fmt.Fprintf(w, `

%s
#
#  Auxilia sandboxes is running at %s
#
#  An admin token was created for workspace "default". It is shown only
#  this once: keep it somewhere safe.
#
      %s
#
#  Sign in with it at %s, or try:
#      curl -H "Authorization: Bearer %s" %s/api/v1/me
#
#  Lost it? "make token" (or: auxilia tokens create) makes another.
#
%s


`, rule, url, shown, url, value, url, rule)
}

// isTerminal says whether f is a terminal (a character device), not a file or a pipe.
func isTerminal(f *os.File) bool {
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
