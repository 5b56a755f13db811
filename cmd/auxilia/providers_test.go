package main_test

import (
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
	"github.com/auxilia/sandboxes/pkg/provider/e2b/e2btest"
	"github.com/auxilia/sandboxes/pkg/provider/local/localtest"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox/opensandboxtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const adminToken = "aux_e2eAdminToken0123456789abcdefghijklmnopqrst"

// instance starts the real binary on the embedded database with an admin token.
func instance(t *testing.T, env ...string) *server {
	data := t.TempDir()
	// Its first local run copies the test process's Python template
	// instead of making one of its own.
	localtest.Seed(t, data)
	return startServer(t, append([]string{"AUXILIA_DATA_DIR=" + data, "DATABASE_URL=", "AUXILIA_SECRET_KEYS=",
		"AUXILIA_BOOTSTRAP_TOKEN=" + adminToken}, env...)...)
}

// bindNew registers a sandbox, and an agent bound to it; it returns the agent's id.
func bindNew(t *testing.T, srv *server, sandbox map[string]any) string {
	t.Helper()
	return bindAs(t, srv, adminToken, sandbox)
}

func bindAs(t *testing.T, srv *server, token string, sandbox map[string]any) string {
	t.Helper()
	status, sb := post(t, "POST", srv.URL+"/api/v1/sandboxes", token, sandbox)
	require.Equal(t, 201, status, "%v", sb)
	status, ag := post(t, "POST", srv.URL+"/api/v1/agents", token, map[string]any{"name": "Agent of " + sandbox["name"].(string)})
	require.Equal(t, 201, status)
	status, b := post(t, "PUT", srv.URL+"/api/v1/agents/"+ag["id"].(string)+"/sandbox", token, map[string]any{"sandbox_id": sb["id"]})
	require.Equal(t, 200, status, "%v", b)
	return ag["id"].(string)
}

func startRun(t *testing.T, srv *server, agentID, thread string) (int, map[string]any) {
	t.Helper()
	return post(t, "POST", srv.URL+"/api/v1/agents/"+agentID+"/threads/"+thread+"/runs", adminToken, nil)
}

func execute(t *testing.T, srv *server, runID, command string) map[string]any {
	t.Helper()
	status, res := post(t, "POST", srv.URL+"/api/v1/runs/"+runID+"/execute", adminToken, map[string]any{"command": command})
	require.Equal(t, 200, status, "%v", res)
	return res
}

func TestDaytonaThreadLifecycle(t *testing.T) {
	fake, err := daytonatest.New(daytonatest.Options{Transition: 1})
	require.NoError(t, err)
	defer fake.Close()
	srv := instance(t)
	agent := bindNew(t, srv, map[string]any{"name": "Daytona", "provider": "daytona", "url": fake.URL(), "secret": daytonatest.DefaultKey})

	status, first := startRun(t, srv, agent, "t1")
	require.Equal(t, 201, status, "%v", first)
	sandbox := first["sandbox"].(map[string]any)
	assert.Equal(t, true, sandbox["created"])
	id := sandbox["instance_id"].(string)
	execute(t, srv, first["id"].(string), "echo kept > kept.txt")

	fake.ResetCalls()
	status, warm := startRun(t, srv, agent, "t1")
	require.Equal(t, 201, status)
	assert.Equal(t, false, warm["sandbox"].(map[string]any)["created"])
	assert.Equal(t, 1, fake.TotalCalls(), "a warm run is one provider call: %v", fake.AllCalls())

	require.NoError(t, fake.Stop(id))
	status, restarted := startRun(t, srv, agent, "t1")
	require.Equal(t, 201, status, "%v", restarted)
	assert.Equal(t, id, restarted["sandbox"].(map[string]any)["instance_id"], "a stopped sandbox is started again")
	state, _ := fake.State(id)
	assert.Equal(t, "started", state)
	assert.Equal(t, "kept\n", execute(t, srv, restarted["id"].(string), "cat kept.txt")["output"], "with its files")

	require.NoError(t, fake.Destroy(id))
	status, replaced := startRun(t, srv, agent, "t1")
	require.Equal(t, 201, status, "%v", replaced)
	assert.Equal(t, true, replaced["sandbox"].(map[string]any)["replaced"])
	assert.Contains(t, replaced["notice"], "no longer existed")
	assert.NotEqual(t, id, replaced["sandbox"].(map[string]any)["instance_id"])
}

func TestE2BThreadLifecycle(t *testing.T) {
	fake := e2btest.Start(t, e2btest.Options{})
	srv := instance(t)
	agent := bindNew(t, srv, map[string]any{"name": "E2B", "provider": "e2b", "url": fake.URL(), "secret": e2btest.DefaultKey,
		"config": map[string]any{"envd_url": fake.EnvdURL()}})

	status, first := startRun(t, srv, agent, "t1")
	require.Equal(t, 201, status, "%v", first)
	sandbox := first["sandbox"].(map[string]any)
	assert.Equal(t, true, sandbox["created"])
	id := sandbox["instance_id"].(string)
	execute(t, srv, first["id"].(string), "echo kept > kept.txt")

	fake.ResetCalls()
	status, warm := startRun(t, srv, agent, "t1")
	require.Equal(t, 201, status)
	assert.Equal(t, false, warm["sandbox"].(map[string]any)["created"])
	assert.Equal(t, map[string]int{e2btest.OpConnect: 1}, fake.AllCalls(), "a warm run is one provider call, connect")

	require.NoError(t, fake.Expire(id))
	assert.Equal(t, "paused", fake.State(id), "paused at the end of its lifetime")
	status, resumed := startRun(t, srv, agent, "t1")
	require.Equal(t, 201, status, "%v", resumed)
	assert.Equal(t, id, resumed["sandbox"].(map[string]any)["instance_id"], "a paused sandbox is resumed")
	assert.Equal(t, "running", fake.State(id))
	assert.Equal(t, "kept\n", execute(t, srv, resumed["id"].(string), "cat kept.txt")["output"], "with its files")

	fake.SetAutoPause(id, false)
	require.NoError(t, fake.Expire(id))
	status, replaced := startRun(t, srv, agent, "t1")
	require.Equal(t, 201, status, "%v", replaced)
	assert.Equal(t, true, replaced["sandbox"].(map[string]any)["replaced"])
	assert.NotEqual(t, id, replaced["sandbox"].(map[string]any)["instance_id"])
}

func TestRunsRefusedWhenTheSandboxCannotBeUsed(t *testing.T) {
	fake, err := daytonatest.New(daytonatest.Options{})
	require.NoError(t, err)
	defer fake.Close()
	srv := instance(t)

	badKey := bindNew(t, srv, map[string]any{"name": "Wrong key", "provider": "daytona", "url": fake.URL(), "secret": "dtn_not-the-key-0000"})
	status, p := startRun(t, srv, badKey, "t1")
	require.Equal(t, 409, status)
	assert.Equal(t, "sandbox_unavailable", p["reason"])
	assert.Contains(t, p["detail"], "Sandbox 'Wrong key' is not available: ")
	assert.Equal(t, "Wrong key", p["sandbox_name"])
	assert.Empty(t, fake.Sandboxes(), "nothing is created after a failed probe")

	broken := bindNew(t, srv, map[string]any{"name": "Broken packages", "provider": "daytona", "url": fake.URL(),
		"secret": daytonatest.DefaultKey, "config": map[string]any{"default_packages": []string{"no-such-package-at-all==9.9"}}})
	status, p = startRun(t, srv, broken, "t1")
	require.Equal(t, 409, status, "%v", p)
	assert.Contains(t, p["detail"], "installing the default packages failed")
	for _, id := range fake.Sandboxes() {
		state, _ := fake.State(id)
		assert.Contains(t, []string{"destroyed", "destroying"}, state, "a failed install leaves no instance behind")
	}
}

func TestOpenSandboxThreadLifecycle(t *testing.T) {
	fake := opensandboxtest.New(t, opensandboxtest.Options{APIKey: "osk-e2e-key-0123456789"})
	srv := instance(t)
	agent := bindNew(t, srv, map[string]any{"name": "OpenSandbox", "provider": "opensandbox", "url": fake.URL, "secret": "osk-e2e-key-0123456789"})

	status, first := startRun(t, srv, agent, "t1")
	require.Equal(t, 201, status, "%v", first)
	id := first["sandbox"].(map[string]any)["instance_id"].(string)
	assert.Equal(t, "42\n", execute(t, srv, first["id"].(string), "python3 -c 'print(6*7)'")["output"])
	sb, ok := fake.Sandbox(id)
	require.True(t, ok)
	expiry := sb.ExpiresAt

	fake.ResetCalls()
	status, warm := startRun(t, srv, agent, "t1")
	require.Equal(t, 201, status, "%v", warm)
	assert.Equal(t, 1, fake.TotalCalls(), "a warm run is one provider call, the look at the sandbox's state")
	assert.Equal(t, 1, fake.Calls(opensandboxtest.OpGet))
	sb, _ = fake.Sandbox(id)
	assert.Equal(t, expiry, sb.ExpiresAt, "a fresh lease is left as it is")

	fake.SetExpiry(id, time.Now().Add(10*time.Minute))
	fake.ResetCalls()
	status, warm = startRun(t, srv, agent, "t1")
	require.Equal(t, 201, status, "%v", warm)
	assert.Equal(t, 1, fake.Calls(opensandboxtest.OpRenew), "a run renews a lease partly spent")
	sb, _ = fake.Sandbox(id)
	assert.WithinDuration(t, time.Now().Add(30*time.Minute), sb.ExpiresAt, time.Minute, "to thirty minutes from now")

	fake.SetState(id, opensandboxtest.Failed) // the controller keeps a container that exited
	status, replaced := startRun(t, srv, agent, "t1")
	require.Equal(t, 201, status, "%v", replaced)
	assert.Equal(t, true, replaced["sandbox"].(map[string]any)["replaced"])
	assert.Contains(t, replaced["notice"], "no longer existed")
	_, kept := fake.Sandbox(id)
	assert.False(t, kept, "the dead sandbox is destroyed")

	id = replaced["sandbox"].(map[string]any)["instance_id"].(string)
	fake.Expire(id)
	status, replaced = startRun(t, srv, agent, "t1")
	require.Equal(t, 201, status, "%v", replaced)
	assert.Equal(t, true, replaced["sandbox"].(map[string]any)["replaced"])
	assert.Contains(t, replaced["notice"], "no longer existed")

	// An OpenSandbox controller pointed at nothing fails its probe on the network, within the probe timeout.
	start := time.Now()
	status, probe := post(t, "POST", srv.URL+"/api/v1/sandboxes/probe", adminToken,
		map[string]any{"name": "nowhere", "provider": "opensandbox", "url": "127.0.0.1:1"})
	require.Equal(t, 200, status)
	assert.Equal(t, false, probe["ok"])
	assert.Equal(t, "network", probe["reason"])
	assert.Less(t, time.Since(start), 10*time.Second)
}

func TestALocalSandboxProbesOK(t *testing.T) {
	srv := instance(t)
	status, sb := post(t, "POST", srv.URL+"/api/v1/sandboxes", adminToken, map[string]any{"name": "Local", "provider": "local"})
	require.Equal(t, 201, status)
	status, probe := post(t, "POST", srv.URL+"/api/v1/sandboxes/"+sb["id"].(string)+"/probe", adminToken, nil)
	require.Equal(t, 200, status)
	assert.Equal(t, true, probe["ok"], "%v", probe)
	status, got := get(t, srv.URL+"/api/v1/sandboxes/"+sb["id"].(string), adminToken)
	require.Equal(t, 200, status)
	health := got["health"].(map[string]any)
	assert.Equal(t, "ok", health["status"], "the probe is recorded as the sandbox's health")
	assert.Len(t, health["history"], 1)
}
