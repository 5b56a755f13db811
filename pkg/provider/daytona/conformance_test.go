package daytona_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
	"github.com/auxilia/sandboxes/pkg/provider/providertest"
)

func TestConformance(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{Transition: 2})
	providertest.Run(t, openClient(t, fake, daytonatest.DefaultKey))
}

func TestConformanceLifecycle(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{Transition: 2})
	providertest.RunLifecycle(t, openClient(t, fake, daytonatest.DefaultKey))
}

// A VM-class sandbox is paused, not stopped: the lifecycle holds through
// "pausing" and "paused" too.
func TestConformanceLifecyclePausing(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{Transition: 2, SandboxClass: "linux-vm"})
	providertest.RunLifecycle(t, openClient(t, fake, daytonatest.DefaultKey))
	assert.Positive(t, fake.Calls(daytonatest.OpPauseSandbox))
	assert.Zero(t, fake.Calls(daytonatest.OpStopSandbox), "a VM is paused, never stopped")
}

func TestConformanceTerminal(t *testing.T) {
	_, client, inst := started(t, daytonatest.Options{})
	providertest.RunTerminal(t, client, inst)
}
