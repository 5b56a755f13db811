package opensandbox_test

import (
	"context"
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox/opensandboxtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOpenRefusesWhatIsNotASandbox(t *testing.T) {
	_, err := opensandbox.Kind{}.Open(provider.Settings{URL: "http://127.0.0.1:1", Config: nil})
	assert.Error(t, err)
	_, err = opensandbox.Kind{}.Open(provider.Settings{URL: "not a url", Config: opensandbox.DefaultConfig()})
	assert.Error(t, err)
	_, err = opensandbox.Kind{}.Open(provider.Settings{URL: "http://127.0.0.1:1", Config: opensandbox.DefaultConfig()})
	assert.NoError(t, err, "the zero Kind is ready to use")
}

// The operator's policy applies to every address dialled, so a controller
// (or an endpoint it names) on a private address is refused when private
// addresses are.
func TestPolicyAppliesToEveryDial(t *testing.T) {
	fake := opensandboxtest.New(t, opensandboxtest.Options{})
	client, err := opensandbox.Kind{}.Open(provider.Settings{URL: fake.URL, Config: opensandbox.DefaultConfig(),
		Policy: provider.Policy{BlockPrivateURLs: true}})
	require.NoError(t, err)
	err = client.Probe(context.Background())
	require.ErrorIs(t, err, provider.ErrUnreachable)
	assert.Contains(t, err.Error(), "refused to dial")
	assert.Zero(t, fake.TotalCalls())
}
