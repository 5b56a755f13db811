package run_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recorded keeps the steps a start reports, safe for concurrent starts.
type recorded struct {
	mu    sync.Mutex
	steps []run.Step
}

func (r *recorded) progress() run.Progress {
	return run.Progress{OnStep: func(s run.Step, detail string) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if detail != "" {
			r.steps = append(r.steps, s)
		}
	}}
}

func (r *recorded) got() []run.Step {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]run.Step(nil), r.steps...)
}

// A start tells its steps in order: a cold one probes and creates, a warm
// one reconnects, and one that finds another run creating the thread's
// instance waits for it.
func TestAStartReportsItsSteps(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		ctx := context.Background()
		var cold, warm recorded
		_, err := w.app.Runs.StartReporting(ctx, w.ws.ID, w.agent.ID, "t1", cold.progress())
		require.NoError(t, err)
		assert.Equal(t, []run.Step{run.StepProbing, run.StepCreating, run.StepReady}, cold.got())
		_, err = w.app.Runs.StartReporting(ctx, w.ws.ID, w.agent.ID, "t1", warm.progress())
		require.NoError(t, err)
		assert.Equal(t, []run.Step{run.StepReconnecting, run.StepReady}, warm.got())

		w.fake.SetLatency(200 * time.Millisecond)
		var first, second recorded
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := w.app.Runs.StartReporting(ctx, w.ws.ID, w.agent.ID, "t2", first.progress())
			assert.NoError(t, err)
		}()
		require.Eventually(t, func() bool { return len(first.got()) >= 2 }, 10*time.Second, 5*time.Millisecond, "the first start is creating")
		_, err = w.app.Runs.StartReporting(ctx, w.ws.ID, w.agent.ID, "t2", second.progress())
		require.NoError(t, err)
		wg.Wait()
		assert.Equal(t, []run.Step{run.StepWaiting, run.StepReconnecting, run.StepReady}, second.got())
	})
}
