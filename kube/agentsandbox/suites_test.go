package agentsandbox_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/auxilia/sandboxes/kube/kubetest"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/agentsandbox"
	"github.com/auxilia/sandboxes/pkg/provider/providertest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	kubetest.Stop()
	os.Exit(code)
}

// providerRules are what the Kubernetes provider calls in its namespace,
// as the chart's role grants them (deployments/helm/auxilia/templates/rbac.yaml).
var providerRules = []rbacv1.PolicyRule{
	{APIGroups: []string{"agents.x-k8s.io"}, Resources: []string{"sandboxes"}, Verbs: []string{"get", "list", "create", "patch", "delete"}},
	{APIGroups: []string{"extensions.agents.x-k8s.io"}, Resources: []string{"sandboxtemplates"}, Verbs: []string{"get", "create", "update"}},
	{APIGroups: []string{"extensions.agents.x-k8s.io"}, Resources: []string{"sandboxwarmpools"}, Verbs: []string{"get", "create", "patch", "delete"}},
	{APIGroups: []string{"extensions.agents.x-k8s.io"}, Resources: []string{"sandboxclaims"}, Verbs: []string{"get", "create", "delete"}},
	{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}},
	{APIGroups: []string{""}, Resources: []string{"pods/portforward"}, Verbs: []string{"get", "create"}},
}

// sandboxdImage stands for sandboxd's image; the test cluster's kubelet
// runs sandboxd whatever the image.
const sandboxdImage = "registry.k8s.io/agent-sandbox/sandboxd:v1.0.1"

// kubeClient opens a provider client on a fresh namespace, with a
// kubeconfig that may do what the chart grants, reaching pods by their
// IPs (the test cluster's are this host's 127.0.0.N), and a disk for the
// working folder, which a pause keeps.
func kubeClient(t *testing.T, rules []rbacv1.PolicyRule) (provider.Client, *kubetest.Cluster, string) {
	t.Helper()
	return kubeClientWith(t, rules, func(*agentsandbox.Config) {})
}

// kubeClientWith is kubeClient with its config tuned first.
func kubeClientWith(t *testing.T, rules []rbacv1.PolicyRule, tune func(*agentsandbox.Config)) (provider.Client, *kubetest.Cluster, string) {
	t.Helper()
	c := kubetest.Start(t)
	ns := c.Namespace(t)
	cfg := agentsandbox.DefaultConfig()
	cfg.Namespace, cfg.Image, cfg.ReachPods = ns, sandboxdImage, "pod_ip"
	cfg.Resources.DiskMB = 1024
	tune(cfg)
	k := agentsandbox.Kind{}
	require.Empty(t, provider.ValidateConfig(k, cfg, provider.Policy{}))
	client, err := k.Open(provider.Settings{Secret: string(c.Kubeconfig(t, ns, rules)), Config: cfg})
	require.NoError(t, err)
	t.Cleanup(client.(interface{ CloseIdleConnections() }).CloseIdleConnections)
	return client, c, ns
}

func TestKubernetesConforms(t *testing.T) {
	client, _, _ := kubeClient(t, providerRules)
	providertest.Run(t, client)
}

func TestKubernetesTerminalConforms(t *testing.T) {
	client, _, _ := kubeClient(t, providerRules)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	inst, err := client.Create(ctx, provider.Labels{Workspace: "ws-1", Sandbox: "sb-1", Thread: "th-term"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Destroy(context.Background(), inst) })
	providertest.RunTerminal(t, client, inst)
}

func TestKubernetesLifecycle(t *testing.T) {
	client, _, _ := kubeClient(t, providerRules)
	providertest.RunLifecycle(t, client)
}

// clusterStates moves a Sandbox as the cluster would: suspended by its
// operatingMode, its pod's container ended, creates refused by a quota.
type clusterStates struct {
	c      *kubetest.Cluster
	ns     string
	client provider.Client
}

func (s clusterStates) Pause(t *testing.T, id string) {
	require.NoError(t, s.client.(provider.Pauser).Pause(context.Background(), provider.Instance{ID: id}))
	s.waitCondition(t, id, "Suspended")
}

func (s clusterStates) Exit(t *testing.T, id string) {
	s.c.ExitPod(t, s.ns, id)
	s.waitCondition(t, id, "Finished")
}

func (s clusterStates) RefuseCreates(t *testing.T) providertest.Refusal {
	s.c.RefuseSandboxes(t, s.ns)
	return providertest.Refusal{Kind: provider.ErrQuota, Words: "exceeded quota"}
}

// waitCondition waits until the Sandbox's condition is True.
func (s clusterStates) waitCondition(t *testing.T, name, condition string) {
	t.Helper()
	path := "/apis/agents.x-k8s.io/v1beta1/namespaces/" + s.ns + "/sandboxes/" + name
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		raw, err := s.c.Kube().Discovery().RESTClient().Get().AbsPath(path).DoRaw(context.Background())
		require.NoError(t, err)
		var sb struct {
			Status struct {
				Conditions []struct{ Type, Status string } `json:"conditions"`
			} `json:"status"`
		}
		require.NoError(t, json.Unmarshal(raw, &sb))
		for _, c := range sb.Status.Conditions {
			if c.Type == condition && c.Status == "True" {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the Sandbox %s is never %s", name, condition)
}

func TestKubernetesStates(t *testing.T) {
	client, c, ns := kubeClient(t, providerRules)
	providertest.RunStates(t, agentsandbox.Kind{}.Describe(), client, clusterStates{c: c, ns: ns, client: client})
}

// A pod that cannot start is said in the cluster's words, at once.
func TestKubernetesPodsThatCannotStart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, c := range []struct {
		reason, message string
		kind            error
	}{
		{"ImagePullBackOff", `Back-off pulling image "` + sandboxdImage + `"`, provider.ErrInvalidConfig},
		{"Unschedulable", "0/1 nodes are available: 1 Insufficient cpu.", provider.ErrQuota},
	} {
		t.Run(c.reason, func(t *testing.T) {
			client, cluster, ns := kubeClient(t, providerRules)
			cluster.FailPods(t, ns, c.reason, c.message)
			began := time.Now()
			_, err := client.Create(ctx, provider.Labels{Workspace: "ws-1", Sandbox: "sb-1", Thread: "th-1", Instance: "never-" + ns})
			require.ErrorIs(t, err, c.kind)
			assert.Contains(t, err.Error(), c.message)
			assert.Less(t, time.Since(began), time.Minute, "said, not waited out")
		})
	}
}

// The probe says what the credentials may not do.
func TestKubernetesProbeNamesWhatIsRefused(t *testing.T) {
	readOnly := []rbacv1.PolicyRule{{APIGroups: []string{"agents.x-k8s.io"}, Resources: []string{"sandboxes"}, Verbs: []string{"get", "list"}}}
	client, _, ns := kubeClient(t, readOnly)
	err := client.Probe(context.Background())
	require.ErrorIs(t, err, provider.ErrUnauthorized)
	assert.Contains(t, err.Error(), "may not create sandboxes in namespace "+ns)

	client, _, _ = kubeClient(t, providerRules)
	require.NoError(t, client.Probe(context.Background()))
}

// A created Sandbox is found again by its creation's label, and relabelled.
func TestKubernetesFindsAndRelabels(t *testing.T) {
	client, _, ns := kubeClient(t, providerRules)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	labels := provider.Labels{Workspace: "ws-1", Sandbox: "sb-1", Thread: "pool", Instance: "inst-" + ns}
	inst, err := client.Create(ctx, labels)
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Destroy(context.Background(), inst) })

	found, ok, err := client.(provider.Finder).FindCreated(ctx, labels)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, inst.ID, found.ID)

	labels.Thread = "th-9"
	require.NoError(t, client.(provider.Relabeler).Relabel(ctx, inst, labels))
	found, ok, err = client.(provider.Finder).FindCreated(ctx, labels)
	require.NoError(t, err)
	assert.True(t, ok, "the creation's label stays")
	assert.Equal(t, inst.ID, found.ID)

	_, ok, err = client.(provider.Finder).FindCreated(ctx, provider.Labels{Instance: "another"})
	require.NoError(t, err)
	assert.False(t, ok)
}
