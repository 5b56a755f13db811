package gateway

import (
	"archive/tar"
	"bytes"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/gateway/wire"
)

func TestSnapshotAndRestoreAGoneSandbox(t *testing.T) {
	h := newHarness(t)
	spec := sandboxSpec{GCSBucket: "snapshots", SnapshotPrefix: "threads/", Labels: map[string]string{"thread": "t-1"}}
	sb := h.create(spec)
	h.exec(sb.ID, map[string]any{"command": "mkdir -p src && echo 'print(1)' > src/app.py && ln -s src/app.py app"})

	snap := decode[SnapshotInfo](t, h.call("POST", "/sandboxes/"+sb.ID+"/snapshot", nil), http.StatusOK)
	object := "threads/" + sb.ID + ".tar"
	assert.Equal(t, "gs://snapshots/"+object, snap.URI)
	stored, ok := h.gcs.Object("snapshots", object)
	require.True(t, ok, "the snapshot is in the bucket")
	assert.EqualValues(t, len(stored), snap.Size)
	names := tarNames(t, stored)
	assert.ElementsMatch(t, []string{"app", "src/", "src/app.py"}, names)

	require.Equal(t, http.StatusNoContent, h.call("DELETE", "/sandboxes/"+sb.ID, nil).StatusCode)
	body := restoreRequest{Source: "snapshot", SandboxSpec: spec}
	res := decode[RestoreResult](t, h.call("POST", "/sandboxes/"+sb.ID+"/restore", body), http.StatusCreated)
	assert.True(t, res.Recreated)
	assert.Equal(t, sb.ID, res.Sandbox.ID, "the same id comes back")
	assert.Equal(t, spec.Labels, res.Sandbox.Labels)
	assert.Equal(t, "print(1)\n", h.exec(sb.ID, map[string]any{"command": "cat app"}).Stdout, "files and links are back")

	problem(t, h.call("POST", "/sandboxes/"+sb.ID+"/restore", body), http.StatusConflict, auxilia.CodeConflict, wire.SubjectSandbox)
	h.exec(sb.ID, map[string]any{"command": "echo newer > src/app.py"})
	body.Replace = true
	res = decode[RestoreResult](t, h.call("POST", "/sandboxes/"+sb.ID+"/restore", body), http.StatusOK)
	assert.False(t, res.Recreated)
	assert.Equal(t, "print(1)\n", h.exec(sb.ID, map[string]any{"command": "cat app"}).Stdout, "replace rolls back to the snapshot")

	for range 2 {
		resp := h.call("DELETE", "/sandboxes/"+sb.ID+"/snapshot", nil)
		require.Equal(t, http.StatusNoContent, resp.StatusCode, "deleting a snapshot is idempotent")
	}
	_, ok = h.gcs.Object("snapshots", object)
	assert.False(t, ok)
	h.call("DELETE", "/sandboxes/"+sb.ID, nil)
	problem(t, h.call("POST", "/sandboxes/"+sb.ID+"/restore", restoreRequest{Source: "snapshot", SandboxSpec: spec}),
		http.StatusNotFound, auxilia.CodeNotFound, wire.SubjectSnapshot)
	problem(t, h.call("GET", "/sandboxes/"+sb.ID, nil), http.StatusNotFound, auxilia.CodeNotFound, wire.SubjectSandbox)
}

func TestSnapshotErrors(t *testing.T) {
	h := newHarness(t)
	plain := h.create(sandboxSpec{})
	problem(t, h.call("POST", "/sandboxes/"+plain.ID+"/snapshot", nil), http.StatusUnprocessableEntity, auxilia.CodeInvalid, wire.SubjectBucket)
	named := decode[SnapshotInfo](t, h.call("POST", "/sandboxes/"+plain.ID+"/snapshot",
		snapshotLocation{GCSBucket: "snapshots"}), http.StatusOK)
	assert.Equal(t, "gs://snapshots/"+plain.ID+".tar", named.URI, "the call may name the bucket")

	problem(t, h.call("POST", "/sandboxes/"+plain.ID+"/snapshot", snapshotLocation{GCSBucket: "no-such-bucket"}),
		http.StatusBadGateway, auxilia.CodeNotFound, wire.SubjectBucket)
	problem(t, h.call("POST", "/sandboxes/"+plain.ID+"/snapshot", snapshotLocation{GCSBucket: "UPPER"}),
		http.StatusUnprocessableEntity, auxilia.CodeInvalid)
	problem(t, h.call("DELETE", "/sandboxes/sbx-000000000000/snapshot", nil), http.StatusUnprocessableEntity, auxilia.CodeInvalid, wire.SubjectBucket)
	problem(t, h.call("POST", "/sandboxes/"+plain.ID+"/restore", map[string]any{"source": "elsewhere", "replace": true}),
		http.StatusUnprocessableEntity, auxilia.CodeInvalid)
	problem(t, h.call("POST", "/sandboxes/"+plain.ID+"/restore", bytes.NewReader(nil), "Content-Type", "text/plain"),
		http.StatusUnsupportedMediaType, auxilia.CodeUnsupportedMedia)

	h.gcs.Token = "the-right-token"
	problem(t, h.call("POST", "/sandboxes/"+plain.ID+"/snapshot", snapshotLocation{GCSBucket: "snapshots"}),
		http.StatusBadGateway, auxilia.CodeForbidden, wire.SubjectBucket)
}

func TestRestoreRefusesAHostileSnapshot(t *testing.T) {
	h := newHarness(t)
	sb := h.create(sandboxSpec{GCSBucket: "snapshots"})
	h.gcs.PutObject("snapshots", sb.ID+".tar", makeTar(t, entry{name: "../../../evil", body: "x"}))
	problem(t, h.call("POST", "/sandboxes/"+sb.ID+"/restore", map[string]any{"source": "snapshot", "replace": true}),
		http.StatusUnprocessableEntity, auxilia.CodeForbidden, wire.SubjectArchive)
	h.gcs.PutObject("snapshots", sb.ID+".tar", makeTar(t, entry{name: "huge", size: 65 << 20}))
	problem(t, h.call("POST", "/sandboxes/"+sb.ID+"/restore", map[string]any{"source": "snapshot", "replace": true}),
		http.StatusRequestEntityTooLarge, auxilia.CodeTooLarge, wire.SubjectSnapshot)
}

func tarNames(t *testing.T, data []byte) []string {
	t.Helper()
	var names []string
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return names
		}
		require.NoError(t, err)
		names = append(names, hdr.Name)
	}
}

// A snapshot object (a kept copy under another prefix) becomes a new
// sandbox's workspace; a missing one is 404 and makes no sandbox.
func TestCreateFromASnapshotObject(t *testing.T) {
	h := newHarness(t)
	spec := sandboxSpec{GCSBucket: "snapshots", SnapshotPrefix: "threads/"}
	sb := h.create(spec)
	h.exec(sb.ID, map[string]any{"command": "mkdir -p deep && echo kept > deep/f.txt"})
	kept := decode[SnapshotInfo](t, h.call("POST", "/sandboxes/"+sb.ID+"/snapshot",
		snapshotLocation{GCSBucket: "snapshots", SnapshotPrefix: "threads/kept/k1/"}), http.StatusOK)
	assert.Equal(t, "threads/kept/k1/"+sb.ID+".tar", kept.Object)

	from := &objectRef{GCSBucket: kept.Bucket, Object: kept.Object}
	made := decode[Sandbox](t, h.call("POST", "/sandboxes", createRequest{SandboxSpec: spec, From: from}), http.StatusCreated)
	assert.NotEqual(t, sb.ID, made.ID)
	assert.Equal(t, "kept\n", h.exec(made.ID, map[string]any{"command": "cat deep/f.txt"}).Stdout)

	stat := decode[SnapshotInfo](t, h.call("GET", "/sandboxes/"+sb.ID+"/snapshot?gcs_bucket=snapshots&snapshot_prefix=threads/kept/k1/", nil), http.StatusOK)
	assert.Equal(t, kept.Size, stat.Size)
	require.Equal(t, http.StatusNoContent, h.call("DELETE", "/sandboxes/"+sb.ID+"/snapshot?gcs_bucket=snapshots&snapshot_prefix=threads/kept/k1/", nil).StatusCode)
	problem(t, h.call("GET", "/sandboxes/"+sb.ID+"/snapshot?gcs_bucket=snapshots&snapshot_prefix=threads/kept/k1/", nil),
		http.StatusNotFound, auxilia.CodeNotFound, wire.SubjectSnapshot)

	before := len(decode[sandboxList](t, h.call("GET", "/sandboxes", nil), http.StatusOK).Items)
	problem(t, h.call("POST", "/sandboxes", createRequest{SandboxSpec: spec, From: from}), http.StatusNotFound, auxilia.CodeNotFound, wire.SubjectSnapshot)
	assert.Len(t, decode[sandboxList](t, h.call("GET", "/sandboxes", nil), http.StatusOK).Items, before, "nothing was made")

	bad := problem(t, h.call("POST", "/sandboxes", createRequest{From: &objectRef{GCSBucket: "No", Object: "/abs"}}),
		http.StatusUnprocessableEntity, auxilia.CodeInvalid)
	var fields []string
	for _, f := range bad.Errors {
		fields = append(fields, f.Field)
	}
	assert.ElementsMatch(t, []string{"from.gcs_bucket", "from.object"}, fields)
}
