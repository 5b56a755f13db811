// Package daytona runs sandboxes on Daytona: its control plane creates,
// starts and stops them, and its toolbox runs commands and serves files.
package daytona

import (
	"github.com/auxilia/sandboxes/pkg/provider"
)

// DefaultURL is Daytona's hosted control plane.
const DefaultURL = "https://app.daytona.io/api"

// Kind is the Daytona provider. The zero value is ready to use.
type Kind struct {
	// Waits bounds polling and retrying; zero fields take their defaults.
	Waits Waits
}

func (Kind) Name() string        { return "daytona" }
func (Kind) Title() string       { return "Daytona" }
func (Kind) Description() string { return "Hosted sandboxes on Daytona, or your self-hosted Daytona." }

func (Kind) URL() provider.Field {
	return provider.Field{Accepted: true, Required: true, Default: DefaultURL, Label: "API URL"}
}

func (Kind) Secret() provider.Field {
	return provider.Field{Accepted: true, Required: true, Label: "API key"}
}

func (Kind) NewConfig() provider.Config { return DefaultConfig() }

// Open returns a client for one registered Daytona sandbox.
func (k Kind) Open(s provider.Settings) (provider.Client, error) {
	return newClient(k, s)
}
