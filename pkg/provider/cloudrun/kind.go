// Package cloudrun runs sandboxes on Cloud Run through Auxilia's sandbox
// gateway (cmd/cloudrun-gateway), which snapshots each thread's /workspace to
// Cloud Storage between runs.
package cloudrun

import (
	_ "embed"
	"fmt"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// Kind is the Cloud Run provider. Its zero value is ready to use.
type Kind struct {
}

//go:embed icon.svg
var icon []byte

// Describe says what Cloud Run is to the catalogue. Cloud Run ends a
// request after an hour, and so a command.
func (Kind) Describe() provider.Descriptor {
	return provider.Descriptor{
		Name:        providerName,
		Title:       "Cloud Run",
		Description: "Google Cloud Run sandboxes through the Auxilia gateway.",
		Icon:        icon,
		Order:       30,
		URL:         provider.Field{Accepted: true, Required: true, Label: "Gateway URL"},
		Secret:      provider.Field{Accepted: true, Required: true, Label: "Gateway secret"},
		Capabilities: provider.KeepAlive | provider.Persist | provider.NetworkSwitch | provider.EgressRules | provider.Resources |
			provider.PauseResume | provider.SnapshotRestore | provider.Interrupt | provider.Terminal,
		Shell:  provider.ShellBash,
		Common: rules,
	}
}

func (Kind) NewConfig() provider.Config { return DefaultConfig() }

// Open returns a client of the gateway at s.URL.
func (k Kind) Open(s provider.Settings) (provider.Client, error) {
	cfg, ok := s.Config.(*Config)
	if !ok {
		return nil, fmt.Errorf("cloudrun: config is %T, not *cloudrun.Config", s.Config)
	}
	if s.URL == "" {
		return nil, fmt.Errorf("cloudrun: the gateway url is required")
	}
	return &client{
		base:   s.URL,
		secret: s.Secret,
		cfg:    *cfg,
		http:   provider.NewHTTPClient(s.Policy),
	}, nil
}

// CloseIdleConnections releases the client's pooled connections (on shutdown, and in tests).
func (c *client) CloseIdleConnections() { c.http.CloseIdleConnections() }
