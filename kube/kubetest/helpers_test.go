package kubetest_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	sandboxv1beta1 "sigs.k8s.io/agent-sandbox/api/v1beta1"
	extensionsv1beta1 "sigs.k8s.io/agent-sandbox/extensions/api/v1beta1"
	processv1 "sigs.k8s.io/agent-sandbox/packages/sandboxd/spec/process/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/auxilia/sandboxes/kube/kubetest"
)

// waitLimit bounds every wait on the cluster; it is a ceiling for a hung
// test, not a measure of anything.
const waitLimit = time.Minute

// scheme knows the built-in kinds and agent-sandbox's, extensions included.
var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(sandboxv1beta1.AddToScheme(s))
	utilruntime.Must(extensionsv1beta1.AddToScheme(s))
	return s
}()

func adminClient(t *testing.T, c *kubetest.Cluster) client.Client {
	t.Helper()
	cl, err := client.New(c.RESTConfig(), client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// sandboxWithWorkspace is a Sandbox whose one container mounts volume
// "workspace" at /workspace, sandboxd's root; with claim the volume comes
// from a volumeClaimTemplate, otherwise it is an emptyDir.
func sandboxWithWorkspace(ns, name string, claim bool) *sandboxv1beta1.Sandbox {
	sb := &sandboxv1beta1.Sandbox{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: sandboxv1beta1.SandboxSpec{SandboxBlueprint: sandboxv1beta1.SandboxBlueprint{
			PodTemplate: sandboxv1beta1.PodTemplate{Spec: corev1.PodSpec{
				Containers: []corev1.Container{{
					Name:         "sandboxd",
					Image:        "registry.k8s.io/agent-sandbox/sandboxd:v1.0.1",
					Args:         []string{"--root-dir=/workspace"},
					VolumeMounts: []corev1.VolumeMount{{Name: "workspace", MountPath: "/workspace"}},
				}},
			}},
		}},
	}
	if claim {
		sb.Spec.VolumeClaimTemplates = []sandboxv1beta1.PersistentVolumeClaimTemplate{{
			EmbeddedObjectMetadata: sandboxv1beta1.EmbeddedObjectMetadata{Name: "workspace"},
			Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceStorage: resource.MustParse("1Gi"),
				}},
			},
		}}
	} else {
		sb.Spec.PodTemplate.Spec.Volumes = []corev1.Volume{{
			Name: "workspace", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}},
		}}
	}
	return sb
}

// waitSandboxCondition waits until the Sandbox's condition has status and,
// when reason is not empty, that reason; it returns the condition.
func waitSandboxCondition(t *testing.T, cl client.Client, ns, name, condType string, status metav1.ConditionStatus, reason string) metav1.Condition {
	t.Helper()
	var last metav1.Condition
	err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, waitLimit, true, func(ctx context.Context) (bool, error) {
		sb := &sandboxv1beta1.Sandbox{}
		if err := cl.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, sb); err != nil {
			return false, err
		}
		cond := meta.FindStatusCondition(sb.Status.Conditions, condType)
		if cond == nil {
			return false, nil
		}
		last = *cond
		return cond.Status == status && (reason == "" || cond.Reason == reason), nil
	})
	if err != nil {
		t.Fatalf("sandbox %s/%s condition %s never %s %s (last %+v): %v", ns, name, condType, status, reason, last, err)
	}
	return last
}

func setOperatingMode(t *testing.T, cl client.Client, ns, name string, mode sandboxv1beta1.SandboxOperatingMode) {
	t.Helper()
	sb := &sandboxv1beta1.Sandbox{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	patch := []byte(fmt.Sprintf(`{"spec":{"operatingMode":%q}}`, mode))
	if err := cl.Patch(context.Background(), sb, client.RawPatch("application/merge-patch+json", patch)); err != nil {
		t.Fatalf("set operating mode %s: %v", mode, err)
	}
}

func execute(t *testing.T, ip string, command ...string) *processv1.ExecuteResponse {
	t.Helper()
	conn, err := grpc.NewClient(net.JoinHostPort(ip, "9090"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	resp, err := processv1.NewProcessServiceClient(conn).Execute(ctx, &processv1.ExecuteRequest{
		Config: &processv1.ProcessConfig{Command: command},
	})
	if err != nil {
		t.Fatalf("execute %q on %s: %v", command, ip, err)
	}
	return resp
}

func clientFromKubeconfig(t *testing.T, kubeconfig []byte) client.Client {
	t.Helper()
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

func fileURL(ip, path string) string {
	return "http://" + net.JoinHostPort(ip, "8080") + "/v1/files/" + url.PathEscape(path)
}

func putFile(t *testing.T, ip, path string, content []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPut, fileURL(ip, path), bytes.NewReader(content))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("put %s: %v", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("put %s: %s %s", path, resp.Status, body)
	}
}

// getFile returns the file's content and the HTTP status.
func getFile(t *testing.T, ip, path string) ([]byte, int) {
	t.Helper()
	resp, err := http.Get(fileURL(ip, path))
	if err != nil {
		t.Fatalf("get %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return body, resp.StatusCode
}
