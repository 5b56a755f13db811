package agentsandbox

import (
	"encoding/json"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// policyJSON is the image's NetworkPolicy for a network, as the template
// carries it.
func policyJSON(t *testing.T, n provider.Network) string {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Network = n
	raw, err := json.Marshal(cfg.networkPolicy())
	require.NoError(t, err)
	return string(raw)
}

// theServerIn is the ingress every image's policy has: this server's pods,
// in any namespace, to sandboxd's two ports.
const theServerIn = `"ingress":[{"from":[{"namespaceSelector":{},"podSelector":{"matchLabels":{"auxilia/server":"true"}}}],
	"ports":[{"protocol":"TCP","port":9090},{"protocol":"TCP","port":8080}]}]`

// theClusterDNS is the egress rule to the cluster's DNS pods.
const theClusterDNS = `{"to":[{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"kube-system"}},
	"podSelector":{"matchLabels":{"k8s-app":"kube-dns"}}}],"ports":[{"protocol":"UDP","port":53},{"protocol":"TCP","port":53}]}`

// The walled networks, as each default-allow block excepts them.
const (
	walledV4 = `"10.0.0.0/8","100.64.0.0/10","127.0.0.0/8","169.254.0.0/16","172.16.0.0/12","192.168.0.0/16"`
	walledV6 = `"::1/128","fc00::/7","fe80::/10"`
)

func TestAllowingByDefaultReachesEverythingButTheWalledNetworksAndTheDenies(t *testing.T) {
	assert.JSONEq(t, `{`+theServerIn+`,"egress":[{"to":[
		{"ipBlock":{"cidr":"0.0.0.0/0","except":[`+walledV4+`]}},
		{"ipBlock":{"cidr":"::/0","except":[`+walledV6+`]}}]},`+theClusterDNS+`]}`,
		policyJSON(t, provider.AllowNetwork()))

	n := provider.AllowNetwork()
	n.Deny = []string{"203.0.113.7", "198.51.100.0/24", "2001:db8::/32", "10.1.0.0/16"}
	assert.JSONEq(t, `{`+theServerIn+`,"egress":[{"to":[
		{"ipBlock":{"cidr":"0.0.0.0/0","except":["10.0.0.0/8","100.64.0.0/10","127.0.0.0/8","169.254.0.0/16","172.16.0.0/12",
			"192.168.0.0/16","198.51.100.0/24","203.0.113.7/32"]}},
		{"ipBlock":{"cidr":"::/0","except":["::1/128","2001:db8::/32","fc00::/7","fe80::/10"]}}]},`+theClusterDNS+`]}`,
		policyJSON(t, n), "each deny an except of its family's block, sorted; one inside a walled network is that network's")
}

func TestDenyingByDefaultReachesEachAllowedNetworkButItsDenies(t *testing.T) {
	n := provider.DenyNetwork()
	n.Allow = []string{"198.51.100.0/24", "203.0.113.9", "2001:db8::/32"}
	n.Deny = []string{"198.51.100.128/25", "198.51.100.7", "2001:db8:1::/48", "192.0.2.0/24"}
	assert.JSONEq(t, `{`+theServerIn+`,"egress":[{"to":[
		{"ipBlock":{"cidr":"198.51.100.0/24","except":["198.51.100.7/32","198.51.100.128/25"]}},
		{"ipBlock":{"cidr":"203.0.113.9/32"}},
		{"ipBlock":{"cidr":"2001:db8::/32","except":["2001:db8:1::/48"]}}]},`+theClusterDNS+`]}`,
		policyJSON(t, n), "a deny outside every allowed network is no except")
}

func TestDenyingEverythingLetsThePodsConnectNowhere(t *testing.T) {
	assert.JSONEq(t, `{`+theServerIn+`}`, policyJSON(t, provider.DenyNetwork()), "no egress rule: not even DNS")

	n := provider.DenyNetwork()
	n.Allow = []string{"198.51.100.0/24", "2001:db8::1"}
	n.Deny = []string{"198.51.100.0/24", "2001:db8::/64"}
	assert.JSONEq(t, `{`+theServerIn+`}`, policyJSON(t, n), "every allowed network denied whole: nothing is allowed")

	n = provider.AllowNetwork()
	n.Deny = []string{"0.0.0.0/0", "::/0"}
	assert.JSONEq(t, `{`+theServerIn+`}`, policyJSON(t, n))
}

// An except outside its cidr, or its cidr itself, is refused by the API
// server: the blocks never carry one.
func TestAnExceptIsAlwaysStrictlyInsideItsCIDR(t *testing.T) {
	p := netip.MustParsePrefix
	blocks := ipBlocks([]netip.Prefix{p("198.51.100.0/24"), p("203.0.113.0/24"), p("192.0.2.0/24")},
		[]netip.Prefix{p("198.51.0.0/16"), p("203.0.113.0/24"), p("192.0.2.0/25"), p("198.18.0.0/15"), p("2001:db8::/32")})
	require.Len(t, blocks, 1, "a network inside a deny, or equal to it, is left out")
	assert.Equal(t, &ipBlock{CIDR: "192.0.2.0/24", Except: []string{"192.0.2.0/25"}}, blocks[0].IPBlock)

	assert.True(t, strictlyInside(p("192.0.2.0/25"), p("192.0.2.0/24")))
	assert.False(t, strictlyInside(p("192.0.2.0/24"), p("192.0.2.0/24")), "the cidr itself")
	assert.False(t, strictlyInside(p("192.0.3.0/25"), p("192.0.2.0/24")), "beside it")
	assert.False(t, strictlyInside(p("192.0.0.0/16"), p("192.0.2.0/24")), "around it")
	assert.False(t, strictlyInside(p("::/96"), p("0.0.0.0/0")), "of the other family")

	blocks = ipBlocks([]netip.Prefix{p("::/0")}, []netip.Prefix{p("fc00::/7"), p("fd00::/8"), p("fc00::/7")})
	assert.Equal(t, []string{"fc00::/7"}, blocks[0].IPBlock.Except, "an except inside another, or twice, is said once")
}

func TestTheWalledNetworksAreTheClustersOwn(t *testing.T) {
	for _, s := range []string{"10.96.0.10/32", "100.64.0.0/10", "127.0.0.1/32", "169.254.169.254/32", "172.20.0.0/16",
		"192.168.1.0/24", "::1/128", "fd00:ec2::254/128", "fe80::1/128", "0.0.0.0/0", "::/0"} {
		assert.True(t, walled(netip.MustParsePrefix(s)), s)
	}
	for _, s := range []string{"198.51.100.0/24", "8.8.8.8/32", "2001:db8::/32", "172.32.0.0/16"} {
		assert.False(t, walled(netip.MustParsePrefix(s)), s)
	}
}

// The kept template is written again when its network changes, and only
// then (the API server's answer may order keys otherwise).
func TestATemplateIsRewrittenWhenItsNetworkChanges(t *testing.T) {
	cfg := DefaultConfig()
	want := templateSpec{blueprint: cfg.imageBlueprint(), NetworkPolicy: cfg.networkPolicy(), NetworkPolicyManagement: policyManaged}
	raw, err := json.Marshal(want)
	require.NoError(t, err)
	var have templateSpec
	require.NoError(t, json.Unmarshal(raw, &have))
	assert.True(t, sameSpec(have, want))

	cfg.Network.Deny = []string{"203.0.113.0/24"}
	assert.False(t, sameSpec(have, templateSpec{blueprint: cfg.imageBlueprint(), NetworkPolicy: cfg.networkPolicy(),
		NetworkPolicyManagement: policyManaged}), "a deny more")

	unmanaged := have
	unmanaged.NetworkPolicyManagement = "Unmanaged"
	assert.False(t, sameSpec(unmanaged, want), "a policy left to others")
	var none templateSpec
	require.NoError(t, json.Unmarshal([]byte(`{"podTemplate":`+string(want.PodTemplate)+`}`), &none))
	assert.False(t, sameSpec(none, want), "a template written before it had a network")
}
