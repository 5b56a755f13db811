package opensandbox_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox/opensandboxtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Pausing costs a pause and a look; resuming in Reconnect a look, a
// resume and the look that sees it running; the files are still there.
func TestPauseAndResumeCostTheirCalls(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	ctx := context.Background()
	inst := create(t, client)
	run(t, client, inst, "echo here > f.txt")

	fake.ResetCalls()
	require.NoError(t, client.(provider.Pauser).Pause(ctx, inst))
	assert.Equal(t, map[opensandboxtest.Op]int{opensandboxtest.OpPause: 1, opensandboxtest.OpGet: 1}, fake.AllCalls())
	assert.Equal(t, "Paused", state(t, fake, inst.ID))

	fake.ResetCalls()
	again, err := client.Reconnect(ctx, inst)
	require.NoError(t, err)
	assert.Equal(t, map[opensandboxtest.Op]int{opensandboxtest.OpGet: 2, opensandboxtest.OpResume: 1}, fake.AllCalls())
	assert.Equal(t, "here\n", run(t, client, again, "cat f.txt").Output)
}

// Keeping costs a snapshot and the look that sees it Ready; restoring
// costs what a create costs.
func TestKeepAndRestoreCostTheirCalls(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	ctx := context.Background()
	keeper := client.(provider.Keeper)
	inst := create(t, client)
	run(t, client, inst, "echo kept > f.txt")

	fake.ResetCalls()
	kept, err := keeper.Keep(ctx, inst)
	require.NoError(t, err)
	assert.Equal(t, map[opensandboxtest.Op]int{opensandboxtest.OpSnapshot: 1, opensandboxtest.OpGetSnapshot: 1}, fake.AllCalls())

	fake.ResetCalls()
	fresh := create(t, client)
	created := fake.AllCalls()
	fake.ResetCalls()
	restored, err := keeper.CreateFrom(ctx, provider.Labels{Workspace: "ws-1", Sandbox: "sb-1", Thread: "th-1"}, kept)
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Destroy(context.Background(), restored) })
	assert.Equal(t, created, fake.AllCalls(), "a restore costs what a create costs")
	assert.NotEqual(t, fresh.ID, restored.ID)
	sb, _ := fake.Sandbox(restored.ID)
	assert.Equal(t, kept.ID, sb.Request.SnapshotID)
	assert.Nil(t, sb.Request.Image, "the server takes a snapshot or an image, not both")
	assert.Equal(t, "kept\n", run(t, client, restored, "cat f.txt").Output)
}

// The server snapshots only a running sandbox: a paused one is resumed
// for it and left paused again.
func TestKeepLeavesAPausedInstancePaused(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	ctx := context.Background()
	inst := create(t, client)
	run(t, client, inst, "echo kept > f.txt")
	require.NoError(t, client.(provider.Pauser).Pause(ctx, inst))

	kept, err := client.(provider.Keeper).Keep(ctx, inst)
	require.NoError(t, err)
	assert.Equal(t, "Paused", state(t, fake, inst.ID))
	assert.Contains(t, fake.Snapshots(), kept.ID)
}

func TestKeepRefusedWithoutSnapshotSupport(t *testing.T) {
	_, client := setup(t, opensandboxtest.Options{NoSnapshots: true})
	inst := create(t, client)
	_, err := client.(provider.Keeper).Keep(context.Background(), inst)
	require.ErrorIs(t, err, provider.ErrUnsupported)
	assert.Contains(t, err.Error(), "SNAPSHOT::NOT_IMPLEMENTED")
}

// A server from before snapshots has no such route: FastAPI's own 404.
func TestKeepRefusedByAServerWithoutTheSnapshotAPI(t *testing.T) {
	fake := opensandboxtest.New(t, opensandboxtest.Options{APIKey: testKey})
	target, _ := url.Parse(fake.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	old := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "snapshots") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"detail":"Not Found"}`))
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(old.Close)
	client := openClient(t, testKind, old.URL, testKey)
	inst := create(t, client)
	_, err := client.(provider.Keeper).Keep(context.Background(), inst)
	require.ErrorIs(t, err, provider.ErrUnsupported)
	assert.Contains(t, err.Error(), "no snapshot API")
}

// A Kubernetes workload without pause refuses it with 400 INVALID_STATE
// (services/k8s/kubernetes_service.py, pause_sandbox).
func TestPauseRefusedByTheServer(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	inst := create(t, client)
	fake.Inject(opensandboxtest.OpPause, opensandboxtest.Fault{Status: 400, Code: "KUBERNETES::INVALID_STATE",
		Message: "Pause is not supported for this sandbox type"})
	err := client.(provider.Pauser).Pause(context.Background(), inst)
	require.ErrorIs(t, err, provider.ErrUnsupported)
	assert.Contains(t, err.Error(), "Pause is not supported for this sandbox type")
}

func TestPauseOfAGoneInstanceIsGone(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	inst := create(t, client)
	fake.Expire(inst.ID)
	assert.ErrorIs(t, client.(provider.Pauser).Pause(context.Background(), inst), provider.ErrGone)
	fake2, client2 := setup(t, opensandboxtest.Options{})
	inst2 := create(t, client2)
	fake2.SetState(inst2.ID, opensandboxtest.Failed)
	assert.ErrorIs(t, client2.(provider.Pauser).Pause(context.Background(), inst2), provider.ErrGone)
}

func TestRestoreFromAForgottenSnapshotIsGone(t *testing.T) {
	_, client := setup(t, opensandboxtest.Options{})
	ctx := context.Background()
	keeper := client.(provider.Keeper)
	inst := create(t, client)
	kept, err := keeper.Keep(ctx, inst)
	require.NoError(t, err)
	require.NoError(t, keeper.Forget(ctx, kept))
	_, err = keeper.CreateFrom(ctx, provider.Labels{Workspace: "ws-1", Sandbox: "sb-1", Thread: "th-1"}, kept)
	require.ErrorIs(t, err, provider.ErrGone)
	assert.Contains(t, err.Error(), "SNAPSHOT::NOT_FOUND")
}

// state is the sandbox's state as the server reports it.
func state(t *testing.T, fake *opensandboxtest.Server, id string) string {
	t.Helper()
	req, _ := http.NewRequest("GET", fake.URL+"/v1/sandboxes/"+id, nil)
	req.Header.Set("OPEN-SANDBOX-API-KEY", testKey)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var sb struct {
		Status struct{ State string } `json:"status"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&sb))
	return sb.Status.State
}
