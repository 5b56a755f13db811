package agentsandbox_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/auxilia/sandboxes/kube/kubetest"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/agentsandbox"
)

// The cluster keeps a sandbox's warm pool: the provider keeps a
// SandboxWarmPool of the sandbox's template, a new instance is a
// SandboxClaim that adopts one of the pool's ready Sandboxes, which the
// pool replaces; the instance pauses and resumes as any other, is found by
// its creation's label, and destroying it (by its state, or by the id a
// pooled create reports first) deletes its claim and Sandbox. A size of 0
// deletes the pool and its unclaimed Sandboxes. All with the chart's rules.
func TestKubernetesWarmPoolIsKeptByTheCluster(t *testing.T) {
	client, c, ns := kubeClientWith(t, providerRules, func(cfg *agentsandbox.Config) {
		cfg.Pool.Size, cfg.Labels = 2, map[string]string{"team": "data"}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	keeper := client.(provider.PoolKeeper)
	sandbox := provider.Labels{Workspace: "ws-1", Sandbox: "sb-" + ns}

	ready := func(want int) {
		t.Helper()
		require.Eventually(t, func() bool {
			count, err := keeper.KeepPool(ctx, sandbox, 2)
			require.NoError(t, err)
			return count.Ready == want && count.Ready+count.Creating == 2
		}, time.Minute, 100*time.Millisecond, "the pool never has %d ready", want)
	}
	ready(2)
	warm := sandboxNames(t, c, ns)
	require.Len(t, warm, 2)
	written := templateVersion(t, c, ns, "auxilia-"+sandbox.Sandbox)
	_, err := keeper.KeepPool(ctx, sandbox, 2)
	require.NoError(t, err)
	assert.Equal(t, written, templateVersion(t, c, ns, "auxilia-"+sandbox.Sandbox), "the template, unchanged, is not written again")

	labels := sandbox
	labels.Thread, labels.Instance = "th-1", "first-"+ns
	inst, err := client.Create(ctx, labels)
	require.NoError(t, err)
	assert.Contains(t, warm, inst.ID, "a ready Sandbox of the pool was taken, not a new one made")
	echo(t, client, inst, "claimed")
	all, err := c.Kube().CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	labelled, err := c.Kube().CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "team=data"})
	require.NoError(t, err)
	assert.Len(t, labelled.Items, len(all.Items), "every pod, the pool's too, carries the config's labels")

	found, ok, err := client.(provider.Finder).FindCreated(ctx, labels)
	require.NoError(t, err)
	require.True(t, ok, "found by its creation's label")
	assert.Equal(t, inst.ID, found.ID)
	ready(2) // the pool replaced what was taken

	require.NoError(t, client.(provider.Pauser).Pause(ctx, inst))
	resumed, err := client.Reconnect(ctx, inst)
	require.NoError(t, err)
	echo(t, client, resumed, "resumed")

	require.NoError(t, client.Destroy(ctx, resumed))
	gone(t, c, ns, "sandboxes", inst.ID)
	gone(t, c, ns, "sandboxclaims", "aux-"+labels.Instance)

	second := sandbox
	second.Thread, second.Instance = "th-2", "second-"+ns
	other, err := client.Create(ctx, second)
	require.NoError(t, err)
	require.NoError(t, client.Destroy(ctx, provider.Instance{ID: "aux-" + second.Instance}), "by the claim's name alone")
	gone(t, c, ns, "sandboxclaims", "aux-"+second.Instance)
	gone(t, c, ns, "sandboxes", other.ID)

	_, err = keeper.KeepPool(ctx, sandbox, 0)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(sandboxNames(t, c, ns)) == 0 }, time.Minute, 100*time.Millisecond,
		"the pool's Sandboxes go with it")
	_, err = keeper.KeepPool(ctx, sandbox, 0)
	require.NoError(t, err, "a pool already gone is no error")

	third := sandbox
	third.Thread, third.Instance = "th-3", "third-"+ns
	own, err := client.Create(ctx, third)
	require.NoError(t, err, "without a pool, a Sandbox of its own")
	assert.Equal(t, "aux-"+third.Instance, own.ID)
	require.NoError(t, client.Destroy(ctx, own))
}

// templateVersion is the SandboxTemplate's resourceVersion.
func templateVersion(t *testing.T, c *kubetest.Cluster, ns, name string) string {
	t.Helper()
	raw, err := c.Kube().Discovery().RESTClient().Get().
		AbsPath("/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/" + ns + "/sandboxtemplates/" + name).DoRaw(context.Background())
	require.NoError(t, err)
	var tmpl struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	require.NoError(t, json.Unmarshal(raw, &tmpl))
	return tmpl.Metadata.ResourceVersion
}

func echo(t *testing.T, client provider.Client, inst provider.Instance, word string) {
	t.Helper()
	res, err := client.Execute(context.Background(), inst, provider.ExecRequest{Command: "echo " + word, Timeout: time.Minute})
	require.NoError(t, err)
	assert.Equal(t, word+"\n", res.Output)
}

// sandboxNames lists the namespace's Sandboxes not being deleted.
func sandboxNames(t *testing.T, c *kubetest.Cluster, ns string) []string {
	t.Helper()
	raw, err := c.Kube().Discovery().RESTClient().Get().
		AbsPath("/apis/agents.x-k8s.io/v1beta1/namespaces/" + ns + "/sandboxes").DoRaw(context.Background())
	require.NoError(t, err)
	var list struct {
		Items []struct {
			Metadata struct {
				Name              string  `json:"name"`
				DeletionTimestamp *string `json:"deletionTimestamp"`
			} `json:"metadata"`
		} `json:"items"`
	}
	require.NoError(t, json.Unmarshal(raw, &list))
	var names []string
	for _, item := range list.Items {
		if item.Metadata.DeletionTimestamp == nil {
			names = append(names, item.Metadata.Name)
		}
	}
	slices.Sort(names)
	return names
}

// gone waits until the object is no more.
func gone(t *testing.T, c *kubetest.Cluster, ns, resource, name string) {
	t.Helper()
	group := "/apis/agents.x-k8s.io/v1beta1"
	if resource != "sandboxes" {
		group = "/apis/extensions.agents.x-k8s.io/v1beta1"
	}
	require.Eventually(t, func() bool {
		var status int
		c.Kube().Discovery().RESTClient().Get().AbsPath(group + "/namespaces/" + ns + "/" + resource + "/" + name).
			Do(context.Background()).StatusCode(&status)
		return status == http.StatusNotFound
	}, time.Minute, 50*time.Millisecond, "%s %s is still there", resource, name)
}

// A claim whose pool has nothing ready has its Sandbox made; a quota that
// refuses it is said at once, in the cluster's words.
func TestKubernetesWarmPoolClaimMeetsTheQuota(t *testing.T) {
	client, c, ns := kubeClientWith(t, providerRules, func(cfg *agentsandbox.Config) { cfg.Pool.Size = 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	sandbox := provider.Labels{Workspace: "ws-1", Sandbox: "sb-" + ns}
	require.Eventually(t, func() bool {
		count, err := client.(provider.PoolKeeper).KeepPool(ctx, sandbox, 1)
		require.NoError(t, err)
		return count.Ready == 1
	}, time.Minute, 100*time.Millisecond, "the pool is never ready")

	c.RefuseSandboxes(t, ns)
	first := sandbox
	first.Thread, first.Instance = "th-1", "first-"+ns
	inst, err := client.Create(ctx, first)
	require.NoError(t, err, "the ready one is taken: nothing is made")
	t.Cleanup(func() { _ = client.Destroy(context.Background(), inst) })

	second := sandbox
	second.Thread, second.Instance = "th-2", "second-"+ns
	began := time.Now()
	_, err = client.Create(ctx, second)
	require.ErrorIs(t, err, provider.ErrQuota)
	assert.Contains(t, err.Error(), "exceeded quota")
	assert.Less(t, time.Since(began), time.Minute, "said, not waited out")
	gone(t, c, ns, "sandboxclaims", "aux-"+second.Instance)
}
