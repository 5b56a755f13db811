package agentsandbox

import (
	"context"
	"net/http"
	"net/netip"
	"slices"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// The parts of a NetworkPolicy's spec (k8s.io/api/networking/v1) that a
// SandboxTemplate's networkPolicy holds: its rules, the pods being the
// template's (the controller sets the podSelector and both policy types).
type networkPolicy struct {
	Ingress []ingressRule `json:"ingress,omitempty"`
	// Egress, left empty, lets the pods connect nowhere.
	Egress []egressRule `json:"egress,omitempty"`
}

type ingressRule struct {
	From  []policyPeer `json:"from,omitempty"`
	Ports []policyPort `json:"ports,omitempty"`
}

type egressRule struct {
	To    []policyPeer `json:"to,omitempty"`
	Ports []policyPort `json:"ports,omitempty"`
}

type policyPeer struct {
	IPBlock           *ipBlock       `json:"ipBlock,omitempty"`
	NamespaceSelector *labelSelector `json:"namespaceSelector,omitempty"`
	PodSelector       *labelSelector `json:"podSelector,omitempty"`
}

// labelSelector selects by labels; empty, it selects everything.
type labelSelector struct {
	MatchLabels map[string]string `json:"matchLabels,omitempty"`
}

type ipBlock struct {
	CIDR   string   `json:"cidr"`
	Except []string `json:"except,omitempty"`
}

type policyPort struct {
	Protocol string `json:"protocol"`
	Port     int    `json:"port"`
}

// serverLabel marks this server's pods (the Helm chart sets it): they are
// let in to sandboxd's ports when they reach pods by IP. A port-forward
// enters the pod through the kubelet, which no NetworkPolicy stops.
const serverLabel = labelPrefix + "server"

// clusterDNS are the cluster's DNS pods (CoreDNS and kube-dns alike carry
// k8s-app=kube-dns in kube-system), which a pod that may connect anywhere
// must reach to resolve names.
var clusterDNS = policyPeer{
	NamespaceSelector: &labelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "kube-system"}},
	PodSelector:       &labelSelector{MatchLabels: map[string]string{"k8s-app": "kube-dns"}},
}

// walledNetworks are what a sandbox's pod never connects to, whatever its
// rules: private, shared (CGNAT), loopback and link-local networks, where
// the cluster's own pods, services, nodes and the cloud's metadata server
// live.
var walledNetworks = []netip.Prefix{
	netip.MustParsePrefix("10.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("127.0.0.0/8"),
	netip.MustParsePrefix("169.254.0.0/16"),
	netip.MustParsePrefix("172.16.0.0/12"),
	netip.MustParsePrefix("192.168.0.0/16"),
	netip.MustParsePrefix("::1/128"),
	netip.MustParsePrefix("fc00::/7"),
	netip.MustParsePrefix("fe80::/10"),
}

// walled reports whether p reaches into walledNetworks: an allow rule
// there could let nothing through.
func walled(p netip.Prefix) bool {
	return slices.ContainsFunc(walledNetworks, p.Overlaps)
}

// everywhere are the networks of every address.
var everywhere = []netip.Prefix{netip.MustParsePrefix("0.0.0.0/0"), netip.MustParsePrefix("::/0")}

// networkPolicy is the policy of an image's pods: this server's pods let
// in to sandboxd; out, what the config's network allows, outside the
// walled networks and its denies, and the cluster's DNS when anything is.
func (c *Config) networkPolicy() *networkPolicy {
	p := &networkPolicy{Ingress: []ingressRule{{
		From:  []policyPeer{{NamespaceSelector: &labelSelector{}, PodSelector: &labelSelector{MatchLabels: map[string]string{serverLabel: "true"}}}},
		Ports: []policyPort{{Protocol: "TCP", Port: grpcPort}, {Protocol: "TCP", Port: restPort}},
	}}}
	allowed := everywhere
	if c.Network.Default != provider.EgressAllow {
		allowed = prefixes(c.Network.Allow)
	}
	blocks := ipBlocks(allowed, append(slices.Clone(walledNetworks), prefixes(c.Network.Deny)...))
	if len(blocks) == 0 {
		return p
	}
	p.Egress = []egressRule{
		{To: blocks},
		{To: []policyPeer{clusterDNS}, Ports: []policyPort{{Protocol: "UDP", Port: 53}, {Protocol: "TCP", Port: 53}}},
	}
	return p
}

// prefixes are the networks of a list of targets (validation refused
// domains).
func prefixes(list []string) []netip.Prefix {
	var out []netip.Prefix
	for _, t := range provider.Targets(list) {
		if !t.IsDomain() {
			out = append(out, t.Prefix)
		}
	}
	return out
}

// ipBlocks are the allowed networks, each without the denied networks
// inside it. The API server takes an except only strictly inside its
// cidr: an allowed network a deny covers whole is left out, and a deny
// that covers none of it is not its except.
func ipBlocks(allowed, denied []netip.Prefix) []policyPeer {
	var out []policyPeer
	for _, a := range allowed {
		if slices.ContainsFunc(denied, func(d netip.Prefix) bool { return covers(d, a) }) {
			continue
		}
		var except []netip.Prefix
		for _, d := range denied {
			if !strictlyInside(d, a) || slices.ContainsFunc(denied, func(o netip.Prefix) bool { return o != d && covers(o, d) }) {
				continue // outside, or inside a larger except
			}
			if !slices.Contains(except, d) {
				except = append(except, d)
			}
		}
		slices.SortFunc(except, func(x, y netip.Prefix) int { return x.Addr().Compare(y.Addr()) })
		block := &ipBlock{CIDR: a.String()}
		for _, e := range except {
			block.Except = append(block.Except, e.String())
		}
		out = append(out, policyPeer{IPBlock: block})
	}
	return out
}

// covers reports whether every address of inner is in outer.
func covers(outer, inner netip.Prefix) bool {
	return outer.Addr().Is4() == inner.Addr().Is4() && outer.Bits() <= inner.Bits() && outer.Contains(inner.Addr())
}

// strictlyInside reports whether inner is a smaller network within outer,
// as an ipBlock's except must be (ValidateIPBlock in
// k8s.io/kubernetes/pkg/apis/networking/validation).
func strictlyInside(inner, outer netip.Prefix) bool {
	return covers(outer, inner) && inner.Bits() > outer.Bits()
}

var _ provider.NetworkUpdater = (*Client)(nil)

// UpdateNetwork applies the config's network to a running instance. Its
// rules are the NetworkPolicy of the image's SandboxTemplate, which every
// instance of the sandbox shares: the template is written anew, its
// controller rewrites the policy, and the cluster's network plugin
// enforces it on the pods already running. The template is found by the
// sandbox the Sandbox is labelled with. A named template's network is its
// own, and the config's stays the default.
func (c *Client) UpdateNetwork(ctx context.Context, inst provider.Instance) error {
	const op = "update network"
	if c.cfg.Template != "" {
		return nil
	}
	var sb sandbox
	if err := c.call(ctx, op, http.MethodGet, c.sandboxesPath(inst.ID), nil, &sb); err != nil {
		return err
	}
	sandboxID := sb.Metadata.Labels[labelSandbox]
	if sandboxID == "" {
		return failure(provider.ErrFailed, op, "the Sandbox %s has no %s label to find its template by", inst.ID, labelSandbox)
	}
	_, err := c.keepImageTemplate(ctx, op, sandboxID)
	return err
}
