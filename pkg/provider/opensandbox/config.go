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
	provider.Common
}

// DefaultConfig is a new OpenSandbox sandbox's settings.
func DefaultConfig() *Config {
	return &Config{DefaultImage: "python:3.12-slim", VolumeMounts: []string{}, UseServerProxy: true, Common: provider.DefaultCommon()}
}

// Validate checks each volume mount's syntax and host path, and that no two
// mounts share a sandbox path.
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
