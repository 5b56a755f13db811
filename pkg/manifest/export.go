package manifest

import (
	"context"
	"maps"
	"slices"

	"github.com/auxilia/sandboxes/pkg/client"
)

// Export is the server's sandboxes and agents as a manifest, every config
// key written out and secrets left out: a sandbox that has one gets a
// secret_env to fill in before the file is applied elsewhere.
func Export(ctx context.Context, api *client.API) (*File, error) {
	s, err := readState(ctx, api)
	if err != nil {
		return nil, err
	}
	f := &File{}
	for _, name := range slices.Sorted(maps.Keys(s.sandboxes)) {
		have := s.sandboxes[name]
		sb := Sandbox{Name: have.Name, Provider: have.Provider, Config: have.Config}
		if have.Description != "" {
			sb.Description = &have.Description
		}
		if have.URL != "" {
			sb.URL = &have.URL
		}
		f.Sandboxes = append(f.Sandboxes, sb)
	}
	for _, name := range slices.Sorted(maps.Keys(s.agents)) {
		have := s.agents[name]
		a := Agent{Name: have.Name, Emoji: &have.Emoji, Color: &have.Color}
		if have.Description != "" {
			a.Description = &have.Description
		}
		if have.Sandbox != nil {
			a.Sandbox, a.Tools = have.Sandbox.Name, have.Sandbox.Tools
			a.Approval = &Approval{GrantedBy: have.Sandbox.Approval.GrantedBy, WithCall: &have.Sandbox.Approval.WithCall}
		}
		f.Agents = append(f.Agents, a)
	}
	return f, nil
}
