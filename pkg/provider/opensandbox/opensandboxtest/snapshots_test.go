package opensandboxtest_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider/opensandbox/opensandboxtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Snapshots answer as the server's snapshot service: accepted as Creating,
// Ready later, restored by a create naming only snapshotId, refused while
// Creating, and 404 once deleted.
func TestSnapshotsAnswerAsTheServer(t *testing.T) {
	fake := opensandboxtest.New(t, opensandboxtest.Options{APIKey: key, SnapshotFor: time.Hour})
	_, created, _ := call(t, "POST", fake.URL+"/v1/sandboxes", validCreate, withKey)
	id := created["id"].(string)
	sb, _ := fake.Sandbox(id)
	require.NoError(t, os.MkdirAll(filepath.Join(sb.Root, "workspace"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(sb.Root, "workspace", "a.txt"), []byte("a"), 0o644))

	status, snap, _ := call(t, "POST", fake.URL+"/v1/sandboxes/"+id+"/snapshots", `{"name":"n"}`, withKey)
	require.Equal(t, 202, status)
	assert.Equal(t, "Creating", snap["status"].(map[string]any)["state"])
	snapID := snap["id"].(string)

	status, _, raw := call(t, "POST", fake.URL+"/v1/sandboxes", `{"snapshotId":"`+snapID+`","resourceLimits":{}}`, withKey)
	assert.Equal(t, 409, status)
	assert.Contains(t, raw, "SNAPSHOT::NOT_READY")
	status, _, raw = call(t, "DELETE", fake.URL+"/v1/snapshots/"+snapID, "", withKey)
	assert.Equal(t, 409, status)
	assert.Contains(t, raw, "SNAPSHOT::INVALID_STATE")

	ready := opensandboxtest.New(t, opensandboxtest.Options{APIKey: key})
	_, created, _ = call(t, "POST", ready.URL+"/v1/sandboxes", validCreate, withKey)
	id = created["id"].(string)
	sb, _ = ready.Sandbox(id)
	require.NoError(t, os.MkdirAll(filepath.Join(sb.Root, "workspace"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(sb.Root, "workspace", "a.txt"), []byte("a"), 0o644))
	_, snap, _ = call(t, "POST", ready.URL+"/v1/sandboxes/"+id+"/snapshots", "", withKey)
	snapID = snap["id"].(string)
	status, got, _ := call(t, "GET", ready.URL+"/v1/snapshots/"+snapID, "", withKey)
	require.Equal(t, 200, status)
	assert.Equal(t, "Ready", got["status"].(map[string]any)["state"])
	assert.Equal(t, id, got["sandboxId"])

	status, restored, _ := call(t, "POST", ready.URL+"/v1/sandboxes", `{"snapshotId":"`+snapID+`","resourceLimits":{}}`, withKey)
	require.Equal(t, 202, status)
	rsb, _ := ready.Sandbox(restored["id"].(string))
	b, err := os.ReadFile(filepath.Join(rsb.Root, "workspace", "a.txt"))
	require.NoError(t, err)
	assert.Equal(t, "a", string(b))

	status, _, _ = call(t, "DELETE", ready.URL+"/v1/snapshots/"+snapID, "", withKey)
	assert.Equal(t, 204, status)
	status, _, raw = call(t, "GET", ready.URL+"/v1/snapshots/"+snapID, "", withKey)
	assert.Equal(t, 404, status)
	assert.Contains(t, raw, "SNAPSHOT::NOT_FOUND")
	status, _, raw = call(t, "POST", ready.URL+"/v1/sandboxes", `{"snapshotId":"`+snapID+`","resourceLimits":{}}`, withKey)
	assert.Equal(t, 404, status)
	assert.Contains(t, raw, "SNAPSHOT::NOT_FOUND")
}

// A runtime without snapshots answers 501; a paused sandbox cannot be snapshotted.
func TestSnapshotsRefused(t *testing.T) {
	fake := opensandboxtest.New(t, opensandboxtest.Options{APIKey: key, NoSnapshots: true})
	_, created, _ := call(t, "POST", fake.URL+"/v1/sandboxes", validCreate, withKey)
	id := created["id"].(string)
	status, _, raw := call(t, "POST", fake.URL+"/v1/sandboxes/"+id+"/snapshots", "", withKey)
	assert.Equal(t, 501, status)
	assert.Contains(t, raw, "SNAPSHOT::NOT_IMPLEMENTED")
	fake.SetState(id, opensandboxtest.Paused)
	status, _, raw = call(t, "POST", fake.URL+"/v1/sandboxes/"+id+"/snapshots", "", withKey)
	assert.Equal(t, 409, status)
	assert.Contains(t, raw, "SNAPSHOT::INVALID_SOURCE_STATE")
}
