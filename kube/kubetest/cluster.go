package kubetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	sandboxv1beta1 "sigs.k8s.io/agent-sandbox/api/v1beta1"
	"sigs.k8s.io/agent-sandbox/controllers"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Cluster is a running control plane with agent-sandbox installed and one
// node whose Pods run sandboxd.
type Cluster struct {
	config  *rest.Config
	kube    kubernetes.Interface
	client  client.Client
	kubelet *kubelet

	cancel  context.CancelFunc
	life    *processTB
	etcd    *embeddedEtcd
	dataDir string
}

var (
	startOnce sync.Once
	shared    *Cluster
	startErr  error
)

// Start returns the test binary's cluster, starting it on first use.
func Start(t testing.TB) *Cluster {
	t.Helper()
	startOnce.Do(func() { shared, startErr = start() })
	if startErr != nil {
		t.Fatalf("kubetest: %v", startErr)
	}
	return shared
}

// Stop ends the cluster, if one started: every Pod's processes, the
// controllers, the API server and etcd. Call it from TestMain after m.Run.
func Stop() {
	if shared != nil {
		shared.stop()
	}
}

func start() (c *Cluster, err error) {
	quietLogs()
	dataDir, err := os.MkdirTemp("", "kubetest-")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	c = &Cluster{cancel: cancel, life: &processTB{}, dataDir: dataDir}
	defer func() {
		if err != nil {
			c.stop()
		}
	}()

	// The sandboxd build overlaps the control plane's start.
	type built struct {
		path string
		err  error
	}
	sandboxd := make(chan built, 1)
	go func() {
		path, err := buildSandboxd(dataDir)
		sandboxd <- built{path, err}
	}()
	moduleDir, err := agentSandboxDir()
	if err != nil {
		return c, err
	}

	if c.etcd, err = startEtcd(filepath.Join(dataDir, "etcd")); err != nil {
		return c, err
	}
	server, err := startAPIServer(c.etcd.clientURL, c.life)
	if err != nil {
		return c, err
	}
	c.config = rest.CopyConfig(server.ClientConfig)
	// The loopback configuration speaks protobuf, which custom resources do
	// not; JSON serves every client made from it.
	c.config.ContentType = "application/json"
	c.config.AcceptContentTypes = "application/json"
	if c.kube, err = kubernetes.NewForConfig(c.config); err != nil {
		return c, err
	}
	if c.client, err = client.New(c.config, client.Options{Scheme: controllers.Scheme}); err != nil {
		return c, err
	}
	if err = installCRDs(ctx, c.config, moduleDir); err != nil {
		return c, err
	}
	if err = startCoreControllers(ctx, c.config); err != nil {
		return c, err
	}
	if err = startSandboxControllers(ctx, c.config); err != nil {
		return c, err
	}
	if err = registerNode(ctx, c.kube); err != nil {
		return c, err
	}
	b := <-sandboxd
	if b.err != nil {
		return c, b.err
	}
	c.kubelet, err = startKubelet(ctx, c.kube, b.path, dataDir)
	return c, err
}

func (c *Cluster) stop() {
	c.cancel()
	if c.kubelet != nil {
		c.kubelet.stopAll()
	}
	c.life.finish()
	if c.etcd != nil {
		c.etcd.stop()
	}
	_ = os.RemoveAll(c.dataDir)
}

// RESTConfig is the cluster administrator's client configuration.
func (c *Cluster) RESTConfig() *rest.Config {
	return rest.CopyConfig(c.config)
}

// Kube is a clientset for the cluster administrator.
func (c *Cluster) Kube() kubernetes.Interface {
	return c.kube
}

// Namespace creates a fresh namespace, deleted when t ends. It returns once
// the namespace has its default ServiceAccount, so Pods can be created in it.
func (c *Cluster) Namespace(t testing.TB) string {
	t.Helper()
	ns, err := c.kube.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "kubetest-"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("kubetest: create namespace: %v", err)
	}
	t.Cleanup(func() {
		c.kubelet.clearFailure(ns.Name)
		err := c.kube.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
		if err != nil {
			t.Errorf("kubetest: delete namespace %s: %v", ns.Name, err)
		}
	})
	err = wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := c.kube.CoreV1().ServiceAccounts(ns.Name).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("kubetest: namespace %s got no default service account: %v", ns.Name, err)
	}
	return ns.Name
}

// PodIP is the address of the Pod that backs a Sandbox, as its status
// reports it, or "" while it has none.
func (c *Cluster) PodIP(ns, sandboxName string) string {
	pod, err := c.sandboxPod(context.Background(), ns, sandboxName)
	if err != nil {
		return ""
	}
	return pod.Status.PodIP
}

// sandboxPod finds a Sandbox's Pod the way its controller does: the Pod
// named by the pod-name annotation, which an adopted warm-pool Pod keeps,
// or else the Pod of the Sandbox's own name.
func (c *Cluster) sandboxPod(ctx context.Context, ns, sandboxName string) (*corev1.Pod, error) {
	sandbox := &sandboxv1beta1.Sandbox{}
	if err := c.client.Get(ctx, client.ObjectKey{Namespace: ns, Name: sandboxName}, sandbox); err != nil {
		return nil, fmt.Errorf("sandbox %s/%s: %w", ns, sandboxName, err)
	}
	podName := sandbox.Name
	if name := sandbox.Annotations[sandboxv1beta1.SandboxPodNameAnnotation]; name != "" {
		podName = name
	}
	pod, err := c.kube.CoreV1().Pods(ns).Get(ctx, podName, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("pod of sandbox %s/%s: %w", ns, sandboxName, err)
	}
	return pod, nil
}
