package sandbox

import "github.com/auxilia/sandboxes/pkg/provider"

// ProviderInfo is one entry of the provider catalogue: what the Add sandbox
// dialog needs to render a provider's form.
type ProviderInfo struct {
	provider.Descriptor
	Enabled        bool
	DisabledReason string
	ConfigSchema   map[string]any
}

// Catalogue lists the providers this server offers.
func (r *Registry) Catalogue() []ProviderInfo {
	var out []ProviderInfo
	for _, name := range r.Providers.Names() {
		k, _ := r.Providers.Kind(name)
		reason := r.Providers.Disabled(name)
		out = append(out, ProviderInfo{Descriptor: k.Describe(), Enabled: reason == "", DisabledReason: reason,
			ConfigSchema: provider.Schema(k)})
	}
	return out
}
