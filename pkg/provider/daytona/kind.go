// Package daytona runs sandboxes on Daytona: its control plane creates,
// starts and stops them, and its toolbox runs commands and serves files.
package daytona

import (
	_ "embed"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// DefaultURL is Daytona's hosted control plane.
const DefaultURL = "https://app.daytona.io/api"

// Kind is the Daytona provider. The zero value is ready to use.
type Kind struct {
	// Waits bounds polling and retrying; zero fields take their defaults.
	Waits Waits
}

//go:embed icon.svg
var icon []byte

// Describe says what Daytona is to the catalogue.
func (Kind) Describe() provider.Descriptor {
	return provider.Descriptor{
		Name:        providerName,
		Title:       "Daytona",
		Description: "Hosted sandboxes on Daytona, or your self-hosted Daytona.",
		Icon:        icon,
		Order:       20,
		URL:         provider.Field{Accepted: true, Required: true, Default: DefaultURL, Label: "API URL"},
		Secret:      provider.Field{Accepted: true, Required: true, Label: "API key"},
		Capabilities: provider.KeepAlive | provider.FindCreated | provider.NetworkSwitch | provider.EgressRules |
			provider.PauseResume | provider.SnapshotRestore | provider.Interrupt | provider.Terminal | provider.Resources,
		Shell:  provider.ShellBashOrSh,
		Common: rules,
	}
}

func (Kind) NewConfig() provider.Config { return DefaultConfig() }

// Open returns a client for one registered Daytona sandbox.
func (k Kind) Open(s provider.Settings) (provider.Client, error) {
	return newClient(k, s)
}
