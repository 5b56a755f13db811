package opensandbox

import (
	"fmt"
	"regexp"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// The metadata keys that mark an instance as ours.
const (
	labelManagedBy = "managed-by"
	labelWorkspace = "auxilia-workspace"
	labelSandbox   = "auxilia-sandbox"
	labelThread    = "auxilia-thread"
	labelInstance  = "auxilia-instance"
)

// labelValue is a Kubernetes label value, which the controller enforces on metadata.
var labelValue = regexp.MustCompile(`^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$`)

// metadata labels an instance with our own ids. A value the controller
// would refuse is left out rather than failing the create over a label.
func metadata(l provider.Labels) map[string]string {
	m := map[string]string{labelManagedBy: "auxilia"}
	for key, value := range map[string]string{labelWorkspace: l.Workspace, labelSandbox: l.Sandbox, labelThread: l.Thread, labelInstance: l.Instance} {
		if len(value) <= 63 && labelValue.MatchString(value) {
			m[key] = value
		}
	}
	return m
}

// volumes turns the config's mounts into the API's host volumes.
func volumes(mounts []string) ([]volume, error) {
	var out []volume
	for i, raw := range mounts {
		m, err := provider.ParseVolumeMount(raw)
		if err != nil {
			return nil, fmt.Errorf("volume_mounts.%d %s", i, err)
		}
		out = append(out, volume{
			Name:      fmt.Sprintf("mount-%d", i), // a DNS label, unique within the sandbox
			MountPath: m.SandboxPath,
			ReadOnly:  m.ReadOnly,
			Host:      hostVolume{Path: m.HostPath},
		})
	}
	return out, nil
}
