// Package proctest lets tests that start processes prove they leave none
// running, and no goroutine either.
package proctest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"go.uber.org/goleak"
)

// Main runs the tests (m is a *testing.M, or wraps one), then fails them if
// goroutines leaked or processes were left running (children of the test
// binary, or processes with marker in their command line).
func Main(m interface{ Run() int }, marker string) {
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutines leaked:", err)
			code = 1
		}
		if left := Leftovers(marker); len(left) > 0 {
			fmt.Fprintln(os.Stderr, "processes left running:", left)
			code = 1
		}
	}
	os.Exit(code)
}

// Leftovers are processes this test binary started that still run:
// children of its own, or processes with marker in their command line.
func Leftovers(marker string) []string {
	var found []string
	self := strconv.Itoa(os.Getpid())
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range dirs {
		cmdline, err := os.ReadFile(filepath.Join(dir, "cmdline"))
		if err != nil || filepath.Base(dir) == self {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join(dir, "stat"))
		// stat: pid (comm) state ppid …; comm may hold spaces, so split after ")".
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		line := strings.ReplaceAll(string(cmdline), "\x00", " ")
		if (len(fields) > 1 && fields[1] == self) || strings.Contains(line, marker) {
			found = append(found, filepath.Base(dir)+": "+line)
		}
	}
	return found
}
