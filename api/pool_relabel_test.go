package api_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider/opensandbox/opensandboxtest"
)

// claimFromPool starts a thread's first run on an OpenSandbox sandbox whose
// pool was filled, and returns the run and the claimed instance's metadata.
func claimFromPool(t *testing.T, e *env, fake *opensandboxtest.Server) (map[string]any, map[string]string) {
	sb := e.createSandbox(map[string]any{"name": "Pooled", "provider": "opensandbox", "url": fake.URL,
		"config": map[string]any{"pool": map[string]any{"size": 1}}})
	agent := e.createAgent("Pooled")
	r := e.send("PUT", "/api/v1/agents/"+agent["id"].(string)+"/sandbox", e.member,
		map[string]any{"sandbox_id": sb["id"], "tools": allAllowed})
	require.Equal(t, 200, r.StatusCode, "%s", r.body)
	_, err := e.app.Runs.KeepPools(context.Background())
	require.NoError(t, err)
	pooled := fake.Sandboxes()
	require.Len(t, pooled, 1)

	r = e.send("POST", "/api/v1/agents/"+agent["id"].(string)+"/threads/conv-1/runs", e.member, nil)
	require.Equal(t, 201, r.StatusCode, "%s", r.body)
	run := r.json(t)
	ref := run["sandbox"].(map[string]any)["instance_id"].(string)
	require.Equal(t, pooled[0], ref, "the run takes the pool's instance")
	got, ok := fake.Sandbox(ref)
	require.True(t, ok)
	return run, got.Metadata
}

// A thread that claims a pooled OpenSandbox instance gives it its own
// labels, so the server finds it by them as it finds any other.
func TestAClaimedOpenSandboxInstanceTakesItsThreadsLabels(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		fake := opensandboxtest.New(t, opensandboxtest.Options{})
		run, metadata := claimFromPool(t, e, fake)
		// The run is found in the workspace the labels name, on the thread they name.
		got, err := e.app.Runs.Get(context.Background(), metadata["auxilia-workspace"], run["id"].(string))
		require.NoError(t, err)
		assert.Equal(t, got.ThreadID, metadata["auxilia-thread"])
		assert.Equal(t, run["sandbox"].(map[string]any)["sandbox_id"], metadata["auxilia-sandbox"])
		assert.Equal(t, 1, fake.Calls(opensandboxtest.OpPatchMetadata))
	})
}

// On a server from before the metadata patch the claim works as before:
// the instance keeps the pool's labels.
func TestAClaimOnAnOlderOpenSandboxKeepsThePoolsLabels(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		fake := opensandboxtest.New(t, opensandboxtest.Options{NoMetadataPatch: true})
		_, metadata := claimFromPool(t, e, fake)
		assert.NotContains(t, metadata, "auxilia-thread")
		assert.Equal(t, "auxilia", metadata["managed-by"])
	})
}
