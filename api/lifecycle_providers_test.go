package api_test

import (
	"testing"

	"github.com/auxilia/sandboxes/pkg/gateway/gatewaytest"
	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
	"github.com/auxilia/sandboxes/pkg/provider/e2b/e2btest"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox/opensandboxtest"
	"github.com/stretchr/testify/require"
)

func TestThreadsKeepTheirWorkOnOpenSandbox(t *testing.T) {
	clock := &movedClock{}
	eachDB(t, func(t *testing.T, e *env) {
		fake := opensandboxtest.New(t, opensandboxtest.Options{})
		threadLifecycle(t, e, clock, lifecycleProvider{
			sandbox: func(*env) map[string]any {
				return map[string]any{"provider": "opensandbox", "url": fake.URL}
			},
			paused: func(_ *env, ref string) bool { return fake.Paused(ref) },
			expire: func(_ *env, ref string) { fake.Expire(ref) },
			calls:  fake.TotalCalls,
			kept:   func() int { return len(fake.Snapshots()) },
		})
	}, func(o *options) { o.run.Clock = clock.now })
}

func TestThreadsKeepTheirWorkOnDaytona(t *testing.T) {
	clock := &movedClock{}
	eachDB(t, func(t *testing.T, e *env) {
		fake, err := daytonatest.New(daytonatest.Options{})
		require.NoError(t, err)
		t.Cleanup(fake.Close)
		threadLifecycle(t, e, clock, lifecycleProvider{
			sandbox: func(*env) map[string]any {
				return map[string]any{"provider": "daytona", "url": fake.URL(), "secret": daytonatest.DefaultKey}
			},
			paused: func(_ *env, ref string) bool {
				state, _ := fake.State(ref)
				return state == "stopped"
			},
			expire: func(_ *env, ref string) { require.NoError(t, fake.Destroy(ref)) },
			calls:  func() int { return -1 },
			kept:   func() int { return len(fake.SnapshotNames()) },
			sized:  true,
		})
	}, func(o *options) { o.run.Clock = clock.now })
}

func TestThreadsKeepTheirWorkOnE2B(t *testing.T) {
	clock := &movedClock{}
	eachDB(t, func(t *testing.T, e *env) {
		fake := e2btest.Start(t, e2btest.Options{})
		threadLifecycle(t, e, clock, lifecycleProvider{
			sandbox: func(*env) map[string]any {
				return map[string]any{"provider": "e2b", "url": fake.URL(), "secret": e2btest.DefaultKey,
					"config": map[string]any{"envd_url": fake.EnvdURL()}}
			},
			paused: func(_ *env, ref string) bool { return fake.State(ref) == "paused" },
			expire: func(_ *env, ref string) {
				fake.SetAutoPause(ref, false)
				require.NoError(t, fake.Expire(ref))
			},
			calls: fake.TotalCalls,
			kept:  fake.Snapshots,
		})
	}, func(o *options) { o.run.Clock = clock.now })
}

// The real gateway, with a Cloud Storage emulator: a pause saves the
// workspace to the bucket and releases the sandbox, an expiry also loses
// that snapshot, and kept copies live under the prefix's kept/ folder.
func TestThreadsKeepTheirWorkOnCloudRun(t *testing.T) {
	const prefix = "threads/"
	clock := &movedClock{}
	eachDB(t, func(t *testing.T, e *env) {
		g := gatewaytest.Start(t, gatewaytest.NewGCS(t))
		calls := gatewaytest.CountCalls(t, g.URL)
		threadLifecycle(t, e, clock, lifecycleProvider{
			sandbox: func(*env) map[string]any {
				return map[string]any{"provider": "cloudrun", "url": calls.URL, "secret": gatewaytest.Secret,
					"config": map[string]any{"gcs_bucket": gatewaytest.Bucket, "snapshot_prefix": prefix}}
			},
			paused: func(_ *env, ref string) bool { return g.Paused(t, prefix, ref) },
			expire: func(_ *env, ref string) { g.Expire(t, prefix, ref) },
			calls:  calls.Total,
			kept:   func() int { return g.Kept(prefix) },
			sized:  true,
		})
	}, func(o *options) { o.run.Clock = clock.now })
}
