package kubetest

import (
	"fmt"
	"os/exec"
	"path/filepath"
)

const sandboxdPackage = agentSandboxModule + "/packages/sandboxd/cmd/sandboxd"

// buildSandboxd compiles agent-sandbox's sandboxd into dir, once per test
// binary; each Pod then runs it as a process of its own.
func buildSandboxd(dir string) (string, error) {
	bin := filepath.Join(dir, "sandboxd")
	cmd := exec.Command("go", "build", "-o", bin, sandboxdPackage)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %w\n%s", sandboxdPackage, err, out)
	}
	return bin, nil
}
