package local

import (
	"os/exec"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestForkBombEndsTheCommandOnly(t *testing.T) {
	eachIsolation(t, func(t *testing.T, isolation string) {
		c := newIsolatedClient(t, isolation, func(cfg *Config) { cfg.MaxProcesses = 16 })
		inst := c.create(t)
		start := time.Now()
		res := c.execFor(t, inst, "sleep "+marker+" & bomb() { bomb | bomb & }; bomb; wait", 3*time.Second)
		// Held at the limit until the timeout, or sooner over when every fork
		// past the limit has failed and the shells gave up.
		if !res.TimedOut {
			assert.Contains(t, res.Output, "Cannot fork")
		} else {
			assert.Equal(t, provider.TimeoutExitCode, res.ExitCode)
		}
		assert.Less(t, time.Since(start), 20*time.Second)
		assert.Empty(t, leftovers(), "nothing of the bomb is left")
		require.NoError(t, exec.Command("true").Run(), "the server still starts processes")
		assert.Equal(t, "alive\n", c.exec(t, inst, "echo alive").Output, "and the instance still works")
	})
}

func TestProcessLimit(t *testing.T) {
	eachIsolation(t, func(t *testing.T, isolation string) {
		c := newIsolatedClient(t, isolation, func(cfg *Config) { cfg.MaxProcesses = 8 })
		res := c.exec(t, c.create(t), "for i in $(seq 20); do sleep "+marker+" & done; echo all started")
		assert.NotEqual(t, 0, res.ExitCode, "the shell cannot fork past the limit")
		assert.NotContains(t, res.Output, "all started")
		assert.Contains(t, res.Output, "fork")
		assert.Empty(t, leftovers())
	})
}

func TestRunawayAllocationEndsTheCommand(t *testing.T) {
	eachIsolation(t, func(t *testing.T, isolation string) {
		c := newIsolatedClient(t, isolation, func(cfg *Config) { cfg.Resources.MemoryMB = 128 })
		inst := c.create(t)
		res := c.exec(t, inst, "python3 -c '\nx = []\nwhile True: x.append(bytearray(1 << 20))'")
		assert.NotEqual(t, 0, res.ExitCode)
		assert.Contains(t, res.Output, "MemoryError")
		assert.Equal(t, "32\n", c.exec(t, inst, "python3 -c 'print(len(bytearray(32 << 20)) >> 20)'").Output,
			"allocations within the limit work")
	})
}

func TestBackgroundProcessesDoNotOutliveTheirCommand(t *testing.T) {
	eachIsolation(t, func(t *testing.T, isolation string) {
		c := newIsolatedClient(t, isolation)
		inst := c.create(t)
		start := time.Now()
		res := c.exec(t, inst, "sleep "+marker+" & nohup sleep "+marker+" >/dev/null 2>&1 & echo started")
		assert.Equal(t, "started\n", res.Output)
		assert.Less(t, time.Since(start), 10*time.Second)
		assert.Empty(t, leftovers())
	})
}

func TestTimeoutKillsTheWholeProcessGroup(t *testing.T) {
	eachIsolation(t, func(t *testing.T, isolation string) {
		c := newIsolatedClient(t, isolation)
		inst := c.create(t)
		res := c.execFor(t, inst, "(sleep "+marker+"; echo late) & sleep "+marker+" | cat; echo never", time.Second)
		assert.True(t, res.TimedOut)
		assert.Equal(t, "Command timed out after 1 seconds", res.Output)
		assert.Empty(t, leftovers(), "every process of the command ended")
	})
}

func TestCommandTimeoutIsCappedByTheConfig(t *testing.T) {
	c := newClient(t, func(cfg *Config) { cfg.Timeout = 1 })
	res := c.execFor(t, c.create(t), "sleep "+marker, time.Hour)
	assert.True(t, res.TimedOut)
	assert.Equal(t, "Command timed out after 1 seconds", res.Output)
}
