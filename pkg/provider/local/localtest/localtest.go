// Package localtest readies data folders for tests that run the local
// provider. Each fresh data folder would make its own Python template on its
// first instance, which takes seconds; Seed gives it, instead, the one
// template the test process made, so that its first instance only copies it,
// as every instance of a server that already has its template does.
package localtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/local"
)

// Seed puts the process's Python template where the local provider looks
// for the template of dataDir's instances (local.TemplateFolder), before a
// server runs on dataDir. Its files are hard links to the process's
// template (copies where the folders are on different file systems): the
// provider never writes a template's files in place, it binds the template
// read-only into the jail that copies it into a new instance.
//
// Where the process's template cannot be made (no bubblewrap or no Python
// venv on this host), Seed leaves dataDir as it is: its first instance
// tries to make one itself, and fails as it would have.
func Seed(t testing.TB, dataDir string) {
	t.Helper()
	src, err := template()
	if err != nil {
		t.Logf("no shared Python template, the data folder makes its own: %v", err)
		return
	}
	dst := local.TemplateFolder(dataDir)
	if _, err := os.Lstat(dst); err == nil {
		t.Fatalf("seed %s: it already has a template", dataDir)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		t.Fatalf("seed %s: %v", dataDir, err)
	}
	if err := copyTree(src, dst); err != nil {
		t.Fatalf("seed %s: %v", dataDir, err)
	}
}

// copyTree copies the folder src to dst, which must not exist, with its
// modes and owners: cp -a, linking files rather than copying them where it
// can.
func copyTree(src, dst string) error {
	linked, err := exec.Command("cp", "-a", "-l", src, dst).CombinedOutput()
	if err == nil {
		return nil
	}
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	if copied, err2 := exec.Command("cp", "-a", src, dst).CombinedOutput(); err2 != nil {
		return fmt.Errorf("cp -a -l: %v: %s; cp -a: %v: %s", err, linked, err2, copied)
	}
	return nil
}

var (
	// folder is the data folder of the process's template.
	folder string
	// template makes the process's template, the first time it is asked
	// for, by the provider's own code: it opens a client on a data folder
	// of its own and makes an instance there.
	template = sync.OnceValues(func() (string, error) {
		dir, err := os.MkdirTemp("", "localtest-")
		if err != nil {
			return "", err
		}
		folder = dir
		ctx := context.Background()
		c, err := local.Kind{DataDir: dir}.Open(provider.Settings{Config: local.DefaultConfig()})
		if err != nil {
			return "", err
		}
		inst, err := c.Create(ctx, provider.Labels{Workspace: "localtest", Sandbox: "localtest", Thread: "localtest"})
		if err != nil {
			return "", err
		}
		if err := c.Destroy(ctx, inst); err != nil {
			return "", err
		}
		return local.TemplateFolder(dir), nil
	})
)

// Remove removes the process's template, if it made one; a TestMain calls
// it once the tests are done.
func Remove() {
	if folder == "" {
		return
	}
	if os.RemoveAll(folder) == nil {
		return
	}
	// The jail's user may have left folders its owner cannot write.
	_ = filepath.WalkDir(folder, func(p string, d os.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	_ = os.RemoveAll(folder)
}
