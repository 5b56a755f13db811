package gateway

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/gateway/wire"
)

// entry is one archive member for the tests' tars.
type entry struct {
	name, body, link string
	kind             byte
	size             int64 // declared size when it differs from the body
}

func makeTar(t *testing.T, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		kind := e.kind
		if kind == 0 {
			kind = tar.TypeReg
		}
		size := int64(len(e.body))
		if e.size != 0 {
			size = e.size
		}
		hdr := &tar.Header{Name: e.name, Typeflag: kind, Linkname: e.link, Mode: 0o644, ModTime: time.Now(), Format: tar.FormatPAX}
		if kind == tar.TypeReg {
			hdr.Size = size
		}
		if kind == tar.TypeDir {
			hdr.Mode = 0o755
		}
		require.NoError(t, tw.WriteHeader(hdr))
		if kind == tar.TypeReg {
			_, err := io.Copy(tw, io.MultiReader(strings.NewReader(e.body), io.LimitReader(zeros{}, size-int64(len(e.body)))))
			require.NoError(t, err)
		}
	}
	require.NoError(t, tw.Close())
	return buf.Bytes()
}

func (h *harness) restoreTar(id string, data []byte) *http.Response {
	return h.call("POST", "/sandboxes/"+id+"/restore", bytes.NewReader(data), "Content-Type", "application/x-tar")
}

func TestRestoreUpload(t *testing.T) {
	h := newHarness(t)
	sb := h.create(sandboxSpec{})
	h.exec(sb.ID, map[string]any{"command": "echo old > old.txt"})
	data := makeTar(t,
		entry{name: "./", kind: tar.TypeDir},
		entry{name: "src/", kind: tar.TypeDir},
		entry{name: "src/main.py", body: "print('hi')\n"},
		entry{name: "./notes.txt", body: "notes"},
		entry{name: "src/link.py", kind: tar.TypeSymlink, link: "main.py"},
		entry{name: "python", kind: tar.TypeSymlink, link: "/usr/bin/python3"},
	)
	res := decode[RestoreResult](t, h.restoreTar(sb.ID, data), http.StatusOK)
	assert.Equal(t, "upload", res.Source)
	assert.False(t, res.Recreated)
	out := h.exec(sb.ID, map[string]any{"command": "cat src/link.py notes.txt; ls; readlink python"}).Stdout
	assert.Equal(t, "print('hi')\nnotesnotes.txt\npython\nsrc\n/usr/bin/python3\n", out, "the workspace is replaced, old files gone")
	problem(t, h.restoreTar("sbx-000000000000", data), http.StatusNotFound, auxilia.CodeNotFound, wire.SubjectSandbox)
}

func TestRestoreRefusesHostileArchives(t *testing.T) {
	h := newHarness(t)
	sb := h.create(sandboxSpec{})
	h.exec(sb.ID, map[string]any{"command": "echo precious > keep.txt"})
	outside := t.TempDir()
	hostile := map[string][]entry{
		"absolute path":              {{name: filepath.Join(outside, "abs.txt"), body: "x"}},
		"dot-dot":                    {{name: "../escape.txt", body: "x"}},
		"dot-dot inside":             {{name: "a/../../escape.txt", body: "x"}},
		"relative link climbing out": {{name: "up", kind: tar.TypeSymlink, link: "../../../.."}},
		"nested link climbing out":   {{name: "a/b/up", kind: tar.TypeSymlink, link: "../../../x"}},
		"write through a link":       {{name: "dir", kind: tar.TypeSymlink, link: outside}, {name: "dir/planted.txt", body: "x"}},
		"write through an inner link": {{name: "real/", kind: tar.TypeDir}, {name: "alias", kind: tar.TypeSymlink, link: "real"},
			{name: "alias/x.txt", body: "x"}},
		"hard link":    {{name: "f", body: "x"}, {name: "h", kind: tar.TypeLink, link: "f"}},
		"device":       {{name: "dev", kind: tar.TypeChar}},
		"fifo":         {{name: "fifo", kind: tar.TypeFifo}},
		"file as root": {{name: ".", body: "x"}},
		"empty name":   {{name: "", body: "x"}},
	}
	for name, entries := range hostile {
		t.Run(name, func(t *testing.T) {
			problem(t, h.restoreTar(sb.ID, makeTar(t, entries...)), http.StatusUnprocessableEntity, auxilia.CodeForbidden, wire.SubjectArchive)
			assert.Equal(t, "precious\n", h.exec(sb.ID, map[string]any{"command": "cat keep.txt"}).Stdout, "the workspace is untouched")
			left, _ := os.ReadDir(outside)
			assert.Empty(t, left, "nothing is written outside")
			_, err := os.Stat(filepath.Join(h.gw.cfg.DataDir, "sandboxes", "escape.txt"))
			assert.True(t, os.IsNotExist(err))
		})
	}
	problem(t, h.restoreTar(sb.ID, []byte("this is not a tar file at all, not even close to one ....")), http.StatusUnprocessableEntity, auxilia.CodeInvalid, wire.SubjectArchive)
	staged, _ := os.ReadDir(filepath.Join(h.gw.cfg.DataDir, "staging"))
	assert.Empty(t, staged, "refused archives leave no staging folders")
}

func TestRestoreUploadSizeCap(t *testing.T) {
	h := newHarness(t)
	sb := h.create(sandboxSpec{})
	big := makeTar(t, entry{name: "big.bin", size: maxRestoreUpload})
	require.Greater(t, len(big), maxRestoreUpload)
	problem(t, h.restoreTar(sb.ID, big), http.StatusRequestEntityTooLarge, auxilia.CodeTooLarge)
	// Without a length up front, the cap is enforced while reading.
	resp := h.call("POST", "/sandboxes/"+sb.ID+"/restore", io.MultiReader(bytes.NewReader(big)), "Content-Type", "application/x-tar")
	problem(t, resp, http.StatusRequestEntityTooLarge, auxilia.CodeTooLarge)

	fits := makeTar(t, entry{name: "fits.bin", size: maxRestoreUpload - 10<<10})
	require.LessOrEqual(t, len(fits), maxRestoreUpload)
	decode[RestoreResult](t, h.restoreTar(sb.ID, fits), http.StatusOK)
}

// sparseTar makes a tar with GNU tar's --sparse in the given format (gnu
// or pax): one file, sparse.bin, of size bytes, holding data at offset at
// and holes around it. The tar itself stays a few KB.
func sparseTar(t *testing.T, format string, size, at int64, data string) []byte {
	t.Helper()
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "sparse.bin"))
	require.NoError(t, err)
	_, err = f.WriteAt([]byte(data), at)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(size))
	require.NoError(t, f.Close())
	out := filepath.Join(t.TempDir(), "sparse.tar")
	cmd := exec.Command("tar", "--sparse", "--format="+format, "-cf", out, "-C", dir, "sparse.bin")
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", msg)
	raw, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Less(t, len(raw), 64<<10, "the tar holds the file's holes as a map, not as zeros")
	return raw
}

// A sparse file unpacks to its whole size, holes included: that is what a
// restore writes, so that is what counts against the upload cap.
func TestRestoreUploadCountsSparseFilesAtTheirSize(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.MaxSnapshotBytes = 1 << 30 })
	sb := h.create(sandboxSpec{})
	h.exec(sb.ID, map[string]any{"command": "echo precious > keep.txt"})
	for _, format := range []string{"gnu", "pax"} {
		t.Run(format, func(t *testing.T) {
			p := problem(t, h.restoreTar(sb.ID, sparseTar(t, format, maxRestoreUpload+1<<20, 1<<20, "data")),
				http.StatusRequestEntityTooLarge, auxilia.CodeTooLarge, wire.SubjectArchive)
			assert.Contains(t, p.Detail, fmt.Sprintf("more than %d bytes", maxRestoreUpload))
			assert.Equal(t, "precious\nkeep.txt\n", h.exec(sb.ID, map[string]any{"command": "cat keep.txt; ls"}).Stdout,
				"the workspace is untouched")
			staged, _ := os.ReadDir(filepath.Join(h.gw.cfg.DataDir, "staging"))
			assert.Empty(t, staged, "nothing is left half-unpacked")

			res := decode[RestoreResult](t, h.restoreTar(sb.ID, sparseTar(t, format, 3<<20, 1<<20, "data")), http.StatusOK)
			assert.EqualValues(t, 3<<20, res.Bytes)
			got, err := os.ReadFile(filepath.Join(h.gw.cfg.DataDir, "sandboxes", sb.ID, "workspace", "sparse.bin"))
			require.NoError(t, err)
			assert.Len(t, got, 3<<20)
			assert.Equal(t, "data", string(got[1<<20:1<<20+4]))
			assert.Equal(t, make([]byte, 1<<20), got[:1<<20], "holes read as zeros")
			decode[RestoreResult](t, h.restoreTar(sb.ID, makeTar(t, entry{name: "keep.txt", body: "precious\n"})), http.StatusOK)
		})
	}
}

// A snapshot from the bucket is held to the snapshot limit the same way.
func TestRestoreSnapshotCountsSparseFilesAtTheirSize(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.MaxSnapshotBytes = 2 << 20 })
	sb := h.create(sandboxSpec{GCSBucket: "snapshots"})
	h.exec(sb.ID, map[string]any{"command": "echo precious > keep.txt"})
	for _, format := range []string{"gnu", "pax"} {
		h.gcs.PutObject("snapshots", sb.ID+".tar", sparseTar(t, format, 3<<20, 0, "data"))
		p := problem(t, h.call("POST", "/sandboxes/"+sb.ID+"/restore", map[string]any{"source": "snapshot", "replace": true}),
			http.StatusRequestEntityTooLarge, auxilia.CodeTooLarge, wire.SubjectArchive)
		assert.Contains(t, p.Detail, fmt.Sprintf("more than %d bytes", 2<<20), format)
		assert.Equal(t, "precious\n", h.exec(sb.ID, map[string]any{"command": "cat keep.txt"}).Stdout, format)
	}
}

func TestRestoreIsHeldToTheSnapshotLimit(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.MaxSnapshotBytes = 1 << 20 })
	sb := h.create(sandboxSpec{})
	problem(t, h.restoreTar(sb.ID, makeTar(t, entry{name: "big", size: 2 << 20})), http.StatusRequestEntityTooLarge, auxilia.CodeTooLarge, wire.SubjectArchive)
}
