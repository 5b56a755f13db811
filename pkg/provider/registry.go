package provider

import "sort"

// Registry holds the providers this server offers, by name.
type Registry struct {
	kinds    map[string]Kind
	disabled map[string]string
	policy   Policy
}

// NewRegistry returns a registry of the given kinds under the operator's policy.
func NewRegistry(p Policy, kinds ...Kind) *Registry {
	r := &Registry{kinds: map[string]Kind{}, disabled: map[string]string{}, policy: p}
	for _, k := range kinds {
		r.kinds[k.Name()] = k
	}
	return r
}

// Disable switches a provider off on this server: it stays in the catalogue,
// marked off with the reason, and no new sandbox of it can be registered.
func (r *Registry) Disable(name, reason string) { r.disabled[name] = reason }

// Kind returns the provider called name.
func (r *Registry) Kind(name string) (Kind, bool) {
	k, ok := r.kinds[name]
	return k, ok
}

// Disabled returns why the provider is switched off, or "" when it is on.
func (r *Registry) Disabled(name string) string { return r.disabled[name] }

// Names lists the providers in the catalogue's order: remote ones first, by name, then local.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.kinds))
	for n := range r.kinds {
		names = append(names, n)
	}
	order := map[string]int{"opensandbox": 0, "daytona": 1, "cloudrun": 2, "local": 3}
	sort.Slice(names, func(i, j int) bool {
		oi, iok := order[names[i]]
		oj, jok := order[names[j]]
		if iok != jok {
			return iok
		}
		if oi != oj {
			return oi < oj
		}
		return names[i] < names[j]
	})
	return names
}

// Policy is the operator's policy for sandbox settings.
func (r *Registry) Policy() Policy { return r.policy }
