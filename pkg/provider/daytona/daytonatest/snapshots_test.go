package daytonatest_test

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
)

// A snapshot of a sandbox: answered with the sandbox snapshotting, found
// by name or id once it is back, its files in a sandbox created from it,
// deleted by id only.
func TestSandboxSnapshotsAnswerAsDaytona(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{Transition: 1})
	sb := create(t, fake)
	id := sb["id"].(string)
	for state, _ := fake.State(id); state != "started"; state, _ = fake.State(id) {
		call(t, "GET", fake.URL()+"/sandbox/"+id, daytonatest.DefaultKey, "")
	}
	require.NoError(t, os.WriteFile(filepath.Join(fake.HomeDir(id), "f.txt"), []byte("kept"), 0o644))

	status, _, body := call(t, "POST", fake.URL()+"/sandbox/"+id+"/snapshot", daytonatest.DefaultKey, `{"name":"kept-1"}`)
	require.Equal(t, http.StatusOK, status, "%s", body)
	assert.Equal(t, "snapshotting", decode(t, body)["state"])
	status, _, _ = call(t, "GET", fake.URL()+"/snapshots/kept-1", daytonatest.DefaultKey, "")
	assert.Equal(t, http.StatusNotFound, status, "no snapshot until the sandbox is back")
	status, _, body = call(t, "POST", fake.URL()+"/sandbox/"+id+"/snapshot", daytonatest.DefaultKey, `{"name":"kept-2"}`)
	assert.Equal(t, http.StatusBadRequest, status, "%s", body)
	assert.Contains(t, string(body), "must be in started or stopped state")

	call(t, "GET", fake.URL()+"/sandbox/"+id, daytonatest.DefaultKey, "")
	status, _, body = call(t, "GET", fake.URL()+"/snapshots/kept-1", daytonatest.DefaultKey, "")
	require.Equal(t, http.StatusOK, status, "%s", body)
	snap := decode(t, body)
	assert.Equal(t, "active", snap["state"])
	status, _, _ = call(t, "GET", fake.URL()+"/snapshots/"+snap["id"].(string), daytonatest.DefaultKey, "")
	assert.Equal(t, http.StatusOK, status, "found by id too")

	status, _, body = call(t, "POST", fake.URL()+"/sandbox", daytonatest.DefaultKey, `{"snapshot":"kept-1"}`)
	require.Equal(t, http.StatusOK, status, "%s", body)
	b, err := os.ReadFile(filepath.Join(fake.HomeDir(decode(t, body)["id"].(string)), "f.txt"))
	require.NoError(t, err)
	assert.Equal(t, "kept", string(b))

	status, _, _ = call(t, "DELETE", fake.URL()+"/snapshots/kept-1", daytonatest.DefaultKey, "")
	assert.Equal(t, http.StatusBadRequest, status, "deleted by id, not by name")
	status, _, _ = call(t, "DELETE", fake.URL()+"/snapshots/"+snap["id"].(string), daytonatest.DefaultKey, "")
	assert.Equal(t, http.StatusOK, status)
	status, _, _ = call(t, "DELETE", fake.URL()+"/snapshots/"+snap["id"].(string), daytonatest.DefaultKey, "")
	assert.Equal(t, http.StatusNotFound, status)
}

func TestSandboxSnapshotsRefusedWithoutARegistry(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{NoSnapshotRegistry: true})
	id := create(t, fake)["id"].(string)
	status, _, body := call(t, "POST", fake.URL()+"/sandbox/"+id+"/snapshot", daytonatest.DefaultKey, `{"name":"kept-1"}`)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Contains(t, string(body), "No internal registry")
}
