package sandbox

import "github.com/auxilia/sandboxes/pkg/provider"

// ProviderInfo is one entry of the provider catalogue: what the Add sandbox
// dialog needs to render a provider's form.
type ProviderInfo struct {
	Name           string
	Title          string
	Description    string
	Enabled        bool
	DisabledReason string
	URL            provider.Field
	Secret         provider.Field
	ConfigSchema   map[string]any
}

// Catalogue lists the providers this server offers.
func (r *Registry) Catalogue() []ProviderInfo {
	var out []ProviderInfo
	for _, name := range r.Providers.Names() {
		k, _ := r.Providers.Kind(name)
		reason := r.Providers.Disabled(name)
		out = append(out, ProviderInfo{
			Name: k.Name(), Title: k.Title(), Description: k.Description(),
			Enabled: reason == "", DisabledReason: reason,
			URL: k.URL(), Secret: k.Secret(), ConfigSchema: provider.Schema(k),
		})
	}
	return out
}
