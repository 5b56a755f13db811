package daytona_test

import (
	"context"
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/daytona"
	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// createdWith creates an instance with the settings configure makes and
// returns what the fake says it was created with.
func createdWith(t *testing.T, configure func(*daytona.Config)) daytonatest.Created {
	t.Helper()
	fake := daytonatest.Start(t, daytonatest.Options{})
	client := openClient(t, fake, daytonatest.DefaultKey, configure)
	inst, err := client.Create(context.Background(), provider.Labels{Workspace: "ws", Sandbox: "sb", Thread: "th"})
	require.NoError(t, err)
	got, ok := fake.Settings(inst.ID)
	require.True(t, ok)
	return got
}

func TestTheNetworkRulesGoToTheCreate(t *testing.T) {
	assert.Equal(t, daytonatest.Network{}, createdWith(t, func(*daytona.Config) {}).Network, "anywhere, as before")
	assert.Equal(t, daytonatest.Network{BlockAll: true}, createdWith(t, func(c *daytona.Config) { c.Network = provider.DenyNetwork() }).Network)
	assert.Equal(t, daytonatest.Network{AllowList: "198.51.100.0/24,203.0.113.7/32"}, createdWith(t, func(c *daytona.Config) {
		c.Network = provider.Network{Default: "deny", Allow: []string{"198.51.100.0/24", "203.0.113.7"}}
	}).Network, "an address is a network of one: Daytona wants a prefix length")
}

func TestEnvAndAutoArchiveGoToTheCreate(t *testing.T) {
	got := createdWith(t, func(c *daytona.Config) {
		c.Env = map[string]string{"PIP_INDEX_URL": "https://pypi.example/simple"}
		c.AutoArchiveInterval = 60
	})
	assert.Equal(t, map[string]string{"PIP_INDEX_URL": "https://pypi.example/simple"}, got.Env)
	assert.Equal(t, 60, got.AutoArchiveInterval)
	assert.Equal(t, 43200, createdWith(t, func(c *daytona.Config) { c.AutoArchiveInterval = 0 }).AutoArchiveInterval, "0 is Daytona's longest")
	assert.Equal(t, 10080, createdWith(t, func(*daytona.Config) {}).AutoArchiveInterval, "Daytona's own default")
}

func TestWhatDaytonaCannotEnforceIsRefusedAtSave(t *testing.T) {
	cfg, errs := provider.DecodeConfig(daytona.Kind{}, []byte(`{"network":{"default":"deny",
		"allow":["pypi.org","2001:db8::/32","198.51.100.0/24"],"deny":["203.0.113.7"]},
		"resources":{"cpu":1.5,"memory_mb":1000,"disk_mb":4096},"env":{"1BAD":"x","GOOD":"y"}}`))
	require.Empty(t, errs)
	got := map[string]string{}
	for _, fe := range provider.ValidateConfig(daytona.Kind{}, cfg, provider.Policy{}) {
		got[fe.Field] = fe.Message
	}
	assert.Equal(t, map[string]string{
		"network.allow.0":     "Daytona sandboxes cannot filter by domain; give an IP address or network",
		"network.allow.1":     "Daytona sandboxes cannot filter IPv6 addresses; give an IPv4 address or network",
		"network.deny":        "must be empty: Daytona sandboxes cannot deny chosen hosts (set the default to deny and list what is allowed)",
		"resources.cpu":       "must be a multiple of 1 on Daytona sandboxes",
		"resources.memory_mb": "must be 0 or from 1024 to 262144 on Daytona sandboxes",
		"resources.disk_mb":   `must be 0: Daytona sandboxes cannot set it (the snapshot sets it: Daytona says "Disk resize can only be performed on a stopped sandbox", and a new sandbox is resized while it runs)`,
		"env.1BAD":            "must be a variable name: letters, digits and underscores, not starting with a digit (at most 256 characters)",
	}, got)

	eleven := `{"network":{"default":"deny","allow":["198.51.100.0/32","198.51.100.1/32","198.51.100.2/32","198.51.100.3/32","198.51.100.4/32",
		"198.51.100.5/32","198.51.100.6/32","198.51.100.7/32","198.51.100.8/32","198.51.100.9/32","198.51.100.10/32"]}}`
	cfg, _ = provider.DecodeConfig(daytona.Kind{}, []byte(eleven))
	assert.Equal(t, []provider.FieldError{{Field: "network", Message: "may name at most 10 addresses or networks on Daytona sandboxes, not 11"}},
		provider.ValidateConfig(daytona.Kind{}, cfg, provider.Policy{}))
}

// The fake refuses what Daytona's API refuses, so a rule that slipped
// through would show.
func TestTheFakeRefusesAnAllowListDaytonaRefuses(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	client := openClient(t, fake, daytonatest.DefaultKey, func(c *daytona.Config) {
		c.Network = provider.Network{Default: "deny", Allow: []string{"2001:db8::/32"}}
	})
	_, err := client.Create(context.Background(), provider.Labels{Workspace: "ws", Sandbox: "sb", Thread: "th"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `Invalid IP address: "2001:db8::" in network "2001:db8::/32". Must be a valid IPv4 address`)
}
