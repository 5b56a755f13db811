package api_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/faultproxy"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox/opensandboxtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A provider that accepts connections and never answers (a fault proxy in
// front of it blackholes them) holds up its own sandbox's pool only: another
// workspace's pool on a healthy provider is made meanwhile, and each view
// says what is on its way.
func TestAProviderThatNeverAnswersStallsNoOtherPool(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		stuck, healthy := opensandboxtest.New(t, opensandboxtest.Options{}), opensandboxtest.New(t, opensandboxtest.Options{})
		proxy := faultproxy.New(t, strings.TrimPrefix(stuck.URL, "http://"))
		pool := map[string]any{"pool": map[string]any{"size": 1}}
		stuckSB := e.createSandbox(map[string]any{"name": "Stuck", "provider": "opensandbox",
			"url": "http://" + proxy.Addr(), "config": pool})
		r := e.call("POST", "/api/v1/sandboxes", e.foreign, map[string]any{"name": "Healthy", "provider": "opensandbox",
			"url": healthy.URL, "config": pool})
		require.Equal(t, 201, r.StatusCode, "%s", r.body)
		healthySB := r.json(t)
		proxy.Blackhole(t)

		pass, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = e.app.Runs.KeepPools(pass)
		}()
		defer func() {
			proxy.Heal(t) // what the cut-short create leaves is cleaned up at once
			cancel()
			<-done
		}()
		poolOf := func(token string, sb map[string]any) map[string]any {
			return e.call("GET", "/api/v1/sandboxes/"+sb["id"].(string), token, nil).json(t)["pool"].(map[string]any)
		}
		require.Eventually(t, func() bool { return poolOf(e.foreign, healthySB)["ready"] == float64(1) }, 20*time.Second,
			50*time.Millisecond, "the healthy provider's pool waited for the one that never answers")
		assert.Equal(t, "ready", poolOf(e.foreign, healthySB)["state"])
		require.Eventually(t, func() bool { return poolOf(e.admin, stuckSB)["creating"] == float64(1) }, 10*time.Second, 50*time.Millisecond)
		assert.Equal(t, "creating", poolOf(e.admin, stuckSB)["state"])
		select {
		case <-done:
			t.Fatal("the pass ended before the stuck create's deadline")
		default:
		}
	}, func(o *options) { o.run.CreateLease = time.Minute })
}
