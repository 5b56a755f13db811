package run_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/app"
	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/providertest"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/auxilia/sandboxes/pkg/sandbox"
	"github.com/auxilia/sandboxes/pkg/secret"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// world is the run service on a real database, with one agent bound to a
// sandbox of the fake provider.
type world struct {
	db      *store.DB
	keys    *secret.Keyring
	app     *app.App
	fake    *providertest.Fake
	ws      auxilia.Workspace
	sandbox auxilia.Sandbox
	agent   auxilia.Agent
}

func newWorld(t *testing.T, db *store.DB, opts ...func(*run.Options)) world {
	fake := providertest.NewFake(t.TempDir())
	return newWorldOf(t, db, fake, fake, opts...)
}

// newWorldOf is a world whose sandbox is of kind, which drives fake.
func newWorldOf(t *testing.T, db *store.DB, kind provider.Kind, fake *providertest.Fake, opts ...func(*run.Options)) world {
	ctx := context.Background()
	keys, err := secret.ParseKeys(secret.NewKey())
	require.NoError(t, err)
	o := run.Options{}
	for _, f := range opts {
		f(&o)
	}
	a := app.New(db, keys, app.Options{DataDir: t.TempDir(), Kinds: []provider.Kind{kind}, Run: o})
	// Meters written after their commands' answers are written before the database closes.
	t.Cleanup(func() { _ = a.Runs.FlushMeters(context.Background()) })
	ws, err := db.System("test").Workspaces().Ensure(ctx, "acme")
	require.NoError(t, err)
	sb, err := a.Sandboxes.Create(ctx, ws.ID, sandbox.Input{Name: "Fake", Provider: "fake"})
	require.NoError(t, err)
	ag, err := a.Agents.Create(ctx, ws.ID, auxilia.AgentSpec{Name: "Analyst"})
	require.NoError(t, err)
	_, err = a.Agents.Bind(ctx, ws.ID, ag.ID, sb.ID, nil, nil, nil)
	require.NoError(t, err)
	return world{db: db, keys: keys, app: a, fake: fake, ws: ws, sandbox: sb, agent: ag}
}

func (w world) start(t *testing.T, thread string) auxilia.Run {
	t.Helper()
	r, err := w.app.Runs.Start(context.Background(), w.ws.ID, w.agent.ID, thread)
	require.NoError(t, err)
	return r
}

func TestColdThenWarmRuns(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		first := w.start(t, "t1")
		assert.True(t, first.Created)
		assert.False(t, first.Replaced)
		assert.Equal(t, "Fake", first.SandboxName)
		assert.NotEmpty(t, first.InstanceRef)
		assert.Equal(t, 1, w.fake.Calls("probe"), "a new instance is made after a probe")
		assert.Equal(t, 1, w.fake.Calls("create"))

		w.fake.ResetCalls()
		second := w.start(t, "t1")
		assert.False(t, second.Created)
		assert.Equal(t, first.InstanceRef, second.InstanceRef, "the thread keeps its instance")
		assert.Equal(t, 1, w.fake.TotalCalls(), "a warm run costs one provider call: its reconnect is its probe")
		assert.Equal(t, 1, w.fake.Calls("reconnect"))

		earlier, err := w.app.Runs.Get(context.Background(), w.ws.ID, first.ID)
		require.NoError(t, err)
		assert.Equal(t, auxilia.RunCompleted, earlier.Status, "a new run completes the thread's earlier one")

		other := w.start(t, "t2")
		assert.NotEqual(t, first.InstanceRef, other.InstanceRef, "each thread has its own instance")
		assert.Len(t, w.fake.Live(), 2)

		sb, err := w.app.Sandboxes.Get(context.Background(), w.ws.ID, w.sandbox.ID)
		require.NoError(t, err)
		assert.Equal(t, auxilia.HealthOK, sb.Health.Status, "runs keep the sandbox's health")
	})
}

func TestAnAgentWithoutSandboxRunsWithoutOne(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		ctx := context.Background()
		_, err := w.app.Agents.Unbind(ctx, w.ws.ID, w.agent.ID, nil)
		require.NoError(t, err)
		r := w.start(t, "t1")
		assert.Empty(t, r.SandboxID)
		assert.Zero(t, w.fake.TotalCalls())
		_, err = w.app.Runs.Execute(ctx, w.ws.ID, r.ID, run.ExecInput{Command: "echo"})
		assert.True(t, auxilia.IsCode(err, auxilia.CodeToolDisabled))
	})
}

// A gone instance is replaced, with a notice, and the start recorded once.
func TestAGoneInstanceIsReplacedWithANotice(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		first := w.start(t, "t1")
		w.fake.Vanish(first.InstanceRef)
		second := w.start(t, "t1")
		assert.True(t, second.Replaced)
		assert.True(t, second.Created)
		assert.Equal(t, run.ReplacedNotice, second.Notice)
		assert.NotEqual(t, first.InstanceRef, second.InstanceRef)
		assert.Equal(t, []string{second.InstanceRef}, w.fake.Live())
		// The replacing start is recorded once.
		assert.Equal(t, 1, w.count(t, `SELECT COUNT(*) FROM runs WHERE status = 'active'`))
		assert.Equal(t, 2, w.count(t, `SELECT COUNT(*) FROM runs`))
		assert.Equal(t, 2, w.count(t, `SELECT COUNT(*) FROM audit_entries WHERE action = 'run.start'`))
	})
}

// A create the provider refuses (a quota, say) refuses the run at once,
// in the provider's words, after one create: nothing waits or asks again.
func TestARefusedCreateRefusesTheRunAtOnce(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		w.fake.Fail("create", provider.Errorf(provider.ErrQuota, "fake", "create", "Total CPU limit exceeded. Maximum allowed: 4."))
		_, err := w.app.Runs.Start(context.Background(), w.ws.ID, w.agent.ID, "t1")
		require.True(t, auxilia.IsCode(err, auxilia.CodeSandboxUnavailable), "%v", err)
		var ae *auxilia.Error
		require.True(t, errors.As(err, &ae))
		assert.Contains(t, ae.Message, "Total CPU limit exceeded. Maximum allowed: 4.")
		assert.Equal(t, "quota", ae.Extra["probe_reason"])
		assert.Equal(t, 1, w.fake.Calls("create"), "a refusal is not asked again")
		assert.Empty(t, w.fake.Live())
	})
}

func TestAFailedProbeRefusesTheRun(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		ctx := context.Background()
		w.fake.Fail("probe", provider.Errorf(provider.ErrUnauthorized, "fake", "probe", "INVALID_API_KEY: the key is wrong"))
		_, err := w.app.Runs.Start(ctx, w.ws.ID, w.agent.ID, "t1")
		require.True(t, auxilia.IsCode(err, auxilia.CodeSandboxUnavailable), "%v", err)
		var ae *auxilia.Error
		require.True(t, errors.As(err, &ae))
		assert.True(t, strings.HasPrefix(ae.Message, "Sandbox 'Fake' is not available: "), ae.Message)
		assert.Contains(t, ae.Message, "INVALID_API_KEY")
		assert.Equal(t, w.sandbox.ID, ae.Extra["sandbox_id"])
		assert.Equal(t, "auth", ae.Extra["probe_reason"])
		assert.Zero(t, w.fake.Calls("create"), "nothing is made after a failed probe")
		thread, err := w.app.Runs.Thread(ctx, w.ws.ID, w.agent.ID, "t1")
		require.NoError(t, err)
		assert.Nil(t, thread.Instance, "the thread points at nothing")
		sb, err := w.app.Sandboxes.Get(ctx, w.ws.ID, w.sandbox.ID)
		require.NoError(t, err)
		assert.Equal(t, auxilia.HealthFailed, sb.Health.Status)

		w.fake.Fail("probe", nil)
		r := w.start(t, "t1")
		w.fake.Fail("reconnect", provider.Errorf(provider.ErrUnreachable, "fake", "reconnect", "connection refused"))
		_, err = w.app.Runs.Start(ctx, w.ws.ID, w.agent.ID, "t1")
		require.True(t, auxilia.IsCode(err, auxilia.CodeSandboxUnavailable))
		thread, err = w.app.Runs.Thread(ctx, w.ws.ID, w.agent.ID, "t1")
		require.NoError(t, err)
		require.NotNil(t, thread.Instance, "an unreachable provider does not cost the thread its instance")
		assert.Equal(t, r.InstanceRef, thread.Instance.ProviderRef)
	})
}

// New threads that create their instances at once share their sandbox's
// probe: the provider is asked once while it answers, not once a thread.
func TestNewThreadsCreatingAtOnceShareTheirProbe(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		w.fake.SetLatency(500 * time.Millisecond) // the starts' probes overlap
		const threads = 8
		var wg sync.WaitGroup
		errs := make([]error, threads)
		for i := range threads {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := w.app.Runs.Start(context.Background(), w.ws.ID, w.agent.ID, fmt.Sprintf("t%d", i))
				if err == nil && !r.Created {
					err = errors.New("the run did not create its instance")
				}
				errs[i] = err
			}()
		}
		wg.Wait()
		for _, err := range errs {
			require.NoError(t, err)
		}
		assert.Equal(t, threads, w.fake.Calls("create"))
		assert.Less(t, w.fake.Calls("probe"), threads, "the creates' probes were shared")
		t.Logf("%d creates, %d probes", w.fake.Calls("create"), w.fake.Calls("probe"))
	})
}

func TestAFailedPackageInstallLeavesNothingBehind(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		ctx := context.Background()
		_, err := w.app.Sandboxes.Patch(ctx, w.ws.ID, w.sandbox.ID, []byte(`{"config":{"default_packages":["pandas==2.2.*","numpy"]}}`), nil)
		require.NoError(t, err)
		var installed string
		w.fake.OnExecute(func(cmd string) (provider.ExecResult, bool) {
			if !strings.Contains(cmd, "pip install") {
				return provider.ExecResult{}, false
			}
			installed = cmd
			return provider.ExecResult{ExitCode: 1, Output: "ERROR: No matching distribution found for pandas==2.2.*"}, true
		})
		_, err = w.app.Runs.Start(ctx, w.ws.ID, w.agent.ID, "t1")
		require.True(t, auxilia.IsCode(err, auxilia.CodeSandboxUnavailable), "%v", err)
		assert.Contains(t, err.Error(), "No matching distribution found for pandas", "the installer's output is the reason")
		assert.Contains(t, installed, `'pandas==2.2.*' 'numpy'`, "packages are quoted")
		assert.Equal(t, []string{installed}, w.fake.Installs(), "marked as the install, which a provider may let reach the index")
		assert.Empty(t, w.fake.Live(), "the half-made instance was destroyed")
		thread, err := w.app.Runs.Thread(ctx, w.ws.ID, w.agent.ID, "t1")
		require.NoError(t, err)
		assert.Nil(t, thread.Instance)

		w.fake.OnExecute(func(cmd string) (provider.ExecResult, bool) {
			return provider.ExecResult{}, strings.Contains(cmd, "pip install")
		})
		r := w.start(t, "t1")
		assert.True(t, r.Created, "with the packages installable, the next run gets an instance")
	})
}

func TestOneInstancePerThreadUnderConcurrency(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		w.fake.SetLatency(30 * time.Millisecond)
		ctx := context.Background()
		const starts = 50
		var wg sync.WaitGroup
		errs := make([]error, starts)
		runs := make([]auxilia.Run, starts)
		for i := 0; i < starts; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				runs[i], errs[i] = w.app.Runs.Start(ctx, w.ws.ID, w.agent.ID, "busy")
			}()
		}
		wg.Wait()
		for _, err := range errs {
			require.NoError(t, err)
		}
		assert.Equal(t, 1, w.fake.Calls("create"), "exactly one instance for the thread")
		assert.Len(t, w.fake.Live(), 1)
		for _, r := range runs {
			assert.Equal(t, runs[0].InstanceRef, r.InstanceRef)
		}
		page, err := w.app.Runs.ListRuns(ctx, w.ws.ID, w.agent.ID, "busy", auxilia.PageRequest{Size: 100})
		require.NoError(t, err)
		active := 0
		for _, r := range page.Items {
			if r.Status == auxilia.RunActive {
				active++
			}
		}
		assert.Len(t, page.Items, starts)
		assert.Equal(t, 1, active, "one active run per thread")
	})
}

func TestRunsOnOtherThreadsDoNotWait(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		ctx := context.Background()
		release := make(chan struct{})
		var once sync.Once
		blocked := make(chan struct{})
		w.fake.OnCreate(func(ctx context.Context) {
			first := false
			once.Do(func() { first = true })
			if first {
				close(blocked)
				<-release
			}
		})
		done := make(chan error, 1)
		go func() {
			_, err := w.app.Runs.Start(ctx, w.ws.ID, w.agent.ID, "slow")
			done <- err
		}()
		<-blocked
		r := w.start(t, "quick") // would hang here if runs on other threads waited
		assert.True(t, r.Created)
		close(release)
		require.NoError(t, <-done)
	})
}

func TestThreadKeysAreChecked(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		for _, bad := range []string{"", "a b", "../x", strings.Repeat("a", 129), "x/y", "é"} {
			_, err := w.app.Runs.Start(context.Background(), w.ws.ID, w.agent.ID, bad)
			assert.True(t, auxilia.IsCode(err, auxilia.CodeInvalid), "%q: %v", bad, err)
		}
		w.start(t, "Conv-42_a.b:c")
	})
}

func sandboxInput(name string) sandbox.Input { return sandbox.Input{Name: name, Provider: "fake"} }
