package local

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
)

// sweeps holds, per instances folder, the sweep this process did of it.
var sweeps sync.Map // instances folder → func() error

// sweepOnce sweeps the instances folder unless this process has already:
// before the first client of the folder is handed out, nothing of this
// process uses its disks or cgroups yet.
func (c *client) sweepOnce() {
	once, _ := sweeps.LoadOrStore(c.instances, sync.OnceValue(c.sweep))
	// What cannot be cleared now stays for the next start: nothing here
	// stops the instances from working.
	_ = once.(func() error)()
}

// sweep clears what a server that stopped mid-work left for the instances
// in this folder: labels, Python templates and kept files it was writing,
// the disks it had mounted and the cgroups of the commands it ran (its
// jails died with it). An instance's disk is mounted and its cgroup made
// again when it is next used.
func (c *client) sweep() error {
	var errs []error
	entries, err := os.ReadDir(c.instances)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), labelsDraft) {
			errs = append(errs, os.Remove(filepath.Join(c.instances, e.Name())))
		}
	}
	drafts, err := filepath.Glob(filepath.Join(c.pythons, templateDraft+"*"))
	errs = append(errs, err)
	archives, err := filepath.Glob(filepath.Join(c.keptFolder(), keptDraft+"*"))
	errs = append(errs, err)
	for _, draft := range append(drafts, archives...) {
		errs = append(errs, os.RemoveAll(draft))
	}
	errs = append(errs, bubblewrap.UnmountUnder(c.instances))
	if c.cgroups != nil {
		errs = append(errs, c.cgroups.Sweep())
	}
	return errors.Join(errs...)
}
