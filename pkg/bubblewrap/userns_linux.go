package bubblewrap

import (
	"fmt"
	"os"
)

// newUserNamespace makes the user namespace of a jail that a server running
// as root starts: one owned by the jail's user, in which that user and root
// are mapped to themselves (see the package doc). A helper running as the
// jail's user makes it and holds it until the server has written its maps
// and opened it; bwrap then joins it, so bwrap never waits for the server
// while it holds the jail's first process.
func newUserNamespace(t tools, uid, gid int) (*os.File, error) {
	h, err := startHelper(hostCommand(jailUser(true, uid, gid), nil, t.unshare, "--user", "--", t.cat))
	if err != nil {
		return nil, fmt.Errorf("make the jail's user namespace: %w", err)
	}
	defer h.stop()
	if err := writeIDMaps(h.pid(), uid, gid); err != nil {
		return nil, err
	}
	return h.namespace("user")
}

// writeIDMaps maps the jail's user and group to themselves, and root to
// itself, in the user namespace of process pid (see the package doc).
func writeIDMaps(pid, uid, gid int) error {
	maps := []struct{ file, content string }{
		{"uid_map", fmt.Sprintf("0 0 1\n%d %d 1\n", uid, uid)},
		{"gid_map", fmt.Sprintf("0 0 1\n%d %d 1\n", gid, gid)},
	}
	for _, m := range maps {
		// One write: the kernel takes a map whole or not at all.
		if err := writeOnce(fmt.Sprintf("/proc/%d/%s", pid, m.file), m.content); err != nil {
			return fmt.Errorf("write the jail's %s: %w", m.file, err)
		}
	}
	return nil
}

// writeOnce writes content to an existing file in a single write.
func writeOnce(name, content string) error {
	f, err := os.OpenFile(name, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
