package agentsandbox

import (
	"fmt"
	"hash/fnv"
)

// templateHashLabel carries the hash of a pod's SandboxTemplate's name,
// by which the NetworkPolicy the template's controller keeps selects the
// template's pods (SandboxTemplateRefHashLabel in agent-sandbox's
// api/v1beta1/sandbox_types.go).
const templateHashLabel = "agents.x-k8s.io/sandbox-template-ref-hash"

// nameHash is agent-sandbox's hash of an object's name: FNV-1a of its
// bytes, as eight lowercase hexadecimal digits (NameHash and
// GetNumericHash in controllers/sandbox_controller.go, which
// SandboxTemplateRefHash in extensions/controllers/utils.go applies to a
// template's name).
func nameHash(name string) string {
	h := fnv.New32a()
	h.Write([]byte(name))
	return fmt.Sprintf("%08x", h.Sum32())
}
