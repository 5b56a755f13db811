package local

import (
	"encoding/json"
	"testing"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAConfigOfAnOlderVersionReadsTheSame(t *testing.T) {
	cfg, errs := provider.DecodeConfig(Kind{}, json.RawMessage(`{"network":true,"memory_mb":512,"disk_mb":2048,"max_processes":64}`))
	require.Empty(t, errs)
	c := cfg.(*Config)
	assert.Equal(t, provider.AllowNetwork(), c.Network)
	assert.Equal(t, provider.InstanceResources{MemoryMB: 512, DiskMB: 2048}, c.Resources)
	assert.Equal(t, 64, c.MaxProcesses)

	cfg, errs = provider.DecodeConfig(Kind{}, json.RawMessage(`{"network":false}`))
	require.Empty(t, errs)
	assert.True(t, cfg.(*Config).Network.Offline())
}

func TestTheJailsNetworkFollowsTheRules(t *testing.T) {
	offline := (&client{config: *DefaultConfig()}).jail(setupUser, "/srv/x", nil)
	assert.False(t, offline.Network, "offline by default")

	cfg := DefaultConfig()
	cfg.Network.Allow = []string{"pypi.org", "198.51.100.0/24"}
	cfg.Network.Deny = []string{"198.51.100.7"}
	j := (&client{config: *cfg}).jail(setupUser, "/srv/x", nil)
	assert.True(t, j.Network, "an allow list needs a way out")
	assert.Equal(t, bubblewrap.Egress{DenyByDefault: true, Allow: cfg.Network.Allow, Deny: cfg.Network.Deny}, j.Egress)
	assert.Equal(t, 1024, j.MemoryMB, "0 is the provider's default")
}

func TestRulesALocalJailCannotKeepAreRefused(t *testing.T) {
	cfg, errs := provider.DecodeConfig(Kind{}, json.RawMessage(`{"network":{"allow":["198.51.100.0/24","10.0.0.0/8","0.0.0.0/0"]},
		"default_packages":["rich"],"resources":{"cpu":0.001,"memory_mb":32}}`))
	require.Empty(t, errs)
	got := map[string]string{}
	for _, fe := range provider.ValidateConfig(Kind{}, cfg, provider.Policy{}) {
		got[fe.Field] = fe.Message
	}
	assert.Equal(t, map[string]string{
		"network.allow.1":     "reaches into private, loopback or link-local addresses, which Local sandboxes never reach",
		"network.allow.2":     "reaches into private, loopback or link-local addresses, which Local sandboxes never reach",
		"resources.cpu":       "must be 0 or from 0.01 to 64 on Local sandboxes",
		"resources.memory_mb": "must be 0 or from 64 to 65536 on Local sandboxes",
	}, got, "packages may come through an allow list")

	cfg, _ = provider.DecodeConfig(Kind{}, json.RawMessage(`{"default_packages":["pandas==2.2.*","matplotlib"]}`))
	assert.Empty(t, provider.ValidateConfig(Kind{}, cfg, provider.Policy{}),
		"offline, as the local default is: the install alone reaches the package index")
}

func TestThePackageIndexSettingIsChecked(t *testing.T) {
	for value, want := range map[string]string{
		"ftp://example.com/simple/":    `AUXILIA_LOCAL_PACKAGE_INDEX must be an http:// or https:// URL, not "ftp://example.com/simple/"`,
		"https:///simple/":             `AUXILIA_LOCAL_PACKAGE_INDEX must be an http:// or https:// URL, not "https:///simple/"`,
		"http://127.0.0.1:3141/simple": "AUXILIA_LOCAL_PACKAGE_INDEX http://127.0.0.1:3141/simple is on a private, loopback or link-local address, which local instances never reach",
		"http://10.1.2.3/simple":       "AUXILIA_LOCAL_PACKAGE_INDEX http://10.1.2.3/simple is on a private, loopback or link-local address, which local instances never reach",
	} {
		_, err := provider.ReadOperatorSettings(func(k string) string {
			if k == "AUXILIA_LOCAL_PACKAGE_INDEX" {
				return value
			}
			return ""
		}, Kind{})
		require.Error(t, err, value)
		assert.Contains(t, err.Error(), want)
	}
	values, err := provider.ReadOperatorSettings(func(string) string { return "" }, Kind{})
	require.NoError(t, err)
	assert.Equal(t, "https://pypi.org/simple/", ReadPackageIndex(values))

	pypi := packageIndex{}
	assert.Equal(t, bubblewrap.Egress{DenyByDefault: true, Allow: []string{"pypi.org", "files.pythonhosted.org"}}, pypi.egress())
	assert.Equal(t, []string{"PIP_INDEX_URL=https://pypi.org/simple/"}, pypi.env())
	own := packageIndex{"http://203.0.113.5:3141/root/pypi/+simple/"}
	assert.Equal(t, bubblewrap.Egress{DenyByDefault: true, Allow: []string{"203.0.113.5"}}, own.egress(), "the operator's index alone")
	assert.Equal(t, []string{"PIP_INDEX_URL=http://203.0.113.5:3141/root/pypi/+simple/", "PIP_TRUSTED_HOST=203.0.113.5"}, own.env())
}
