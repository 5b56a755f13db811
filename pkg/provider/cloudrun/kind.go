// Package cloudrun runs sandboxes on Cloud Run through Auxilia's sandbox
// gateway (cmd/cloudrun-gateway), which snapshots each thread's /workspace to
// Cloud Storage between runs.
package cloudrun

import (
	"fmt"
	"net/http"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// Kind is the Cloud Run provider. Its zero value is ready to use.
type Kind struct {
}

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
		http:   &http.Client{Transport: provider.NewTransport(s.Policy)},
	}, nil
}

// CloseIdleConnections releases the client's pooled connections (on shutdown, and in tests).
func (c *client) CloseIdleConnections() { c.http.CloseIdleConnections() }
