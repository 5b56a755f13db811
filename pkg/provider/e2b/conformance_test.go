package e2b_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/e2b"
	"github.com/auxilia/sandboxes/pkg/provider/e2b/e2btest"
	"github.com/auxilia/sandboxes/pkg/provider/providertest"
)

func TestConformance(t *testing.T) {
	fake := e2btest.Start(t, e2btest.Options{})
	providertest.Run(t, openClient(t, fake, e2btest.DefaultKey))
}

func TestConformanceLifecycle(t *testing.T) {
	fake := e2btest.Start(t, e2btest.Options{})
	providertest.RunLifecycle(t, openClient(t, fake, e2btest.DefaultKey))
}

func TestConformanceTerminal(t *testing.T) {
	_, client, inst := started(t)
	providertest.RunTerminal(t, client, inst)
}

func TestConformanceStates(t *testing.T) {
	fake := e2btest.Start(t, e2btest.Options{})
	providertest.RunStates(t, e2b.Kind{}.Describe(), openClient(t, fake, e2btest.DefaultKey), fakeStates{fake})
}

// fakeStates puts the fake's sandboxes in the states E2B leaves them in.
type fakeStates struct{ *e2btest.Server }

// Pause is the end of a lifetime with autoPause, as the config asks by default.
func (f fakeStates) Pause(t *testing.T, id string) { require.NoError(t, f.Expire(id)) }

// Exit is the end of a lifetime without autoPause: E2B kills the sandbox.
func (f fakeStates) Exit(t *testing.T, id string) {
	f.Server.SetAutoPause(id, false)
	require.NoError(t, f.Expire(id))
}

// RefuseCreates holds the team to no more sandboxes than run now.
func (f fakeStates) RefuseCreates(t *testing.T) providertest.Refusal {
	f.SetConcurrency(-1)
	t.Cleanup(func() { f.SetConcurrency(0) })
	return providertest.Refusal{Kind: provider.ErrQuota, Words: "you have reached the maximum number of concurrent E2B sandboxes",
		Asked: func() int { return f.Calls(e2btest.OpCreate) }}
}
