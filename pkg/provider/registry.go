package provider

import (
	"cmp"
	"slices"
)

// Registry holds the providers this server offers, by name.
type Registry struct {
	kinds    map[string]Kind
	disabled map[string]string
	policy   Policy
}

// NewRegistry returns a registry of the given kinds under the operator's
// policy, each switched on or off by its own operator setting, if it has one.
func NewRegistry(p Policy, values OperatorValues, kinds ...Kind) *Registry {
	r := &Registry{kinds: map[string]Kind{}, disabled: map[string]string{}, policy: p}
	for _, k := range kinds {
		d := k.Describe()
		r.kinds[d.Name] = k
		if reason := offBy(d, values); reason != "" {
			r.disabled[d.Name] = reason
		}
	}
	return r
}

// Kind returns the provider called name.
func (r *Registry) Kind(name string) (Kind, bool) {
	k, ok := r.kinds[name]
	return k, ok
}

// Disabled returns why the provider is switched off, or "" when it is on.
// A disabled provider stays in the catalogue, marked off with the reason,
// and no new sandbox of it can be registered.
func (r *Registry) Disabled(name string) string { return r.disabled[name] }

// Names lists the providers in the catalogue's order: by their declared
// order, then by name.
func (r *Registry) Names() []string {
	descs := make([]Descriptor, 0, len(r.kinds))
	for _, k := range r.kinds {
		descs = append(descs, k.Describe())
	}
	slices.SortFunc(descs, func(a, b Descriptor) int {
		return cmp.Or(cmp.Compare(a.Order, b.Order), cmp.Compare(a.Name, b.Name))
	})
	names := make([]string, len(descs))
	for i, d := range descs {
		names[i] = d.Name
	}
	return names
}

// Policy is the operator's policy for sandbox settings.
func (r *Registry) Policy() Policy { return r.policy }
