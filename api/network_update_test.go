package api_test

import (
	"context"
	"maps"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
	"github.com/auxilia/sandboxes/pkg/provider/e2b/e2btest"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox/opensandboxtest"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// networkProvider is one provider with its fake, for the tests of edited
// network rules reaching live instances.
type networkProvider struct {
	// sandbox is the registration, without name or network.
	sandbox func() map[string]any
	// first is the network the sandbox starts with, second its edit.
	first, second map[string]any
	// enforced is what the fake's instance ref enforces now.
	enforced func(t *testing.T, ref string) any
	// wantFirst and wantSecond are enforced's answer under each network.
	wantFirst, wantSecond any
}

// networkUpdates runs the common story: two threads, one running and one
// paused; a dry run applies nothing; the edit reaches the running instance
// at once, and the paused one when it resumes.
func networkUpdates(t *testing.T, e *env, clock *movedClock, p networkProvider) {
	ctx := context.Background()
	fields := p.sandbox()
	config := map[string]any{"idle_minutes": 1, "network": p.first}
	if own, ok := fields["config"].(map[string]any); ok {
		maps.Copy(config, own)
	}
	fields["name"], fields["config"] = "Filtered", config
	r := e.send("POST", "/api/v1/sandboxes", e.admin, fields)
	require.Equal(t, 201, r.StatusCode, "%s", r.body)
	sandboxID := r.json(t)["id"].(string)
	agent := e.createAgent("Filtered")["id"].(string)
	r = e.send("PUT", "/api/v1/agents/"+agent+"/sandbox", e.member, map[string]any{"sandbox_id": sandboxID, "tools": allAllowed})
	require.Equal(t, 200, r.StatusCode, "%s", r.body)
	start := func(thread string) string {
		r := e.send("POST", "/api/v1/agents/"+agent+"/threads/"+thread+"/runs", e.member, nil)
		require.Equal(t, 201, r.StatusCode, "%s", r.body)
		return r.json(t)["sandbox"].(map[string]any)["instance_id"].(string)
	}

	sleeper := start("sleeper")
	clock.moveOn(2 * time.Minute)
	_, err := e.app.Runs.Idle(ctx)
	require.NoError(t, err)
	th := e.call("GET", "/api/v1/agents/"+agent+"/threads/sleeper", e.member, nil).json(t)
	require.Equal(t, "paused", th["state"])
	awake := start("awake")
	assert.Equal(t, p.wantFirst, p.enforced(t, awake))

	edit := map[string]any{"config": map[string]any{"network": p.second}}
	dry := e.call("PATCH", "/api/v1/sandboxes/"+sandboxID+"?dry_run=true", e.admin, edit)
	require.Equal(t, 200, dry.StatusCode, "%s", dry.body)
	assert.NotContains(t, dry.json(t), "network_update", "a dry run applies nothing")
	assert.Equal(t, p.wantFirst, p.enforced(t, awake))

	saved := e.call("PATCH", "/api/v1/sandboxes/"+sandboxID, e.admin, edit)
	require.Equal(t, 200, saved.StatusCode, "%s", saved.body)
	got := map[string]map[string]any{}
	for _, i := range saved.json(t)["network_update"].(map[string]any)["instances"].([]any) {
		got[i.(map[string]any)["instance_id"].(string)] = i.(map[string]any)
	}
	require.Len(t, got, 2)
	assert.Equal(t, run.NetworkApplied, got[awake]["outcome"], "%v", got[awake])
	assert.Equal(t, run.NetworkNextStart, got[sleeper]["outcome"])
	assert.Contains(t, got[sleeper]["reason"], "paused")
	assert.Equal(t, p.wantSecond, p.enforced(t, awake), "the running instance enforces the edit")

	audit := e.call("GET", "/api/v1/audit?action=sandbox.network", e.admin, nil).json(t)["items"].([]any)
	require.Len(t, audit, 1)
	assert.Contains(t, audit[0].(map[string]any)["detail"], "1 instances applied, 1 on next start, 0 failed")

	again := e.call("PATCH", "/api/v1/sandboxes/"+sandboxID, e.admin, map[string]any{"description": "same rules"})
	require.Equal(t, 200, again.StatusCode, "%s", again.body)
	assert.NotContains(t, again.json(t), "network_update", "an edit that leaves the rules applies nothing")

	assert.Equal(t, sleeper, start("sleeper"), "resumed, not replaced")
	assert.Equal(t, p.wantSecond, p.enforced(t, sleeper), "the paused instance takes the edit as it resumes")
}

func TestNetworkEditsReachLiveInstancesOnOpenSandbox(t *testing.T) {
	clock := &movedClock{}
	eachDB(t, func(t *testing.T, e *env) {
		fake := opensandboxtest.New(t, opensandboxtest.Options{})
		networkUpdates(t, e, clock, networkProvider{
			sandbox: func() map[string]any { return map[string]any{"provider": "opensandbox", "url": fake.URL} },
			first:   map[string]any{"default": "deny", "allow": []string{"pypi.org"}, "deny": []string{}},
			second:  map[string]any{"default": "deny", "allow": []string{"example.com"}, "deny": []string{"bad.example.com"}},
			enforced: func(t *testing.T, ref string) any {
				pol, ok := fake.Policy(ref)
				require.True(t, ok, "instance %s has an egress sidecar", ref)
				return pol
			},
			wantFirst: opensandboxtest.NetworkPolicy{DefaultAction: "deny", Egress: []opensandboxtest.NetworkRule{{Action: "allow", Target: "pypi.org"}}},
			wantSecond: opensandboxtest.NetworkPolicy{DefaultAction: "deny", Egress: []opensandboxtest.NetworkRule{
				{Action: "deny", Target: "bad.example.com"}, {Action: "allow", Target: "example.com"}}},
		})
	}, func(o *options) { o.run.Clock = clock.now })
}

func TestNetworkEditsReachLiveInstancesOnDaytona(t *testing.T) {
	clock := &movedClock{}
	eachDB(t, func(t *testing.T, e *env) {
		fake, err := daytonatest.New(daytonatest.Options{})
		require.NoError(t, err)
		t.Cleanup(fake.Close)
		networkUpdates(t, e, clock, networkProvider{
			sandbox: func() map[string]any {
				return map[string]any{"provider": "daytona", "url": fake.URL(), "secret": daytonatest.DefaultKey}
			},
			first:  map[string]any{"default": "deny", "allow": []string{"198.51.100.0/24"}, "deny": []string{}},
			second: map[string]any{"default": "deny", "allow": []string{"203.0.113.7", "192.0.2.0/28"}, "deny": []string{}},
			enforced: func(t *testing.T, ref string) any {
				got, ok := fake.Settings(ref)
				require.True(t, ok)
				return got.Network
			},
			wantFirst:  daytonatest.Network{AllowList: "198.51.100.0/24"},
			wantSecond: daytonatest.Network{AllowList: "203.0.113.7/32,192.0.2.0/28"},
		})
	}, func(o *options) { o.run.Clock = clock.now })
}

func TestNetworkEditsReachLiveInstancesOnE2B(t *testing.T) {
	clock := &movedClock{}
	eachDB(t, func(t *testing.T, e *env) {
		fake := e2btest.Start(t, e2btest.Options{})
		yes := true
		networkUpdates(t, e, clock, networkProvider{
			sandbox: func() map[string]any {
				return map[string]any{"provider": "e2b", "url": fake.URL(), "secret": e2btest.DefaultKey,
					"config": map[string]any{"envd_url": fake.EnvdURL()}}
			},
			first:  map[string]any{"default": "deny", "allow": []string{"pypi.org"}, "deny": []string{}},
			second: map[string]any{"default": "allow", "allow": []string{}, "deny": []string{"198.51.100.0/24"}},
			enforced: func(t *testing.T, ref string) any {
				got, ok := fake.Network(ref)
				require.True(t, ok)
				return got
			},
			wantFirst:  e2btest.Network{AllowOut: []string{"pypi.org"}, DenyOut: []string{"0.0.0.0/0"}},
			wantSecond: e2btest.Network{DenyOut: []string{"198.51.100.0/24"}, AllowInternet: &yes},
		})
	}, func(o *options) { o.run.Clock = clock.now })
}

// A provider that refuses the change fails that instance's outcome, never
// the save: the rules are saved, the instance says why it kept its own.
func TestARefusedNetworkUpdateDoesNotFailTheSave(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		fake, err := daytonatest.New(daytonatest.Options{})
		require.NoError(t, err)
		t.Cleanup(fake.Close)
		r := e.send("POST", "/api/v1/sandboxes", e.admin, map[string]any{"name": "Refusing", "provider": "daytona",
			"url": fake.URL(), "secret": daytonatest.DefaultKey})
		require.Equal(t, 201, r.StatusCode, "%s", r.body)
		sandboxID := r.json(t)["id"].(string)
		agent := e.createAgent("Refusing")["id"].(string)
		r = e.send("PUT", "/api/v1/agents/"+agent+"/sandbox", e.member, map[string]any{"sandbox_id": sandboxID, "tools": allAllowed})
		require.Equal(t, 200, r.StatusCode, "%s", r.body)
		r = e.send("POST", "/api/v1/agents/"+agent+"/threads/t1/runs", e.member, nil)
		require.Equal(t, 201, r.StatusCode, "%s", r.body)
		ref := r.json(t)["sandbox"].(map[string]any)["instance_id"].(string)

		fake.Inject(daytonatest.OpUpdateNetworkSettings, daytonatest.Fault{Status: 500, Message: "runner unreachable"})
		saved := e.call("PATCH", "/api/v1/sandboxes/"+sandboxID, e.admin,
			map[string]any{"config": map[string]any{"network": map[string]any{"default": "deny", "allow": []string{}, "deny": []string{}}}})
		require.Equal(t, 200, saved.StatusCode, "%s", saved.body)
		body := saved.json(t)
		assert.Equal(t, "deny", body["config"].(map[string]any)["network"].(map[string]any)["default"], "saved")
		got := body["network_update"].(map[string]any)["instances"].([]any)
		require.Len(t, got, 1)
		one := got[0].(map[string]any)
		assert.Equal(t, ref, one["instance_id"])
		assert.Equal(t, run.NetworkFailed, one["outcome"])
		assert.Contains(t, one["reason"], "runner unreachable")
		settings, _ := fake.Settings(ref)
		assert.False(t, settings.Network.BlockAll, "the instance kept its rules")
	})
}

// An OpenSandbox instance created with an open network has no egress
// sidecar: it cannot take rules while it runs, and the answer says so.
func TestAnOpenSandboxInstanceWithoutASidecarTakesRulesInTheNextInstance(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		fake := opensandboxtest.New(t, opensandboxtest.Options{})
		r := e.send("POST", "/api/v1/sandboxes", e.admin, map[string]any{"name": "Open", "provider": "opensandbox", "url": fake.URL,
			"config": map[string]any{"network": map[string]any{"default": "allow", "allow": []string{}, "deny": []string{}}}})
		require.Equal(t, 201, r.StatusCode, "%s", r.body)
		sandboxID := r.json(t)["id"].(string)
		agent := e.createAgent("Open")["id"].(string)
		r = e.send("PUT", "/api/v1/agents/"+agent+"/sandbox", e.member, map[string]any{"sandbox_id": sandboxID, "tools": allAllowed})
		require.Equal(t, 200, r.StatusCode, "%s", r.body)
		r = e.send("POST", "/api/v1/agents/"+agent+"/threads/t1/runs", e.member, nil)
		require.Equal(t, 201, r.StatusCode, "%s", r.body)
		ref := r.json(t)["sandbox"].(map[string]any)["instance_id"].(string)

		saved := e.call("PATCH", "/api/v1/sandboxes/"+sandboxID, e.admin,
			map[string]any{"config": map[string]any{"network": map[string]any{"default": "deny", "allow": []string{"pypi.org"}, "deny": []string{}}}})
		require.Equal(t, 200, saved.StatusCode, "%s", saved.body)
		got := saved.json(t)["network_update"].(map[string]any)["instances"].([]any)
		require.Len(t, got, 1)
		one := got[0].(map[string]any)
		assert.Equal(t, ref, one["instance_id"])
		assert.Equal(t, run.NetworkNextStart, one["outcome"])
		assert.Contains(t, one["reason"], "no egress sidecar")
		assert.Contains(t, one["reason"], "the thread's next instance takes the rules")
	})
}
