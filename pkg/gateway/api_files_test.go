package gateway

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/gateway/wire"
)

func TestFiles(t *testing.T) {
	h := newHarness(t)
	sb := h.create(sandboxSpec{})
	base := "/sandboxes/" + sb.ID + "/files"

	binary := make([]byte, 1024)
	for i := range binary {
		binary[i] = byte(i)
	}
	resp := h.call("PUT", base+"/content?path=/workspace/a/b/data.bin", bytes.NewReader(binary))
	require.Equal(t, http.StatusNoContent, resp.StatusCode, "write creates parents")
	resp = h.call("GET", base+"/content?path=a/b/data.bin", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	got, _ := io.ReadAll(resp.Body)
	assert.Equal(t, binary, got, "relative paths resolve in /workspace; bytes round-trip")

	info := decode[FileInfo](t, h.call("GET", base+"/info?path=/workspace/a/b/data.bin", nil), http.StatusOK)
	assert.Equal(t, FileInfo{Path: "/workspace/a/b/data.bin", Name: "data.bin", Type: "file", Size: 1024, Mode: "0644",
		ModifiedAt: info.ModifiedAt}, info)
	assert.WithinDuration(t, time.Now(), info.ModifiedAt, time.Minute)
	dir := decode[FileInfo](t, h.call("GET", base+"/info?path=/workspace", nil), http.StatusOK)
	assert.Equal(t, "directory", dir.Type)

	list := decode[fileList](t, h.call("GET", base+"/list?path=/workspace/a", nil), http.StatusOK)
	require.Len(t, list.Entries, 1)
	assert.Equal(t, "/workspace/a/b", list.Entries[0].Path)
	assert.Equal(t, "directory", list.Entries[0].Type)

	resp = h.call("PUT", base+"/content?path=/workspace/a/b/data.bin", strings.NewReader("short"))
	require.Equal(t, http.StatusNoContent, resp.StatusCode, "write overwrites")
	assert.Equal(t, "short\n", h.exec(sb.ID, map[string]any{"command": "cat a/b/data.bin; echo"}).Stdout)

	problem(t, h.call("GET", base+"/content?path=/workspace/missing", nil), http.StatusNotFound, auxilia.CodeNotFound, wire.SubjectFile)
	problem(t, h.call("GET", base+"/info?path=/workspace/a/b/data.bin/below", nil), http.StatusNotFound, auxilia.CodeNotFound, wire.SubjectFile)
	problem(t, h.call("GET", base+"/list?path=/workspace/missing", nil), http.StatusNotFound, auxilia.CodeNotFound, wire.SubjectFile)
	problem(t, h.call("GET", base+"/list?path=/workspace/a/b/data.bin", nil), http.StatusConflict, auxilia.CodeConflict, wire.SubjectFile)
	problem(t, h.call("GET", base+"/content?path=/workspace/a", nil), http.StatusConflict, auxilia.CodeConflict, wire.SubjectDirectory)
	problem(t, h.call("PUT", base+"/content?path=/workspace/a", strings.NewReader("x")), http.StatusConflict, auxilia.CodeConflict, wire.SubjectDirectory)
	problem(t, h.call("PUT", base+"/content?path=/workspace/a/b/data.bin/x", strings.NewReader("x")), http.StatusConflict, auxilia.CodeConflict, wire.SubjectFile)
	problem(t, h.call("DELETE", base+"?path=/workspace/a", nil), http.StatusConflict, auxilia.CodeConflict, wire.SubjectDirectory)
	problem(t, h.call("GET", base+"/content", nil), http.StatusUnprocessableEntity, auxilia.CodeInvalid)

	require.Equal(t, http.StatusNoContent, h.call("DELETE", base+"?path=/workspace/a/b/data.bin", nil).StatusCode)
	require.Equal(t, http.StatusNoContent, h.call("DELETE", base+"?path=/workspace/a/b", nil).StatusCode, "an empty directory")
	problem(t, h.call("DELETE", base+"?path=/workspace/a/b", nil), http.StatusNotFound, auxilia.CodeNotFound, wire.SubjectFile)
	problem(t, h.call("DELETE", base+"?path=/workspace", nil), http.StatusUnprocessableEntity, auxilia.CodeInvalid, wire.SubjectPath)
}

func TestFilesStayInTheWorkspace(t *testing.T) {
	h := newHarness(t)
	sb := h.create(sandboxSpec{})
	base := "/sandboxes/" + sb.ID + "/files"
	for _, p := range []string{"/etc/passwd", "/workspace/../etc/passwd", "../etc/passwd", "/workspacex/y", "/"} {
		problem(t, h.call("GET", base+"/content?path="+p, nil), http.StatusUnprocessableEntity, auxilia.CodeInvalid, wire.SubjectPath)
	}
	// A command can make links anywhere; the gateway must not follow them out of the workspace.
	h.exec(sb.ID, map[string]any{"command": "ln -s /etc/passwd abs; ln -s ../../../../../../etc up; ln -s /proc/self/environ env; mkfifo pipe"})
	for _, p := range []string{"abs", "up/passwd", "env"} {
		resp := h.call("GET", base+"/content?path=/workspace/"+p, nil)
		body, _ := io.ReadAll(resp.Body)
		assert.NotEqual(t, http.StatusOK, resp.StatusCode, "%s: %s", p, body)
		assert.NotContains(t, string(body), "root:", p)
		assert.NotContains(t, string(body), testSecret, p)
	}
	resp := h.call("PUT", base+"/content?path=/workspace/up/escaped.txt", strings.NewReader("x"))
	assert.NotEqual(t, http.StatusNoContent, resp.StatusCode, "no write through a link out of the workspace")
	info := decode[FileInfo](t, h.call("GET", base+"/info?path=/workspace/abs", nil), http.StatusOK)
	assert.Equal(t, "symlink", info.Type, "the link itself is described")
	problem(t, h.call("GET", base+"/content?path=/workspace/pipe", nil), http.StatusConflict, auxilia.CodeConflict, wire.SubjectFile)
}

func TestFileSizeLimit(t *testing.T) {
	h := newHarness(t)
	sb := h.create(sandboxSpec{})
	resp := h.call("PUT", "/sandboxes/"+sb.ID+"/files/content?path=big", io.LimitReader(zeros{}, maxFileBytes+1))
	problem(t, resp, http.StatusRequestEntityTooLarge, auxilia.CodeTooLarge)
	list := decode[fileList](t, h.call("GET", "/sandboxes/"+sb.ID+"/files/list?path=/workspace", nil), http.StatusOK)
	assert.Empty(t, list.Entries, "nothing is left of a refused upload")
}
