package sandbox

import (
	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// current returns sb with its config in today's shape: a config stored by
// an older version (local's network switch and memory_mb, Cloud Run's
// allow_egress, OpenSandbox's cpu and memory quantities) reads as what it
// meant, every default written out. A config that does not decode is
// returned as stored, for its client to refuse with the reason.
func (r *Registry) current(sb auxilia.Sandbox) auxilia.Sandbox {
	kind, ok := r.Providers.Kind(sb.Provider)
	if !ok {
		return sb
	}
	cfg, errs := provider.DecodeConfig(kind, sb.Config)
	if len(errs) > 0 {
		return sb
	}
	if raw, err := provider.EncodeConfig(cfg); err == nil {
		sb.Config = raw
	}
	return sb
}
