package opensandbox

import (
	"fmt"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// Config is an OpenSandbox sandbox's settings.
type Config struct {
	DefaultImage   string   `json:"default_image" validate:"required,image_ref" title:"Default image" doc:"Image every sandbox starts from; one with your libraries pre-installed starts faster."`
	VolumeMounts   []string `json:"volume_mounts" validate:"max=20" title:"Volume mounts" doc:"Host folders mounted into every sandbox, as host_path:sandbox_path or host_path:sandbox_path:ro. A host path is never /, a system folder (/etc, /usr, /proc, /dev, /root, …), the container runtime's (/var/lib/docker, /run/docker.sock, …), a user's keys (/home/<user>/.ssh, …), anything inside one, nor a folder holding one (/var, /run, /home/alice); this server may allow only some folders besides. The controller must allow the host paths too."`
	UseServerProxy bool     `json:"use_server_proxy" title:"Use server proxy" doc:"Reach each sandbox through the controller instead of the container's mapped port (recommended)."`
	GPU            int      `json:"gpu" validate:"min=0,max=64" title:"GPUs" doc:"GPUs given to each sandbox; 0 for none. The controller's hosts must have them (NVIDIA's container toolkit on Docker)."`
	// ExecdTokenIsAPIKey is off by default: execd runs inside the sandbox,
	// where the sandbox's own code could catch whatever reaches it.
	ExecdTokenIsAPIKey bool `json:"execd_token_is_api_key" title:"API key is execd's token" doc:"Through the server proxy, send the API key as execd's access token, for a controller whose execd is started with it (EXECD_ACCESS_TOKEN). The key then reaches every sandbox, where its code could read it: leave off unless execd requires it."`
	provider.Common
}

// The resources a sandbox gets unless its settings say otherwise: those
// of OpenSandbox's own SDKs (sdks/sandbox/go/constants.go), as its server
// has none and requires some.
const (
	defaultCPU      = 1
	defaultMemoryMB = 2048
)

// DefaultConfig is a new OpenSandbox sandbox's settings.
func DefaultConfig() *Config {
	c := &Config{DefaultImage: "python:3.12-slim", VolumeMounts: []string{}, UseServerProxy: true, Common: provider.DefaultCommon()}
	c.Resources = provider.InstanceResources{CPU: defaultCPU, MemoryMB: defaultMemoryMB}
	return c
}

// Validate checks each volume mount's syntax and host path, and that no
// two mounts share a sandbox path.
func (c *Config) Validate(p provider.Policy) []provider.FieldError {
	var errs []provider.FieldError
	seen := map[string]int{}
	for i, raw := range c.VolumeMounts {
		field := fmt.Sprintf("volume_mounts.%d", i)
		m, err := provider.ParseVolumeMount(raw)
		if err == nil {
			err = provider.CheckVolumeMount(m, p)
		}
		if err == nil {
			if j, dup := seen[m.SandboxPath]; dup {
				err = fmt.Errorf("mounts at %s, as volume_mounts.%d does", m.SandboxPath, j)
			}
			seen[m.SandboxPath] = i
		}
		if err != nil {
			errs = append(errs, provider.FieldError{Field: field, Message: err.Error()})
		}
	}
	return errs
}
