package kubetest_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	sandboxv1beta1 "sigs.k8s.io/agent-sandbox/api/v1beta1"

	"github.com/auxilia/sandboxes/kube/kubetest"
)

const (
	condReady     = string(sandboxv1beta1.SandboxConditionReady)
	condSuspended = string(sandboxv1beta1.SandboxConditionSuspended)
)

func TestSandboxRunsSandboxdAndKeepsItsClaimAcrossSuspension(t *testing.T) {
	c := kubetest.Start(t)
	cl := adminClient(t, c)
	ns := c.Namespace(t)
	ctx := context.Background()

	if err := cl.Create(ctx, sandboxWithWorkspace(ns, "keeper", true)); err != nil {
		t.Fatal(err)
	}
	waitSandboxCondition(t, cl, ns, "keeper", condReady, metav1.ConditionTrue, "")
	ip := c.PodIP(ns, "keeper")
	if ip == "" {
		t.Fatal("a Ready sandbox has no pod IP")
	}

	out := execute(t, ip, "echo", "hi")
	if out.ExitCode != 0 || string(out.Stdout) != "hi\n" {
		t.Fatalf("echo hi: exit %d, stdout %q, stderr %q", out.ExitCode, out.Stdout, out.Stderr)
	}
	putFile(t, ip, "notes/kept.txt", []byte("kept across suspension"))
	if body, status := getFile(t, ip, "notes/kept.txt"); status != http.StatusOK || string(body) != "kept across suspension" {
		t.Fatalf("get after put: %d %q", status, body)
	}

	setOperatingMode(t, cl, ns, "keeper", sandboxv1beta1.SandboxOperatingModeSuspended)
	waitSandboxCondition(t, cl, ns, "keeper", condSuspended, metav1.ConditionTrue, sandboxv1beta1.SandboxReasonSuspendedPodTerminated)
	if _, err := c.Kube().CoreV1().Pods(ns).Get(ctx, "keeper", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("a suspended sandbox's pod: %v, want not found", err)
	}

	setOperatingMode(t, cl, ns, "keeper", sandboxv1beta1.SandboxOperatingModeRunning)
	waitSandboxCondition(t, cl, ns, "keeper", condReady, metav1.ConditionTrue, "")
	ip = c.PodIP(ns, "keeper")
	if body, status := getFile(t, ip, "notes/kept.txt"); status != http.StatusOK || string(body) != "kept across suspension" {
		t.Fatalf("the claim's file after resuming: %d %q", status, body)
	}
}

func TestPodWithoutClaimStartsEmptyAndCannotWriteTheHost(t *testing.T) {
	c := kubetest.Start(t)
	cl := adminClient(t, c)
	ns := c.Namespace(t)

	if err := cl.Create(context.Background(), sandboxWithWorkspace(ns, "scratch", false)); err != nil {
		t.Fatal(err)
	}
	waitSandboxCondition(t, cl, ns, "scratch", condReady, metav1.ConditionTrue, "")
	ip := c.PodIP(ns, "scratch")
	putFile(t, ip, "lost.txt", []byte("gone with the pod"))

	if out := execute(t, ip, "touch", "/etc/kubetest-probe"); out.ExitCode == 0 {
		t.Fatal("a pod's command wrote into the host's /etc")
	}
	thisFile, err := filepath.Abs("sandbox_test.go")
	if err != nil {
		t.Fatal(err)
	}
	if out := execute(t, ip, "test", "-e", thisFile); out.ExitCode == 0 {
		t.Fatalf("a pod's command sees the host's %s", thisFile)
	}

	setOperatingMode(t, cl, ns, "scratch", sandboxv1beta1.SandboxOperatingModeSuspended)
	waitSandboxCondition(t, cl, ns, "scratch", condSuspended, metav1.ConditionTrue, sandboxv1beta1.SandboxReasonSuspendedPodTerminated)
	setOperatingMode(t, cl, ns, "scratch", sandboxv1beta1.SandboxOperatingModeRunning)
	waitSandboxCondition(t, cl, ns, "scratch", condReady, metav1.ConditionTrue, "")
	if body, status := getFile(t, c.PodIP(ns, "scratch"), "lost.txt"); status != http.StatusNotFound {
		t.Fatalf("an emptyDir file survived its pod: %d %q", status, body)
	}
}

func TestFailPodsKeepsNewPodsPending(t *testing.T) {
	c := kubetest.Start(t)
	cl := adminClient(t, c)

	t.Run("image pull", func(t *testing.T) {
		ns := c.Namespace(t)
		c.FailPods(t, ns, "ImagePullBackOff", `Back-off pulling image "nowhere/none"`)
		if err := cl.Create(context.Background(), sandboxWithWorkspace(ns, "stuck", false)); err != nil {
			t.Fatal(err)
		}
		waitPod(t, c, ns, "stuck", func(p *corev1.Pod) bool {
			cs := p.Status.ContainerStatuses
			return len(cs) == 1 && cs[0].State.Waiting != nil && cs[0].State.Waiting.Reason == "ImagePullBackOff"
		})
		cond := waitSandboxCondition(t, cl, ns, "stuck", condReady, metav1.ConditionFalse, "")
		if !strings.Contains(cond.Message, "Pending") {
			t.Fatalf("ready condition of a sandbox whose image does not pull: %+v", cond)
		}
	})
	t.Run("unschedulable", func(t *testing.T) {
		ns := c.Namespace(t)
		c.FailPods(t, ns, "Unschedulable", "0/1 nodes are available: 1 Insufficient cpu.")
		if err := cl.Create(context.Background(), sandboxWithWorkspace(ns, "homeless", false)); err != nil {
			t.Fatal(err)
		}
		cond := waitSandboxCondition(t, cl, ns, "homeless", string(sandboxv1beta1.SandboxConditionPodScheduled), metav1.ConditionFalse, "Unschedulable")
		if cond.Message != "0/1 nodes are available: 1 Insufficient cpu." {
			t.Fatalf("pod scheduled condition: %+v", cond)
		}
	})
}

func TestExitPodEndsTheSandboxReadiness(t *testing.T) {
	c := kubetest.Start(t)
	cl := adminClient(t, c)
	ns := c.Namespace(t)

	if err := cl.Create(context.Background(), sandboxWithWorkspace(ns, "quitter", false)); err != nil {
		t.Fatal(err)
	}
	waitSandboxCondition(t, cl, ns, "quitter", condReady, metav1.ConditionTrue, "")
	ip := c.PodIP(ns, "quitter")
	c.ExitPod(t, ns, "quitter")
	waitSandboxCondition(t, cl, ns, "quitter", condReady, metav1.ConditionFalse, "")
	if _, err := http.Get(fileURL(ip, "x")); err == nil {
		t.Fatal("sandboxd still answers after its pod's containers ended")
	}
}

func TestRefuseSandboxesAnswersExceededQuota(t *testing.T) {
	c := kubetest.Start(t)
	cl := adminClient(t, c)
	ns := c.Namespace(t)

	c.RefuseSandboxes(t, ns)
	err := cl.Create(context.Background(), sandboxWithWorkspace(ns, "refused", false))
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "exceeded quota") {
		t.Fatalf("create under a zero quota: %v, want 403 exceeded quota", err)
	}
}

func TestKubeconfigGrantsOnlyItsRules(t *testing.T) {
	c := kubetest.Start(t)
	ns := c.Namespace(t)
	other := c.Namespace(t)

	kubeconfig := c.Kubeconfig(t, ns, []rbacv1.PolicyRule{{
		APIGroups: []string{sandboxv1beta1.GroupVersion.Group},
		Resources: []string{"sandboxes"},
		Verbs:     []string{"get", "list", "create"},
	}})
	cl := clientFromKubeconfig(t, kubeconfig)
	ctx := context.Background()
	if err := cl.Create(ctx, sandboxWithWorkspace(ns, "allowed", false)); err != nil {
		t.Fatalf("create allowed by the role: %v", err)
	}
	if err := cl.Create(ctx, sandboxWithWorkspace(other, "elsewhere", false)); !apierrors.IsForbidden(err) {
		t.Fatalf("create in another namespace: %v, want forbidden", err)
	}
	if err := cl.Delete(ctx, &sandboxv1beta1.Sandbox{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "allowed"}}); !apierrors.IsForbidden(err) {
		t.Fatalf("delete not in the role: %v, want forbidden", err)
	}
}

func TestAdminKubeconfigReachesTheCluster(t *testing.T) {
	c := kubetest.Start(t)
	cl := clientFromKubeconfig(t, c.AdminKubeconfig())
	nodes := &corev1.NodeList{}
	if err := cl.List(context.Background(), nodes); err != nil {
		t.Fatal(err)
	}
	if len(nodes.Items) != 1 {
		t.Fatalf("nodes: %d, want 1", len(nodes.Items))
	}
}

func waitPod(t *testing.T, c *kubetest.Cluster, ns, name string, done func(*corev1.Pod) bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, waitLimit, true, func(ctx context.Context) (bool, error) {
		pod, err := c.Kube().CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil && done(pod), err
	})
	if err != nil {
		t.Fatalf("pod %s/%s: %v", ns, name, err)
	}
}

func TestDeletedSandboxTakesItsPodAndClaim(t *testing.T) {
	c := kubetest.Start(t)
	cl := adminClient(t, c)
	ns := c.Namespace(t)
	ctx := context.Background()

	sb := sandboxWithWorkspace(ns, "brief", true)
	if err := cl.Create(ctx, sb); err != nil {
		t.Fatal(err)
	}
	waitSandboxCondition(t, cl, ns, "brief", condReady, metav1.ConditionTrue, "")
	ip := c.PodIP(ns, "brief")
	if err := cl.Delete(ctx, sb); err != nil {
		t.Fatal(err)
	}
	poll(t, "pod and claim collected", func(ctx context.Context) (bool, error) {
		_, podErr := c.Kube().CoreV1().Pods(ns).Get(ctx, "brief", metav1.GetOptions{})
		_, claimErr := c.Kube().CoreV1().PersistentVolumeClaims(ns).Get(ctx, "workspace-brief", metav1.GetOptions{})
		return apierrors.IsNotFound(podErr) && apierrors.IsNotFound(claimErr), nil
	})
	if _, err := http.Get(fileURL(ip, "x")); err == nil {
		t.Fatal("sandboxd still answers after its sandbox was deleted")
	}
}
