// Package agentsandbox runs sandboxes on a Kubernetes cluster with
// Kubernetes SIG Apps' agent-sandbox: a Sandbox resource per instance,
// whose controller keeps one pod for it, and sandboxd in that pod, which
// runs commands over gRPC and serves files over REST.
package agentsandbox

import (
	_ "embed"

	"github.com/auxilia/sandboxes/pkg/provider"
)

const providerName = "kubernetes"

// Kind is the Kubernetes provider. The zero value is ready to use.
type Kind struct{}

//go:embed icon.svg
var icon []byte

// Describe says what the provider is to the catalogue.
func (Kind) Describe() provider.Descriptor {
	return provider.Descriptor{
		Name:        providerName,
		Title:       "Kubernetes (agent-sandbox)",
		Description: "Sandboxes as agent-sandbox Sandboxes on your Kubernetes cluster, each a pod running sandboxd.",
		Icon:        icon,
		Order:       35,
		URL:         provider.Field{Accepted: false},
		Secret:      provider.Field{Accepted: true, Required: false, Label: "Kubeconfig (empty: this server's service account)"},
		Capabilities: provider.FindCreated | provider.PauseResume | provider.Resources | provider.Interrupt |
			provider.Terminal | provider.NetworkSwitch | provider.EgressRules | provider.ProviderPool,
		Shell:  provider.ShellBashOrSh,
		Common: rules,
	}
}

func (Kind) NewConfig() provider.Config { return DefaultConfig() }

// Open returns a client for one registered Kubernetes sandbox.
func (Kind) Open(s provider.Settings) (provider.Client, error) { return newClient(s) }
