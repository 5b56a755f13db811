// Package e2b runs sandboxes on E2B: its control plane creates, pauses,
// resumes and kills Firecracker microVMs, and envd, the daemon inside each
// one, runs commands and serves files over Connect-RPC.
package e2b

import (
	_ "embed"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// DefaultURL is E2B's hosted control plane.
const DefaultURL = "https://api.e2b.app"

const providerName = "e2b"

// Kind is the E2B provider. The zero value is ready to use.
type Kind struct{}

//go:embed icon.svg
var icon []byte

// Describe says what E2B is to the catalogue.
func (Kind) Describe() provider.Descriptor {
	return provider.Descriptor{
		Name:        providerName,
		Title:       "E2B",
		Description: "Hosted microVM sandboxes on E2B, or your self-hosted E2B.",
		Icon:        icon,
		Order:       15,
		URL:         provider.Field{Accepted: true, Required: true, Default: DefaultURL, Label: "API URL"},
		Secret:      provider.Field{Accepted: true, Required: true, Label: "API key"},
		Capabilities: provider.KeepAlive | provider.FindCreated | provider.NetworkSwitch | provider.EgressRules | provider.PauseResume |
			provider.SnapshotRestore | provider.Interrupt | provider.Terminal,
		Shell:  provider.ShellBash,
		Common: rules,
	}
}

func (Kind) NewConfig() provider.Config { return DefaultConfig() }

// Open returns a client for one registered E2B sandbox.
func (Kind) Open(s provider.Settings) (provider.Client, error) { return newClient(s) }
