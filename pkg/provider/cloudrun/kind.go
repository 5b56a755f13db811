// Package cloudrun runs sandboxes on Cloud Run through Auxilia's sandbox
// gateway (cmd/cloudrun-gateway), which snapshots each thread's /workspace to
// Cloud Storage between runs.
package cloudrun

import (
	"errors"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// Kind is the Cloud Run provider.
type Kind struct{}

func (Kind) Name() string        { return "cloudrun" }
func (Kind) Title() string       { return "Cloud Run" }
func (Kind) Description() string { return "Google Cloud Run sandboxes through the Auxilia gateway." }

func (Kind) URL() provider.Field {
	return provider.Field{Accepted: true, Required: true, Label: "Gateway URL"}
}

func (Kind) Secret() provider.Field {
	return provider.Field{Accepted: true, Required: true, Label: "Gateway secret"}
}

func (Kind) NewConfig() provider.Config { return DefaultConfig() }

func (Kind) Open(s provider.Settings) (provider.Client, error) {
	return nil, errors.New("cloudrun: client not built yet")
}
