package sandbox

import (
	"context"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// checkAtProvider asks a provider whose clients can check a config at
// save (provider.SaveChecker) what it refuses of a new sandbox's, within
// the probe's timeout: the fields it names, as the config's.
func (r *Registry) checkAtProvider(ctx context.Context, spec auxilia.SandboxSpec, secretValue string) auxilia.FieldErrors {
	kind, ok := r.Providers.Kind(spec.Provider)
	if !ok {
		return nil
	}
	cfg, errs := provider.DecodeConfig(kind, spec.Config)
	if len(errs) > 0 {
		return nil
	}
	client, err := kind.Open(provider.Settings{URL: spec.URL, Secret: secretValue, Config: cfg, Policy: r.Providers.Policy()})
	if err != nil {
		return nil
	}
	if idle, ok := client.(interface{ CloseIdleConnections() }); ok {
		defer idle.CloseIdleConnections()
	}
	checker, ok := client.(provider.SaveChecker)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, r.probeTimeout)
	defer cancel()
	var fe auxilia.FieldErrors
	for _, e := range checker.CheckSave(ctx) {
		fe.Add(joinField("config", e.Field), "%s", provider.Scrub(e.Message, secretValue))
	}
	return fe
}
