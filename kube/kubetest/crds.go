package kubetest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

const agentSandboxModule = "sigs.k8s.io/agent-sandbox"

// agentSandboxDir is where the go command keeps the agent-sandbox module this
// module requires; its k8s/crds folder holds the CRDs of that release.
func agentSandboxDir() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-json", agentSandboxModule).Output()
	if err != nil {
		return "", fmt.Errorf("go list -m %s: %w", agentSandboxModule, err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil {
		return "", fmt.Errorf("go list -m %s: %w", agentSandboxModule, err)
	}
	if mod.Dir == "" {
		return "", fmt.Errorf("module %s is not downloaded (run go mod download)", agentSandboxModule)
	}
	return mod.Dir, nil
}

// installCRDs creates agent-sandbox's CRDs and waits until each is served.
func installCRDs(ctx context.Context, cfg *rest.Config, moduleDir string) error {
	files, err := filepath.Glob(filepath.Join(moduleDir, "k8s", "crds", "*.yaml"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no CRDs under %s", filepath.Join(moduleDir, "k8s", "crds"))
	}
	client, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(raw, crd); err != nil {
			return fmt.Errorf("decode %s: %w", filepath.Base(file), err)
		}
		_, err = client.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create CRD %s: %w", crd.Name, err)
		}
		if err := waitEstablished(ctx, client, crd.Name); err != nil {
			return err
		}
	}
	return nil
}

func waitEstablished(ctx context.Context, client apiextensionsclient.Interface, name string) error {
	return wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		crd, err := client.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, cond := range crd.Status.Conditions {
			if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
}
