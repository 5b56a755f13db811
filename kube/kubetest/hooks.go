package kubetest

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	sandboxv1beta1 "sigs.k8s.io/agent-sandbox/api/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// FailPods makes the Pods created in ns from now until t ends stay Pending.
// With reason "Unschedulable" the scheduler finds no node for them
// (PodScheduled False, Unschedulable, message); with any other reason, e.g.
// "ImagePullBackOff", they are bound but their containers wait with that
// reason and message.
func (c *Cluster) FailPods(t testing.TB, ns, reason, message string) {
	t.Helper()
	c.kubelet.setFailure(ns, podFailure{reason: reason, message: message})
	t.Cleanup(func() { c.kubelet.clearFailure(ns) })
}

// LingerDeletedPods keeps the Pods of ns deleted from now on running and
// Ready, as Pods serving out their grace period are, until the returned
// end is called (or t ends); then they end as any deleted Pod does.
func (c *Cluster) LingerDeletedPods(t testing.TB, ns string) (end func()) {
	t.Helper()
	c.kubelet.linger(ns)
	var once sync.Once
	end = func() { once.Do(func() { c.kubelet.endLingering(ns) }) }
	t.Cleanup(end)
	return end
}

// ExitPod ends the containers of the Pod backing a Sandbox, exit code 1:
// with restartPolicy Never the Pod fails; otherwise it waits in
// CrashLoopBackOff, not Ready.
func (c *Cluster) ExitPod(t testing.TB, ns, sandboxName string) {
	t.Helper()
	ctx := context.Background()
	pod, err := c.sandboxPod(ctx, ns, sandboxName)
	if err != nil {
		t.Fatalf("kubetest: %v", err)
	}
	if err := c.kubelet.exit(ctx, types.NamespacedName{Namespace: ns, Name: pod.Name}); err != nil {
		t.Fatalf("kubetest: end pod %s/%s: %v", ns, pod.Name, err)
	}
}

const refuseQuotaName = "kubetest-no-sandboxes"

var sandboxCount = corev1.ResourceName("count/sandboxes." + sandboxv1beta1.GroupVersion.Group)

// RefuseSandboxes puts a ResourceQuota of zero Sandboxes in ns until t ends,
// so the API server's quota admission answers a Sandbox create with 403
// "exceeded quota". The quota's status is written the way the quota
// controller writes it, and RefuseSandboxes returns once admission uses it.
func (c *Cluster) RefuseSandboxes(t testing.TB, ns string) {
	t.Helper()
	ctx := context.Background()
	zero := resource.MustParse("0")
	quotas := c.kube.CoreV1().ResourceQuotas(ns)
	quota, err := quotas.Create(ctx, &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: refuseQuotaName},
		Spec:       corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{sandboxCount: zero}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("kubetest: create quota: %v", err)
	}
	t.Cleanup(func() {
		if err := quotas.Delete(context.Background(), refuseQuotaName, metav1.DeleteOptions{}); err != nil {
			t.Errorf("kubetest: delete quota: %v", err)
		}
	})
	quota.Status = corev1.ResourceQuotaStatus{
		Hard: corev1.ResourceList{sandboxCount: zero},
		Used: corev1.ResourceList{sandboxCount: zero},
	}
	if _, err := quotas.UpdateStatus(ctx, quota, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("kubetest: quota status: %v", err)
	}
	err = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		err := c.client.Create(ctx, probeSandbox(ns), client.DryRunAll)
		return err != nil && strings.Contains(err.Error(), "exceeded quota"), nil
	})
	if err != nil {
		t.Fatalf("kubetest: quota admission did not take the quota up: %v", err)
	}
}

// probeSandbox is the smallest valid Sandbox, created only as a dry run.
func probeSandbox(ns string) *sandboxv1beta1.Sandbox {
	return &sandboxv1beta1.Sandbox{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, GenerateName: "kubetest-probe-"},
		Spec: sandboxv1beta1.SandboxSpec{SandboxBlueprint: sandboxv1beta1.SandboxBlueprint{
			PodTemplate: sandboxv1beta1.PodTemplate{
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "probe", Image: "probe"}}},
			},
		}},
	}
}
