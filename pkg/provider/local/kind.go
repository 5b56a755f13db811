// Package local runs sandboxes on the server's own host under bubblewrap:
// the embedded default, which needs no account anywhere.
package local

import (
	"errors"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// Kind is the local provider.
type Kind struct {
	// DataDir holds one folder per instance.
	DataDir string
}

func (Kind) Name() string  { return "local" }
func (Kind) Title() string { return "Local" }
func (Kind) Description() string {
	return "Bubblewrap sandboxes on this server's host: no account needed."
}

func (Kind) URL() provider.Field    { return provider.Field{} }
func (Kind) Secret() provider.Field { return provider.Field{} }

func (Kind) NewConfig() provider.Config { return DefaultConfig() }

func (k Kind) Open(s provider.Settings) (provider.Client, error) {
	return nil, errors.New("local: client not built yet")
}
