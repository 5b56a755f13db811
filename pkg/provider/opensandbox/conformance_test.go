package opensandbox_test

import (
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox/opensandboxtest"
	"github.com/auxilia/sandboxes/pkg/provider/providertest"
)

// The fake holds each command's stream open for execd's default second, so
// these runs also show that the client does not wait for it.

func TestConformanceThroughServerProxy(t *testing.T) {
	_, client := setup(t, opensandboxtest.Options{})
	providertest.Run(t, client)
}

func TestConformanceDirectToExecd(t *testing.T) {
	_, client := setup(t, opensandboxtest.Options{}, direct)
	providertest.Run(t, client)
}

func TestConformanceBridgeNetwork(t *testing.T) {
	_, client := setup(t, opensandboxtest.Options{BridgeNetwork: true}, direct)
	providertest.Run(t, client)
}

func TestConformanceKubernetesLikeController(t *testing.T) {
	_, client := setup(t, opensandboxtest.Options{PendingFor: 300 * time.Millisecond, ExecdStartDelay: 300 * time.Millisecond})
	providertest.Run(t, client)
}

func TestConformanceStates(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	providertest.RunStates(t, opensandbox.Kind{}.Describe(), client, fakeStates{fake})
}

// fakeStates puts the fake's containers in the states of the real ones.
type fakeStates struct{ *opensandboxtest.Server }

func (f fakeStates) Pause(_ *testing.T, id string) { f.SetState(id, opensandboxtest.Paused) }
func (f fakeStates) Exit(_ *testing.T, id string)  { f.SetState(id, opensandboxtest.Failed) }

func TestConformanceLifecycle(t *testing.T) {
	_, client := setup(t, opensandboxtest.Options{})
	providertest.RunLifecycle(t, client)
}

func TestConformanceLifecycleSlowSnapshots(t *testing.T) {
	_, client := setup(t, opensandboxtest.Options{SnapshotFor: 300 * time.Millisecond, PendingFor: 300 * time.Millisecond})
	providertest.RunLifecycle(t, client)
}

func (f fakeStates) RefuseCreates(t *testing.T) providertest.Refusal {
	const reason = "500 Server Error for http+docker://localhost/v1.47/containers/create: Internal Server Error (\"no space left on device\")"
	f.Server.RefuseCreates(reason)
	t.Cleanup(func() { f.Server.RefuseCreates("") })
	return providertest.Refusal{Kind: provider.ErrFailed, Words: "DOCKER::SANDBOX_START_FAILED: Failed to create or start container: " + reason,
		Asked: func() int { return f.Calls(opensandboxtest.OpCreate) }}
}
