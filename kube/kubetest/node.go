package kubetest

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

const nodeName = "kubetest-node"

// registerNode creates the one Node every Pod is bound to, Ready, the way a
// kubelet registers itself.
func registerNode(ctx context.Context, client kubernetes.Interface) error {
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:   nodeName,
			Labels: map[string]string{corev1.LabelHostname: nodeName, corev1.LabelOSStable: "linux"},
		},
	}
	created, err := client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("register node: %w", err)
	}
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("64"),
		corev1.ResourceMemory: resource.MustParse("256Gi"),
		corev1.ResourcePods:   resource.MustParse("1000"),
	}
	now := metav1.Now()
	created.Status = corev1.NodeStatus{
		Capacity:    capacity,
		Allocatable: capacity,
		Phase:       corev1.NodeRunning,
		Conditions: []corev1.NodeCondition{{
			Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
			Message: "kubelet is posting ready status", LastHeartbeatTime: now, LastTransitionTime: now,
		}},
		// An address only, no host name: the API server dials the node's
		// kubelet (for a port-forward, say) at it, where a host name would
		// have it ask the host's DNS. Nothing serves the kubelet's API there.
		Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}},
	}
	if _, err := client.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("node status: %w", err)
	}
	return nil
}
