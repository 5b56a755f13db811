package provider_test

import (
	"encoding/json"
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/cloudrun"
	"github.com/auxilia/sandboxes/pkg/provider/local"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The local and Cloud Run providers both run commands in bubblewrap: they
// refuse what it never reaches with one rule, in the same words; Cloud Run
// refuses default packages offline, where the local provider's install
// reaches the index whatever the rules.
func TestJailedProvidersRefuseWhatTheyNeverReachAlike(t *testing.T) {
	for _, c := range []struct {
		kind  provider.Kind
		title string
	}{{local.Kind{}, "Local"}, {cloudrun.Kind{}, "Cloud Run"}} {
		cfg, errs := provider.DecodeConfig(c.kind, json.RawMessage(`{"network":{"default":"deny","allow":["pypi.org","10.0.0.0/8"]}}`))
		require.Empty(t, errs)
		assert.Contains(t, provider.ValidateConfig(c.kind, cfg, provider.Policy{}), provider.FieldError{Field: "network.allow.1",
			Message: "reaches into private, loopback or link-local addresses, which " + c.title + " sandboxes never reach"}, c.title)

	}
	offline := json.RawMessage(`{"default_packages":["rich"],"network":{"default":"deny"}}`)
	cfg, errs := provider.DecodeConfig(cloudrun.Kind{}, offline)
	require.Empty(t, errs)
	assert.Equal(t, []provider.FieldError{{Field: "default_packages",
		Message: "need network access (set network.default to allow, or allow pypi.org and files.pythonhosted.org) so pip can download them"}},
		provider.ValidateConfig(cloudrun.Kind{}, cfg, provider.Policy{}))
	cfg, errs = provider.DecodeConfig(local.Kind{}, offline)
	require.Empty(t, errs)
	assert.Empty(t, provider.ValidateConfig(local.Kind{}, cfg, provider.Policy{}))
}
