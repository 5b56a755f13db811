// Package opensandbox runs sandboxes on an OpenSandbox controller: its
// lifecycle API creates containers, and execd inside each runs commands and
// serves files.
package opensandbox

import (
	_ "embed"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// Kind is the OpenSandbox provider. Its zero value is ready to use.
type Kind struct {
	// ReadyTimeout bounds how long Create waits for a new instance to run
	// and its execd to answer; zero means three minutes.
	ReadyTimeout time.Duration
	// RequestTimeout bounds each call other than a command; zero means a minute.
	RequestTimeout time.Duration
}

//go:embed icon.svg
var icon []byte

// Describe says what OpenSandbox is to the catalogue.
func (Kind) Describe() provider.Descriptor {
	return provider.Descriptor{
		Name:        providerName,
		Title:       "OpenSandbox",
		Description: "Containers on your own OpenSandbox controller.",
		Icon:        icon,
		Order:       10,
		URL:         provider.Field{Accepted: true, Required: true, Label: "Domain"},
		Secret:      provider.Field{Accepted: true, Label: "API key"},
		Capabilities: provider.KeepAlive | provider.FindCreated | provider.VolumeMounts | provider.Resources |
			provider.PauseResume | provider.SnapshotRestore | provider.Interrupt | provider.NetworkSwitch | provider.EgressRules |
			provider.Terminal,
		Shell: provider.ShellBashOrSh,
		Common: provider.CommonRules{PackagesNote: "needs the sandbox to reach PyPI",
			PoolNote: "a claimed instance takes its thread's labels through the server's metadata patch; a server from before that route leaves it the pool's labels, without its thread's",
			Egress: provider.EgressLimits{Domains: true, Wildcards: true, Deny: true,
				Note: "enforced by the controller's egress sidecar, which must be configured (egress.image); rules name domains only"},
			Resources: provider.ResourceLimits{
				CPU:      provider.Range{Min: 0.001, Max: 1024, Note: "rounded to thousandths; 0: 1"},
				MemoryMB: provider.Range{Min: 64, Max: 16 << 20, Note: "0: 2048"},
			}},
	}
}

func (Kind) NewConfig() provider.Config { return DefaultConfig() }

// Open returns a client for the controller at s.URL, whose API is served under /v1.
func (k Kind) Open(s provider.Settings) (provider.Client, error) {
	return newClient(k, s)
}
