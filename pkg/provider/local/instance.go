package local

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// files are what an instance is in the instances folder: its labels,
// written first and removed last, so that the reaper can find the
// instance from the moment anything of it exists; its disk image, where the
// server can mount one; and its folder, mounted as /workspace in its jails.
type files struct {
	labels, image, dir string
}

func (c *client) filesOf(id string) files {
	base := filepath.Join(c.instances, id)
	return files{labels: base + labelsSuffix, image: base + ".ext4", dir: base}
}

func (f files) disk() bubblewrap.Disk { return bubblewrap.Disk{Image: f.image, Dir: f.dir} }

const (
	labelsSuffix = ".json"
	// labelsDraft starts the name of labels being written: a server that
	// stopped while writing them leaves such a file, and the next sweeps it.
	labelsDraft = ".labels-"
)

// storedLabels are an instance's labels as its labels file holds them,
// with the user its jails run as (none: legacyUser).
type storedLabels struct {
	Workspace string `json:"workspace"`
	Sandbox   string `json:"sandbox"`
	Thread    string `json:"thread"`
	Instance  string `json:"instance"`
	UID       int    `json:"uid,omitempty"`
	GID       int    `json:"gid,omitempty"`
}

func labelsOf(l provider.Labels) storedLabels {
	return storedLabels{Workspace: l.Workspace, Sandbox: l.Sandbox, Thread: l.Thread, Instance: l.Instance}
}

func (l storedLabels) labels() provider.Labels {
	return provider.Labels{Workspace: l.Workspace, Sandbox: l.Sandbox, Thread: l.Thread, Instance: l.Instance}
}

// errBadLabels: a labels file that does not read as labels.
var errBadLabels = errors.New("the labels file is not JSON labels")

// readLabels reads an instance's labels file.
func readLabels(name string) (storedLabels, error) {
	var l storedLabels
	data, err := os.ReadFile(name)
	if err != nil {
		return l, err
	}
	if err := json.Unmarshal(data, &l); err != nil {
		return l, fmt.Errorf("%w: %v", errBadLabels, err)
	}
	return l, nil
}

// writeLabels writes an instance's labels file whole or not at all, to
// last through a crash of the host.
func writeLabels(name string, l storedLabels) error {
	if err := replaceLabels(name, l); err != nil {
		return err
	}
	return syncDir(filepath.Dir(name))
}

// replaceLabels replaces an instance's labels file whole, without waiting
// for the rename to reach the disk: a crash of the host may leave the
// labels it had, whole, never half of either.
func replaceLabels(name string, l storedLabels) error {
	data, err := json.Marshal(l)
	if err != nil {
		return err
	}
	return replaceWhole(name, labelsDraft, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeWhole writes a file with write into a draft beside name (its name
// starting with draft), renamed to name once it is whole on disk: a reader
// finds the file whole or not at all, and a crash leaves only the draft.
func writeWhole(name, draft string, write func(w io.Writer) error) error {
	if err := replaceWhole(name, draft, write); err != nil {
		return err
	}
	return syncDir(filepath.Dir(name))
}

// replaceWhole is writeWhole but for the rename, which a crash of the host
// may lose: name is then as it was.
func replaceWhole(name, draft string, write func(w io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(name), draft)
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // gone once renamed
	err = write(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), name)
	}
	return err
}

// syncDir makes a rename in dir last through a crash of the host.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// FindCreated finds the instance a Create with these labels made, for the
// reaper when the creator died before hearing its id. A folder that cannot
// be listed is an error, never "not found".
func (c *client) FindCreated(ctx context.Context, labels provider.Labels) (provider.Instance, bool, error) {
	if labels.Instance == "" {
		return provider.Instance{}, false, nil
	}
	fail := func(err error) (provider.Instance, bool, error) {
		return provider.Instance{}, false, provider.Errorf(provider.ErrFailed, providerName, "find", "%v", bare(err))
	}
	entries, err := os.ReadDir(c.instances)
	if errors.Is(err, fs.ErrNotExist) {
		return provider.Instance{}, false, nil
	}
	if err != nil {
		return fail(err)
	}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), labelsSuffix)
		if !ok || !instanceID.MatchString(id) {
			continue
		}
		stored, err := readLabels(filepath.Join(c.instances, e.Name()))
		if errors.Is(err, fs.ErrNotExist) {
			continue // destroyed meanwhile
		}
		if err != nil && !errors.Is(err, errBadLabels) {
			return fail(err)
		}
		if err == nil && stored.labels() == labels {
			return provider.Instance{ID: id, WorkDir: workDir}, true, nil
		}
	}
	return provider.Instance{}, false, nil
}

// Relabel rewrites a claimed instance's labels, whole, with its thread's:
// the Instance label, by which FindCreated finds it, and its user stay the
// same. It runs beside the claim's reconnect, which it must not outlast:
// it does not wait for the rename to reach the disk. A crash of the host
// may lose it, leaving the pool's labels, which a relabel that failed
// leaves too (the Instance label and the user are in both).
func (c *client) Relabel(ctx context.Context, inst provider.Instance, labels provider.Labels) error {
	if !instanceID.MatchString(inst.ID) {
		return provider.Errorf(provider.ErrGone, providerName, "relabel", "no instance %q", inst.ID)
	}
	f := c.filesOf(inst.ID)
	stored, err := readLabels(f.labels)
	if errors.Is(err, fs.ErrNotExist) {
		return provider.Errorf(provider.ErrGone, providerName, "relabel", "no instance %s", inst.ID)
	}
	if err != nil {
		return provider.Errorf(provider.ErrFailed, providerName, "relabel", "%v", bare(err))
	}
	relabeled := labelsOf(labels)
	relabeled.UID, relabeled.GID = stored.UID, stored.GID
	if err := replaceLabels(f.labels, relabeled); err != nil {
		return provider.Errorf(provider.ErrFailed, providerName, "relabel", "%v", bare(err))
	}
	return nil
}

var (
	_ provider.Finder    = (*client)(nil)
	_ provider.Relabeler = (*client)(nil)
)
