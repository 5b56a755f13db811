package daytona_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/daytona"
	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCreateSendsTheConfigAndOurLabels(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{Snapshots: []string{"python-3.12"}, Targets: []string{"us", "eu"}})
	client := openClient(t, fake, daytonatest.DefaultKey, func(c *daytona.Config) {
		c.Snapshot, c.Target, c.AutoStopInterval = "python-3.12", "eu", 0
	})
	inst, err := client.Create(context.Background(), provider.Labels{Workspace: "ws-1", Sandbox: "sb-2", Thread: "th-3"})
	require.NoError(t, err)
	labels := fake.Labels(inst.ID)
	assert.Equal(t, "ws-1", labels["auxilia.io/workspace"])
	assert.Equal(t, "sb-2", labels["auxilia.io/sandbox"])
	assert.Equal(t, "th-3", labels["auxilia.io/thread"])
	assert.Len(t, labels["auxilia.io/creation"], 24)
	fake.Advance(24 * time.Hour)
	state, _ := fake.State(inst.ID)
	assert.Equal(t, "started", state, "auto-stop 0 is sent as 0: never")
}

func TestCreateWithUnknownSnapshot(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{Snapshots: []string{"python-3.12"}})
	client := openClient(t, fake, daytonatest.DefaultKey, func(c *daytona.Config) { c.Snapshot = "nope" })
	_, err := client.Create(context.Background(), provider.Labels{})
	require.ErrorIs(t, err, provider.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "Snapshot nope not found. Did you add it through the Daytona Dashboard?")
}

func TestReconnectWarmIsOneCall(t *testing.T) {
	fake, client, inst := started(t, daytonatest.Options{Transition: 2})
	fake.ResetCalls()
	again, err := client.Reconnect(context.Background(), inst)
	require.NoError(t, err)
	assert.Equal(t, map[string]int{daytonatest.OpGetSandbox: 1}, fake.AllCalls())
	assert.Equal(t, inst, again)
}

func TestReconnectByState(t *testing.T) {
	type want int
	const (
		use want = iota
		start
		gone
	)
	cases := []struct {
		state string
		set   func(fake *daytonatest.Server, id string) error
		want  want
	}{
		{"started", func(*daytonatest.Server, string) error { return nil }, use},
		{"starting", transit("started", "starting", "started"), use},
		{"creating", transit("started", "creating", "started"), use},
		{"restoring", transit("started", "restoring", "started"), use},
		{"resuming", transit("started", "resuming", "started"), use},
		{"pulling_snapshot", transit("started", "pulling_snapshot", "started"), use},
		{"stopped", (*daytonatest.Server).Stop, start},
		{"stopping", transit("stopped", "stopping", "stopped"), start},
		{"paused", setState("paused", "paused"), start},
		{"pausing", transit("paused", "pausing", "paused"), start},
		{"archived", (*daytonatest.Server).Archive, start},
		{"archiving", setState("archiving", "archived"), start},
		{"destroyed", (*daytonatest.Server).Destroy, gone},
		{"destroying", setState("destroying", "destroyed"), gone},
		{"error", func(f *daytonatest.Server, id string) error { return f.Break(id, "disk failure") }, gone},
		{"build_failed", setState("build_failed", "started"), gone},
	}
	for _, tc := range cases {
		t.Run(tc.state, func(t *testing.T) {
			fake, client, inst := started(t, daytonatest.Options{Transition: 1})
			require.NoError(t, tc.set(fake, inst.ID))
			fake.ResetCalls()
			again, err := client.Reconnect(context.Background(), inst)
			switch tc.want {
			case gone:
				require.ErrorIs(t, err, provider.ErrGone)
				assert.Zero(t, fake.Calls(daytonatest.OpStartSandbox))
				return
			case use:
				require.NoError(t, err)
				assert.Zero(t, fake.Calls(daytonatest.OpStartSandbox), "a sandbox on its way is waited for")
			case start:
				require.NoError(t, err)
				assert.Equal(t, 1, fake.Calls(daytonatest.OpStartSandbox))
			}
			state, _ := fake.State(inst.ID)
			assert.Equal(t, "started", state)
			assert.Equal(t, inst.WorkDir, again.WorkDir)
			assert.Equal(t, "ok\n", run(t, client, again, "echo ok").Output)
		})
	}
	t.Run("unknown", func(t *testing.T) {
		_, client, _ := started(t, daytonatest.Options{})
		_, err := client.Reconnect(context.Background(), provider.Instance{ID: "no-such-sandbox"})
		require.ErrorIs(t, err, provider.ErrGone)
		assert.Contains(t, err.Error(), "Sandbox with ID or name no-such-sandbox not found")
	})
}

func transit(desired string, states ...string) func(*daytonatest.Server, string) error {
	return func(f *daytonatest.Server, id string) error { return f.Transit(id, desired, states...) }
}

func setState(state, desired string) func(*daytonatest.Server, string) error {
	return func(f *daytonatest.Server, id string) error { return f.SetState(id, state, desired) }
}

func TestReconnectWithoutState(t *testing.T) {
	fake, client, inst := started(t, daytonatest.Options{})
	again, err := client.Reconnect(context.Background(), provider.Instance{ID: inst.ID})
	require.NoError(t, err)
	assert.Equal(t, inst, again, "the toolbox URL and the work dir are learnt again")
	assert.Equal(t, 1, fake.Calls(daytonatest.OpGetSandbox))
}

func TestKeepAliveReportsActivity(t *testing.T) {
	fake, client, inst := started(t, daytonatest.Options{})
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		fake.Advance(10 * time.Minute)
		require.NoError(t, client.KeepAlive(ctx, inst))
	}
	state, _ := fake.State(inst.ID)
	assert.Equal(t, "started", state, "30 idle minutes, but activity was reported every 10")
	assert.Equal(t, 3, fake.Calls(daytonatest.OpUpdateLastActivity))

	require.NoError(t, fake.Destroy(inst.ID))
	require.ErrorIs(t, client.KeepAlive(ctx, inst), provider.ErrGone)
}

func TestPersistIsANoOp(t *testing.T) {
	fake, client, inst := started(t, daytonatest.Options{})
	fake.ResetCalls()
	require.NoError(t, client.Persist(context.Background(), inst))
	assert.Zero(t, fake.TotalCalls())
}

func TestDestroyUnknownIsFine(t *testing.T) {
	_, client, _ := started(t, daytonatest.Options{})
	require.NoError(t, client.Destroy(context.Background(), provider.Instance{ID: "no-such-sandbox"}))
}

func TestFindCreated(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	client := openClientWaits(t, fake, daytonatest.DefaultKey, quickWaits)
	labels := provider.Labels{Workspace: "ws", Thread: "th", Instance: "0b9d6c1e-5a7f-4e47-9a57-3c1a3f2d9e10"}
	inst, err := client.Create(context.Background(), labels)
	require.NoError(t, err)

	found, ok, err := client.FindCreated(context.Background(), labels)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, inst.ID, found.ID)

	other := labels
	other.Instance = "1c2f6b9a-0000-4000-8000-000000000000"
	_, ok, err = client.FindCreated(context.Background(), other)
	require.NoError(t, err)
	assert.False(t, ok, "no sandbox was made under that creation")

	fake.Inject(daytonatest.OpListSandboxes, daytonatest.Fault{Status: http.StatusInternalServerError, Times: 100})
	_, ok, err = client.FindCreated(context.Background(), labels)
	assert.ErrorIs(t, err, provider.ErrFailed, "a listing that never succeeds is an error, never \"not found\"")
	assert.False(t, ok)
}

// A recoverable error is mended with Daytona's recover, files and all.
func TestReconnectRecoversARecoverableError(t *testing.T) {
	fake, client, inst := started(t, daytonatest.Options{Transition: 1})
	ctx := context.Background()
	require.NoError(t, client.WriteFile(ctx, inst, "kept.txt", []byte("still here")))
	require.NoError(t, fake.BreakRecoverable(inst.ID, "no space left on device"))
	fake.ResetCalls()
	again, err := client.Reconnect(ctx, inst)
	require.NoError(t, err)
	assert.Equal(t, 1, fake.Calls(daytonatest.OpRecoverSandbox))
	assert.Zero(t, fake.Calls(daytonatest.OpDeleteSandbox))
	state, _ := fake.State(inst.ID)
	assert.Equal(t, "started", state)
	assert.Equal(t, "still here", run(t, client, again, "cat kept.txt").Output)
}

// An error Daytona cannot mend is destroyed, so it costs the organisation
// nothing, and reported gone, so the run replaces it.
func TestReconnectDestroysAnUnrecoverableError(t *testing.T) {
	fake, client, inst := started(t, daytonatest.Options{})
	require.NoError(t, fake.Break(inst.ID, "runner lost"))
	fake.ResetCalls()
	_, err := client.Reconnect(context.Background(), inst)
	require.ErrorIs(t, err, provider.ErrGone)
	assert.Contains(t, err.Error(), "runner lost")
	assert.Zero(t, fake.Calls(daytonatest.OpRecoverSandbox))
	assert.Equal(t, 1, fake.Calls(daytonatest.OpDeleteSandbox))
	state, kept := fake.State(inst.ID)
	assert.True(t, !kept || state == "destroying", "Daytona is destroying it, not keeping it: %q", state)
}

// Daytona's passing states end where they began (a resize, a snapshot, a
// fork) or in a started sandbox (a build): they are waited for.
func TestReconnectWaitsOutPassingStates(t *testing.T) {
	for _, states := range [][]string{
		{"resizing", "started"},
		{"snapshotting", "started"},
		{"forking", "started"},
		{"pending_build", "building_snapshot", "started"},
	} {
		t.Run(states[0], func(t *testing.T) {
			fake, client, inst := started(t, daytonatest.Options{Transition: 2})
			require.NoError(t, fake.Transit(inst.ID, "started", states...))
			_, err := client.Reconnect(context.Background(), inst)
			require.NoError(t, err)
			state, _ := fake.State(inst.ID)
			assert.Equal(t, "started", state)
		})
	}
}

// "unknown" is Daytona having lost track of the sandbox on its runner:
// nothing brings it back by waiting, so it is refused at once, named.
func TestReconnectRefusesUnknownAtOnce(t *testing.T) {
	fake, client, inst := started(t, daytonatest.Options{})
	require.NoError(t, fake.SetState(inst.ID, "unknown", "started"))
	begun := time.Now()
	_, err := client.Reconnect(context.Background(), inst)
	require.ErrorIs(t, err, provider.ErrFailed)
	assert.Contains(t, err.Error(), "unknown")
	assert.Less(t, time.Since(begun), quickWaits.Settle/2, "no wait for a state that does not end")
}
