package agentsandbox_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/agentsandbox"
)

// Without a kubelet, a port-forward through the API server goes as far as
// the API server takes it: its authorization, then its dial of the node's
// kubelet. Both answers reach the caller in the API server's own words.
func TestAPortForwardGoesAsFarAsTheAPIServerTakesIt(t *testing.T) {
	pods, cluster, ns := kubeClient(t, providerRules)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	inst, err := pods.Create(ctx, provider.Labels{Workspace: "ws-1", Sandbox: "sb-1", Thread: "th-1", Instance: "forwarded-" + ns})
	require.NoError(t, err)
	t.Cleanup(func() { _ = pods.Destroy(context.Background(), inst) })

	forwarding := func(rules []rbacv1.PolicyRule) provider.Client {
		cfg := agentsandbox.DefaultConfig()
		cfg.Namespace, cfg.Image, cfg.ReachPods = ns, sandboxdImage, "port_forward"
		cfg.Resources.DiskMB = 1024
		client, err := agentsandbox.Kind{}.Open(provider.Settings{Secret: string(cluster.Kubeconfig(t, ns, rules)), Config: cfg})
		require.NoError(t, err)
		return client
	}
	echo := provider.ExecRequest{Command: "echo hi", Timeout: time.Minute}

	withoutPortForward := providerRules[:len(providerRules)-1] // the chart's rules but the last, pods/portforward
	_, err = forwarding(withoutPortForward).Execute(ctx, inst, echo)
	require.ErrorIs(t, err, provider.ErrUnauthorized, "without pods/portforward")
	assert.Contains(t, err.Error(), `cannot get resource "pods/portforward" in API group "" in the namespace "`+ns+`"`)

	_, err = forwarding(providerRules).Execute(ctx, inst, echo)
	require.ErrorIs(t, err, provider.ErrFailed, "allowed, the API server cannot reach the node's kubelet")
	assert.Contains(t, err.Error(), "error dialing backend: dial tcp 127.0.0.1:")
}
