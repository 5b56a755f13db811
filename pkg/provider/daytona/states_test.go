package daytona_test

import (
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/daytona"
	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
	"github.com/auxilia/sandboxes/pkg/provider/providertest"
	"github.com/stretchr/testify/require"
)

func TestConformanceStates(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{Transition: 2})
	providertest.RunStates(t, daytona.Kind{}.Describe(), openClient(t, fake, daytonatest.DefaultKey), fakeStates{fake})
}

// fakeStates puts the fake's sandboxes in the states Daytona leaves them in.
type fakeStates struct{ *daytonatest.Server }

// Pause is Daytona's auto-stop.
func (f fakeStates) Pause(t *testing.T, id string) { require.NoError(t, f.Stop(id)) }

// Exit is a sandbox broken for good: state error, not recoverable.
func (f fakeStates) Exit(t *testing.T, id string) { require.NoError(t, f.Break(id, "runner lost")) }

// RefuseCreates gives the organisation less disk than one sandbox takes.
func (f fakeStates) RefuseCreates(t *testing.T) providertest.Refusal {
	f.SetQuota(daytonatest.Quota{Disk: 2})
	t.Cleanup(func() { f.SetQuota(daytonatest.Quota{}) })
	return providertest.Refusal{Kind: provider.ErrQuota, Words: "Total disk limit exceeded. Maximum allowed: 2GiB.",
		Asked: func() int { return f.Calls(daytonatest.OpCreateSandbox) }}
}
