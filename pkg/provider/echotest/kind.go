// Package echotest is a provider made only of the provider kit, for tests:
// "echo", whose client speaks a small HTTP protocol of its own through
// provider.Caller, and whose fake server (Server) is made of
// pkg/provider/fakekit and runs commands in bubblewrap jails. It is the
// worked example of adding a provider: nothing outside this package and
// the line that lists its Kind knows about it. No binary imports it.
package echotest

import (
	_ "embed"
	"fmt"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// providerName is the provider's key in the API.
const providerName = "echo"

// Kind is the echo provider. Its zero value is ready to use.
type Kind struct{}

//go:embed icon.svg
var icon []byte

// Describe says what echo is to the catalogue: a remote provider that
// finds an instance whose creation went unanswered by its labels.
func (Kind) Describe() provider.Descriptor {
	return provider.Descriptor{
		Name:         providerName,
		Title:        "Echo",
		Description:  "A test provider built from the provider kit alone.",
		Icon:         icon,
		Order:        25,
		URL:          provider.Field{Accepted: true, Required: true, Label: "Server URL"},
		Secret:       provider.Field{Accepted: true, Required: true, Label: "Token"},
		Capabilities: provider.FindCreated | provider.PauseResume | provider.SnapshotRestore | provider.Interrupt,
		Shell:        provider.ShellBashOrSh,
		Common: provider.CommonRules{MaxTimeout: 600, TimeoutNote: "echo is quick",
			PoolNote: "a claimed instance keeps the pool's labels, without its thread's"},
	}
}

// NewConfig returns a new echo sandbox's settings.
func (Kind) NewConfig() provider.Config { return DefaultConfig() }

// Open returns a client of the echo server at s.URL.
func (Kind) Open(s provider.Settings) (provider.Client, error) {
	cfg, ok := s.Config.(*Config)
	if !ok {
		return nil, fmt.Errorf("echo: config is %T, not *echotest.Config", s.Config)
	}
	if s.URL == "" {
		return nil, fmt.Errorf("echo: the server url is required")
	}
	return newClient(s.URL, s.Secret, *cfg, s.Policy), nil
}
