package main

import (
	"fmt"
	"io"
	"strings"
)

// printBanner shows the first admin token, once, on standard output: the only
// place a token value is ever written out.
func printBanner(w io.Writer, url, value string) {
	rule := strings.Repeat("=", 72)
	fmt.Fprintf(w, `%s
  Auxilia sandboxes is running at %s

  An admin token was created for workspace "default". It is shown only
  this once: keep it somewhere safe.

      %s

  Sign in with it at %s, or try:
      curl -H "Authorization: Bearer %s" %s/api/v1/me
%s
`, rule, url, value, url, value, url, rule)
}
