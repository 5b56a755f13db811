package kubetest_test

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	extensionsv1beta1 "sigs.k8s.io/agent-sandbox/extensions/api/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/auxilia/sandboxes/kube/kubetest"
)

func TestClaimAdoptsAWarmPoolSandbox(t *testing.T) {
	c := kubetest.Start(t)
	cl := adminClient(t, c)
	ns := c.Namespace(t)
	ctx := context.Background()

	template := &extensionsv1beta1.SandboxTemplate{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "python"},
		Spec: extensionsv1beta1.SandboxTemplateSpec{
			SandboxBlueprint: sandboxWithWorkspace(ns, "unused", false).Spec.SandboxBlueprint,
		},
	}
	one := int32(1)
	pool := &extensionsv1beta1.SandboxWarmPool{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "warm"},
		Spec: extensionsv1beta1.SandboxWarmPoolSpec{
			Replicas:    &one,
			TemplateRef: extensionsv1beta1.SandboxTemplateRef{Name: template.Name},
		},
	}
	for _, obj := range []client.Object{template, pool} {
		if err := cl.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	poll(t, "warm pool ready", func(ctx context.Context) (bool, error) {
		err := cl.Get(ctx, client.ObjectKeyFromObject(pool), pool)
		return err == nil && pool.Status.ReadyReplicas == 1, err
	})

	claim := &extensionsv1beta1.SandboxClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "mine"},
		Spec:       extensionsv1beta1.SandboxClaimSpec{WarmPoolRef: extensionsv1beta1.SandboxWarmPoolRef{Name: pool.Name}},
	}
	if err := cl.Create(ctx, claim); err != nil {
		t.Fatal(err)
	}
	poll(t, "claim ready", func(ctx context.Context) (bool, error) {
		err := cl.Get(ctx, client.ObjectKeyFromObject(claim), claim)
		return err == nil && meta.IsStatusConditionTrue(claim.Status.Conditions, "Ready"), err
	})
	name := claim.Status.SandboxStatus.Name
	if name == "" {
		t.Fatalf("a ready claim names no sandbox: %+v", claim.Status)
	}
	out := execute(t, c.PodIP(ns, name), "echo", "claimed")
	if string(out.Stdout) != "claimed\n" {
		t.Fatalf("echo in the claimed sandbox: %q %q", out.Stdout, out.Stderr)
	}
}

func poll(t *testing.T, what string, done func(context.Context) (bool, error)) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, waitLimit, true, done); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}
