package bubblewrap

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// limitsCommand is the start of a jail's command line: prlimit (util-linux,
// from the host's /usr) lowers its own limits, which the command inherits,
// then runs it. Nothing inside can raise them again: it has no capabilities.
// It runs inside the jail, after bwrap made the jail's user namespace, where
// RLIMIT_NPROC counts the jail's processes only (see the package doc).
func (j Jail) limitsCommand() ([]string, error) {
	var limits []string
	if j.MaxProcesses > 0 {
		// One more for bwrap's init, the jail's first process.
		limits = append(limits, fmt.Sprintf("--nproc=%d", j.MaxProcesses+1))
	}
	if j.MemoryMB > 0 {
		limits = append(limits, fmt.Sprintf("--data=%d", int64(j.MemoryMB)<<20))
	}
	if j.MaxFileMB > 0 {
		limits = append(limits, fmt.Sprintf("--fsize=%d", int64(j.MaxFileMB)<<20))
	}
	if len(limits) == 0 {
		return nil, nil
	}
	prlimit, err := findInJail("prlimit")
	if err != nil {
		return nil, err
	}
	limits = append(limits, "--core=0") // no core files in Root
	return append(append([]string{prlimit}, limits...), "--"), nil
}

// findInJail finds a program of the host's system that the jail sees at the
// same path.
func findInJail(name string) (string, error) {
	for _, dir := range strings.Split(DefaultPath, ":") {
		p := filepath.Join(dir, name)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s (util-linux) is not installed: it sets the jail's resource limits", name)
}
