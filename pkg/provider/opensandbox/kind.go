// Package opensandbox runs sandboxes on an OpenSandbox controller: its
// lifecycle API creates containers, and execd inside each runs commands and
// serves files.
package opensandbox

import (
	"errors"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// Kind is the OpenSandbox provider.
type Kind struct{}

func (Kind) Name() string        { return "opensandbox" }
func (Kind) Title() string       { return "OpenSandbox" }
func (Kind) Description() string { return "Containers on your own OpenSandbox controller." }

func (Kind) URL() provider.Field {
	return provider.Field{Accepted: true, Required: true, Label: "Domain"}
}

func (Kind) Secret() provider.Field {
	return provider.Field{Accepted: true, Label: "API key"}
}

func (Kind) NewConfig() provider.Config { return DefaultConfig() }

func (Kind) Open(s provider.Settings) (provider.Client, error) {
	return nil, errors.New("opensandbox: client not built yet")
}
