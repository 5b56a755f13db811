package agentsandbox_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	sandboxcontrollers "sigs.k8s.io/agent-sandbox/controllers"

	"github.com/auxilia/sandboxes/kube/kubetest"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/agentsandbox"
)

// networkClient saves an image sandbox with the network in ns, as the
// chart's role may, and opens its client.
func networkClient(t *testing.T, c *kubetest.Cluster, ns string, network provider.Network) provider.Client {
	t.Helper()
	cfg := agentsandbox.DefaultConfig()
	cfg.Namespace, cfg.Image, cfg.ReachPods, cfg.Network = ns, sandboxdImage, "pod_ip", network
	k := agentsandbox.Kind{}
	require.Empty(t, provider.ValidateConfig(k, cfg, provider.Policy{}), "the sandbox saves")
	client, err := k.Open(provider.Settings{Secret: string(c.Kubeconfig(t, ns, providerRules)), Config: cfg})
	require.NoError(t, err)
	t.Cleanup(client.(interface{ CloseIdleConnections() }).CloseIdleConnections)
	return client
}

// ipBlocks are the peers of networks with their excepts.
func ipBlocks(blocks ...networkingv1.IPBlock) []networkingv1.NetworkPolicyPeer {
	var out []networkingv1.NetworkPolicyPeer
	for i := range blocks {
		out = append(out, networkingv1.NetworkPolicyPeer{IPBlock: &blocks[i]})
	}
	return out
}

func ports(protocol corev1.Protocol, numbers ...int) []networkingv1.NetworkPolicyPort {
	var out []networkingv1.NetworkPolicyPort
	for _, n := range numbers {
		port := intstr.FromInt32(int32(n))
		out = append(out, networkingv1.NetworkPolicyPort{Protocol: &protocol, Port: &port})
	}
	return out
}

// egressTo is the egress of a network that allows the blocks: them, and
// the cluster's DNS.
func egressTo(blocks ...networkingv1.IPBlock) []networkingv1.NetworkPolicyEgressRule {
	return []networkingv1.NetworkPolicyEgressRule{
		{To: ipBlocks(blocks...)},
		{To: []networkingv1.NetworkPolicyPeer{{
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "kube-system"}},
			PodSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": "kube-dns"}},
		}}, Ports: append(ports(corev1.ProtocolUDP, 53), ports(corev1.ProtocolTCP, 53)...)},
	}
}

// theServerIn is the ingress of every image's pods: the server's pods, in
// any namespace, to sandboxd's ports.
var theServerIn = []networkingv1.NetworkPolicyIngressRule{{
	From: []networkingv1.NetworkPolicyPeer{{
		NamespaceSelector: &metav1.LabelSelector{},
		PodSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{"auxilia/server": "true"}},
	}},
	Ports: ports(corev1.ProtocolTCP, 9090, 8080),
}}

// untilPolicy waits until the template's controller keeps the
// NetworkPolicy with the egress, and returns it.
func untilPolicy(t *testing.T, c *kubetest.Cluster, ns, template string, egress []networkingv1.NetworkPolicyEgressRule) *networkingv1.NetworkPolicy {
	t.Helper()
	name := template + "-network-policy"
	var np *networkingv1.NetworkPolicy
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		var err error
		np, err = c.Kube().NetworkingV1().NetworkPolicies(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			require.NoError(t, err)
		}
		if err == nil && equality.Semantic.DeepEqual(np.Spec.Egress, egress) {
			return np
		}
		time.Sleep(50 * time.Millisecond)
	}
	require.NotNil(t, np, "the controller never made the NetworkPolicy %s", name)
	require.Equal(t, egress, np.Spec.Egress, "the NetworkPolicy %s never has the network's egress", name)
	return np
}

func selector(np *networkingv1.NetworkPolicy) string {
	return metav1.FormatLabelSelector(&np.Spec.PodSelector)
}

// untilSelected waits until the policy selects the pod (the controller
// labels an existing pod of a Sandbox as it reconciles it).
func untilSelected(t *testing.T, c *kubetest.Cluster, ns string, np *networkingv1.NetworkPolicy, pod string) {
	t.Helper()
	var names []string
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		pods, err := c.Kube().CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: selector(np)})
		require.NoError(t, err)
		names = names[:0]
		for _, p := range pods.Items {
			names = append(names, p.Name)
		}
		if slices.Contains(names, pod) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the policy's selector %s selects %v, never the pod %s: agent-sandbox labels the pod of a Sandbox its template controls (ownerReferences)",
		selector(np), names, pod)
}

// The provider's hash of a template's name (nameHash in
// pkg/provider/agentsandbox/templatehash.go, whose test holds these
// values) is agent-sandbox's.
func TestKubernetesTemplateHashesAreAgentSandboxs(t *testing.T) {
	for name, want := range map[string]string{"": "811c9dc5", "auxilia-image": "d0aa6552", "auxilia-sb-1": "8d13362a",
		"python-runtime": "7c7dd1d6", "test-template": "69155462"} {
		assert.Equal(t, want, sandboxcontrollers.NameHash(name), "%q", name)
	}
}

// An image sandbox's network is the NetworkPolicy of its template, which
// follows an edit of the network. (No CNI runs in the test cluster: what
// the policy lets through is not tried.)
func TestKubernetesNetworkIsTheTemplatesPolicy(t *testing.T) {
	c := kubetest.Start(t)
	ns := c.Namespace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	network := provider.DenyNetwork()
	network.Allow = []string{"198.51.100.0/24", "2001:db8::/32"}
	network.Deny = []string{"198.51.100.128/25"}
	client := networkClient(t, c, ns, network)
	labels := provider.Labels{Workspace: "ws-1", Sandbox: "sb-net", Thread: "th-1", Instance: "net-1-" + ns}
	inst, err := client.Create(ctx, labels)
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Destroy(context.Background(), inst) })

	const template = "auxilia-sb-net"
	np := untilPolicy(t, c, ns, template, egressTo(
		networkingv1.IPBlock{CIDR: "198.51.100.0/24", Except: []string{"198.51.100.128/25"}},
		networkingv1.IPBlock{CIDR: "2001:db8::/32"}))
	assert.Equal(t, theServerIn, np.Spec.Ingress)
	assert.ElementsMatch(t, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress}, np.Spec.PolicyTypes)
	assert.Equal(t, map[string]string{"agents.x-k8s.io/sandbox-template-ref-hash": sandboxcontrollers.NameHash(template)},
		np.Spec.PodSelector.MatchLabels, "the controller's selector, by agent-sandbox's own hash")
	sandboxes, err := c.Kube().Discovery().RESTClient().Get().
		AbsPath("/apis/agents.x-k8s.io/v1beta1/namespaces/"+ns+"/sandboxes").Param("labelSelector", selector(np)).DoRaw(ctx)
	require.NoError(t, err)
	assert.Contains(t, string(sandboxes), `"name":"`+inst.ID+`"`, "the Sandbox carries the template's hash, as the provider computes it")

	// An edit of the network, applied to the running instance, rewrites
	// the template, and the controller the policy its pod is held to.
	network.Deny = append(network.Deny, "2001:db8:1::/48")
	edited := networkClient(t, c, ns, network)
	require.NoError(t, edited.(provider.NetworkUpdater).UpdateNetwork(ctx, inst))
	untilPolicy(t, c, ns, template, egressTo(
		networkingv1.IPBlock{CIDR: "198.51.100.0/24", Except: []string{"198.51.100.128/25"}},
		networkingv1.IPBlock{CIDR: "2001:db8::/32", Except: []string{"2001:db8:1::/48"}}))

	// So does the sandbox's next instance; denying everything leaves the
	// pods no egress rule at all.
	edited = networkClient(t, c, ns, provider.DenyNetwork())
	labels.Instance = "net-3-" + ns
	third, err := edited.Create(ctx, labels)
	require.NoError(t, err)
	t.Cleanup(func() { _ = edited.Destroy(context.Background(), third) })
	untilPolicy(t, c, ns, template, nil)
}

// The template's NetworkPolicy selects the pod of an instance the provider
// makes: the Sandbox must be controlled by its template for agent-sandbox
// to give the pod the hash it selects by.
func TestKubernetesNetworkPolicySelectsTheInstancesPod(t *testing.T) {
	c := kubetest.Start(t)
	ns := c.Namespace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	client := networkClient(t, c, ns, provider.AllowNetwork())
	inst, err := client.Create(ctx, provider.Labels{Workspace: "ws-1", Sandbox: "sb-sel", Thread: "th-1", Instance: "sel-" + ns})
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Destroy(context.Background(), inst) })

	np := untilPolicy(t, c, ns, "auxilia-sb-sel", allowedByDefault())
	untilSelected(t, c, ns, np, inst.ID)
}

// allowedByDefault is the egress of a network that allows by default:
// everywhere but the walled networks.
func allowedByDefault() []networkingv1.NetworkPolicyEgressRule {
	return egressTo(
		networkingv1.IPBlock{CIDR: "0.0.0.0/0", Except: []string{"10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
			"172.16.0.0/12", "192.168.0.0/16"}},
		networkingv1.IPBlock{CIDR: "::/0", Except: []string{"::1/128", "fc00::/7", "fe80::/10"}})
}

// agent-sandbox gives a Sandbox's pod the hash of its template's name
// only from a Sandbox an object of its extensions controls
// (computeExtensionPodLabels in controllers/sandbox_controller.go): the
// template's reference, as controller, carries it there. Here the
// reference is set by hand, as the provider's Create is to set it
// (blueprint.ownerReferences).
func TestKubernetesTemplatesHashReachesThePodOfASandboxItControls(t *testing.T) {
	c := kubetest.Start(t)
	ns := c.Namespace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	client := networkClient(t, c, ns, provider.AllowNetwork())
	inst, err := client.Create(ctx, provider.Labels{Workspace: "ws-1", Sandbox: "sb-own", Thread: "th-1", Instance: "own-" + ns})
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Destroy(context.Background(), inst) })

	const template = "auxilia-sb-own"
	np := untilPolicy(t, c, ns, template, allowedByDefault())
	tpl, err := c.Kube().Discovery().RESTClient().Get().
		AbsPath("/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/" + ns + "/sandboxtemplates/" + template).DoRaw(ctx)
	require.NoError(t, err)
	var meta struct {
		Metadata struct{ UID string } `json:"metadata"`
	}
	require.NoError(t, json.Unmarshal(tpl, &meta))
	patch := `{"metadata":{"ownerReferences":[{"apiVersion":"extensions.agents.x-k8s.io/v1beta1","kind":"SandboxTemplate",` +
		`"name":"` + template + `","uid":"` + meta.Metadata.UID + `","controller":true}]}}`
	_, err = c.Kube().Discovery().RESTClient().Patch("application/merge-patch+json").
		AbsPath("/apis/agents.x-k8s.io/v1beta1/namespaces/" + ns + "/sandboxes/" + inst.ID).Body([]byte(patch)).DoRaw(ctx)
	require.NoError(t, err)
	untilSelected(t, c, ns, np, inst.ID)
}
