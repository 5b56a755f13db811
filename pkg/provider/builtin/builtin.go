// Package builtin lists the providers this server ships with: adding a
// provider is one package beside pkg/provider plus one line here.
package builtin

import (
	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/agentsandbox"
	"github.com/auxilia/sandboxes/pkg/provider/cloudrun"
	"github.com/auxilia/sandboxes/pkg/provider/daytona"
	"github.com/auxilia/sandboxes/pkg/provider/e2b"
	"github.com/auxilia/sandboxes/pkg/provider/local"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox"
)

// Options are what the providers need from the server's configuration.
type Options struct {
	// DataDir is the server's data folder (local instances live under it).
	DataDir string
	// LocalCeilings are the most one local instance may ask for (zero
	// ones: the local provider's own bounds).
	LocalCeilings local.Ceilings
	// LocalJailIDs are the host users local instances' jails run as (none:
	// the host's, see bubblewrap.HostIDs).
	LocalJailIDs bubblewrap.IDs
	// LocalIsolation is how local instances may be isolated (zero:
	// bubblewrap only).
	LocalIsolation local.Isolation
	// LocalPackageIndex is the index local instances install their
	// default packages from ("": PyPI's).
	LocalPackageIndex string
}

// Kinds returns every provider, in catalogue order.
func Kinds(o Options) []provider.Kind {
	return []provider.Kind{
		opensandbox.Kind{},
		e2b.Kind{},
		daytona.Kind{},
		cloudrun.Kind{},
		agentsandbox.Kind{},
		local.Kind{DataDir: o.DataDir, Ceilings: o.LocalCeilings, JailIDs: o.LocalJailIDs, Isolation: o.LocalIsolation, PackageIndex: o.LocalPackageIndex},
	}
}
