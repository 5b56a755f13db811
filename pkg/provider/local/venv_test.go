package local

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A new instance has a Python environment of its own, first on PATH, into
// which pip installs: Debian's system Python refuses (PEP 668).
func TestInstancesHaveTheirOwnPython(t *testing.T) {
	eachIsolation(t, func(t *testing.T, isolation string) {
		c := newIsolatedClient(t, isolation)
		inst := c.create(t)

		res := c.exec(t, inst, "command -v python3; command -v pip; pip --version")
		require.Equal(t, 0, res.ExitCode, res.Output)
		assert.Contains(t, res.Output, "/workspace/.venv/bin/python3\n/workspace/.venv/bin/pip\n")
		assert.Contains(t, res.Output, " from /workspace/.venv/lib/", "pip runs from the instance's environment")

		res = c.exec(t, inst, "python3 -c 'import sys; print(sys.prefix)'")
		assert.Equal(t, "/workspace/.venv\n", res.Output)

		wheel := tinyWheel(t)
		require.NoError(t, c.WriteFile(context.Background(), inst, "tiny-0.1-py3-none-any.whl", wheel))
		res = c.execFor(t, inst, "python3 -m pip install --no-index --no-input --disable-pip-version-check ./tiny-0.1-py3-none-any.whl", 3*time.Minute)
		require.Equal(t, 0, res.ExitCode, res.Output)

		res = c.exec(t, inst, "python3 -c 'import tiny; print(tiny.__file__, tiny.VALUE)'")
		assert.Equal(t, "/workspace/.venv/lib/python3."+pythonMinor(t, c, inst)+"/site-packages/tiny/__init__.py 42\n", res.Output,
			"a later command finds the package in the instance's environment")

		other := c.create(t)
		res = c.exec(t, other, "python3 -c 'import tiny'")
		assert.NotEqual(t, 0, res.ExitCode, "another instance has an environment of its own")
	})
}

// The template is kept in the instances folder: a client opened later on it
// (a restarted server) copies it, and makes it again only once the host no
// longer has the Python it was made with.
func TestTheTemplateOutlivesTheServer(t *testing.T) {
	c := newOwnClient(t, Kind{})
	dir, err := c.venv(context.Background())
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(TemplateFolder(c.dataDir), ".venv"), dir, "the template is where TemplateFolder says")
	cfg := filepath.Join(dir, "pyvenv.cfg")
	made, err := os.Stat(cfg)
	require.NoError(t, err)

	templates.Delete(c.instances) // as a new process would find it
	again, err := c.venv(context.Background())
	require.NoError(t, err)
	assert.Equal(t, dir, again)
	kept, err := os.Stat(cfg)
	require.NoError(t, err)
	assert.True(t, os.SameFile(made, kept), "the template was kept")

	data, err := os.ReadFile(cfg)
	require.NoError(t, err)
	upgraded := strings.Replace(string(data), "executable = ", "executable = /gone", 1)
	require.NoError(t, os.WriteFile(cfg, []byte(upgraded), 0o644))
	templates.Delete(c.instances)
	_, err = c.venv(context.Background())
	require.NoError(t, err)
	remade, err := os.ReadFile(cfg)
	require.NoError(t, err)
	assert.Equal(t, string(data), string(remade), "a template whose Python is gone is made again")
}

// The probe checks that a template can be made without making it, which
// takes too long for a probe.
func TestProbeChecksForVenvQuickly(t *testing.T) {
	c := newOwnClient(t, Kind{})
	require.NoError(t, c.Probe(context.Background()))
	made, err := os.ReadDir(c.pythons)
	require.NoError(t, err)
	assert.Empty(t, made, "the check leaves nothing behind")
}

// A host whose Python cannot make virtual environments (Debian without
// python3-venv) fails the probe, saying what to install, and makes no
// instance.
func TestProbeRefusesAHostWithoutVenv(t *testing.T) {
	for _, python := range []string{"/usr/bin/python3-missing", "/bin/false"} {
		t.Run(python, func(t *testing.T) {
			c := newOwnClient(t, Kind{Python: python})
			err := c.Probe(context.Background())
			require.ErrorIs(t, err, provider.ErrFailed)
			assert.Contains(t, err.Error(), "cannot make a Python virtual environment")
			assert.Contains(t, err.Error(), "python3-venv")
			assert.NotContains(t, err.Error(), c.dataDir, "the server's paths are not the caller's business")

			_, err = c.Create(context.Background(), provider.Labels{Workspace: "ws", Sandbox: "sb", Thread: "th"})
			require.ErrorIs(t, err, provider.ErrFailed)
			for _, dir := range []string{c.instances, c.pythons} {
				entries, err := os.ReadDir(dir)
				require.NoError(t, err)
				assert.Empty(t, entries, "nothing of the failed instance or template is left")
			}
		})
	}
}

// tinyWheel is a wheel of a package "tiny" with VALUE = 42: pip installs it
// from the file, with no index to reach.
func tinyWheel(t *testing.T) []byte {
	t.Helper()
	files := []struct{ name, body string }{
		{"tiny/__init__.py", "VALUE = 42\n"},
		{"tiny-0.1.dist-info/METADATA", "Metadata-Version: 2.1\nName: tiny\nVersion: 0.1\n"},
		{"tiny-0.1.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\nTag: py3-none-any\n"},
	}
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	var record strings.Builder
	for _, f := range files {
		fw, err := w.Create(f.name)
		require.NoError(t, err)
		_, err = fw.Write([]byte(f.body))
		require.NoError(t, err)
		fmt.Fprintf(&record, "%s,,\n", f.name)
	}
	record.WriteString("tiny-0.1.dist-info/RECORD,,\n")
	fw, err := w.Create("tiny-0.1.dist-info/RECORD")
	require.NoError(t, err)
	_, err = fw.Write([]byte(record.String()))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// pythonMinor is the minor version of the instance's Python, as in "11".
func pythonMinor(t *testing.T, c testClient, inst provider.Instance) string {
	t.Helper()
	res := c.exec(t, inst, "python3 -c 'import sys; print(sys.version_info[1])'")
	return strings.TrimSpace(res.Output)
}
