package sandbox

import (
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/stretchr/testify/assert"
)

// A burst of runs probing one sandbox records its healthy state once; a
// failure is always recorded, and the next success after it too, whoever
// recorded the failure.
func TestRunsRecordAnUnchangedHealthyStateOnce(t *testing.T) {
	h := newRunHealth()
	now := time.Now()
	unchecked := auxilia.Sandbox{ID: "sb"}
	assert.True(t, h.due(unchecked, true, now), "the first success of a burst is recorded")
	assert.False(t, h.due(unchecked, true, now.Add(time.Millisecond)), "the others of the burst read the sandbox before it was")

	recorded := now.Add(2 * time.Millisecond)
	healthy := auxilia.Sandbox{ID: "sb", Health: auxilia.Health{Status: auxilia.HealthOK, CheckedAt: &recorded}}
	assert.False(t, h.due(healthy, true, now.Add(time.Second)))
	assert.True(t, h.due(healthy, true, now.Add(runHealthEvery+time.Second)), "an unchanged state is recorded again in time")

	later := now.Add(runHealthEvery + 2*time.Second)
	failedByHealthJob := auxilia.Sandbox{ID: "sb", Health: auxilia.Health{Status: auxilia.HealthFailed, CheckedAt: &later}}
	assert.True(t, h.due(failedByHealthJob, true, later.Add(time.Second)), "a success after another's failure is recorded")

	assert.True(t, h.due(unchecked, false, later.Add(2*time.Second)), "a failure always is")
	assert.True(t, h.due(unchecked, true, later.Add(3*time.Second)), "and the success after it")
}
