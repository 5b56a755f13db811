package e2b_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/e2b"
	"github.com/auxilia/sandboxes/pkg/provider/e2b/e2btest"
)

// createdWith creates an instance with the settings configure makes and
// returns the create's body as the fake got it.
func createdWith(t *testing.T, configure func(*e2b.Config)) e2btest.NewSandbox {
	t.Helper()
	fake, _, _ := started(t, configure)
	created := fake.Created()
	require.Len(t, created, 1)
	return created[0]
}

func TestTheNetworkRulesGoToTheCreate(t *testing.T) {
	got := createdWith(t, func(c *e2b.Config) { c.Network = provider.DenyNetwork() })
	require.NotNil(t, got.AllowInternet)
	assert.False(t, *got.AllowInternet, "nowhere: allow_internet_access off")
	assert.Nil(t, got.Network)

	got = createdWith(t, func(c *e2b.Config) {
		c.Network = provider.Network{Default: "deny", Allow: []string{"pypi.org", "*.example.com", "203.0.113.7"}}
	})
	assert.Nil(t, got.AllowInternet)
	require.NotNil(t, got.Network)
	assert.Equal(t, []string{"pypi.org", "*.example.com", "203.0.113.7"}, got.Network.AllowOut)
	assert.Equal(t, []string{"0.0.0.0/0"}, got.Network.DenyOut, "everything else denied; E2B's allow beats its deny")

	got = createdWith(t, func(c *e2b.Config) {
		c.Network = provider.Network{Default: "allow", Deny: []string{"198.51.100.0/24", "203.0.113.7"}}
	})
	require.NotNil(t, got.Network)
	assert.Empty(t, got.Network.AllowOut)
	assert.Equal(t, []string{"198.51.100.0/24", "203.0.113.7/32"}, got.Network.DenyOut)
}

func TestWhatE2BCannotDoIsRefusedAtSave(t *testing.T) {
	cfg, errs := provider.DecodeConfig(e2b.Kind{}, []byte(`{"network":{"default":"allow","deny":["evil.example","2001:db8::/32"]},
		"resources":{"cpu":2,"memory_mb":1024}}`))
	require.Empty(t, errs)
	got := map[string]string{}
	for _, fe := range provider.ValidateConfig(e2b.Kind{}, cfg, provider.Policy{}) {
		got[fe.Field] = fe.Message
	}
	assert.Equal(t, map[string]string{
		"network.deny.0":      "E2B sandboxes cannot deny a domain; give an IP address or network",
		"network.deny.1":      "E2B sandboxes cannot filter IPv6 addresses; give an IPv4 address or network",
		"resources.cpu":       "must be 0: E2B sandboxes cannot set it (E2B takes it from the template)",
		"resources.memory_mb": "must be 0: E2B sandboxes cannot set it (E2B takes it from the template)",
	}, got)

	cfg, _ = provider.DecodeConfig(e2b.Kind{}, []byte(`{"network":{"default":"deny","allow":["198.51.100.0/24"],"deny":["198.51.100.7"]}}`))
	assert.Equal(t, []provider.FieldError{{Field: "network.deny.0",
		Message: "must be empty when the default is deny: E2B lets an allowed destination through even when a deny names it"}},
		provider.ValidateConfig(e2b.Kind{}, cfg, provider.Policy{}))

	cfg, _ = provider.DecodeConfig(e2b.Kind{}, []byte(`{"template":""}`))
	fields := map[string]bool{}
	for _, fe := range provider.ValidateConfig(e2b.Kind{}, cfg, provider.Policy{}) {
		fields[fe.Field] = true
	}
	assert.True(t, fields["template"], "a template is required")
}

func TestEnvdsURLFollowsTheServersRulesForURLs(t *testing.T) {
	cfg, errs := provider.DecodeConfig(e2b.Kind{}, []byte(`{"envd_url":"http://127.0.0.1:49983"}`))
	require.Empty(t, errs)
	assert.Empty(t, provider.ValidateConfig(e2b.Kind{}, cfg, provider.Policy{}), "a self-hosted envd on this network")
	assert.Equal(t, []provider.FieldError{{Field: "envd_url", Message: "must not point at a loopback or private address on this server"}},
		provider.ValidateConfig(e2b.Kind{}, cfg, provider.Policy{BlockPrivateURLs: true}))
	cfg, _ = provider.DecodeConfig(e2b.Kind{}, []byte(`{"envd_url":"http://169.254.169.254/"}`))
	assert.Equal(t, []provider.FieldError{{Field: "envd_url", Message: "must not point at a cloud metadata service"}},
		provider.ValidateConfig(e2b.Kind{}, cfg, provider.Policy{}))
}
