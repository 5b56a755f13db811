// Package opensandbox runs sandboxes on an OpenSandbox controller: its
// lifecycle API creates containers, and execd inside each runs commands and
// serves files.
package opensandbox

import (
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

// Open returns a client for the controller at s.URL, whose API is served under /v1.
func (k Kind) Open(s provider.Settings) (provider.Client, error) {
	return newClient(k, s)
}
