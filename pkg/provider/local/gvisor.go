package local

import (
	"context"
	"fmt"
	"strings"

	"github.com/auxilia/sandboxes/pkg/gvisor"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// The isolations a local sandbox may ask for (its `isolation`).
const (
	isolationBubblewrap = "bubblewrap"
	isolationGVisor     = "gvisor"
	// isolationAny is the operator's choice that offers both.
	isolationAny = "any"
)

// isolationSettings are the operator's settings of isolation the catalogue
// lists.
func isolationSettings() []provider.OperatorSetting {
	return []provider.OperatorSetting{isolationSetting, gvisorPlatformSetting}
}

// defaultIsolation is a new sandbox's.
func defaultIsolation() string { return isolationBubblewrap }

// The operator's settings of gVisor, as the catalogue and the configuration
// tables show them.
var (
	isolationSetting = provider.OperatorSetting{Env: "AUXILIA_LOCAL_ISOLATION", Default: isolationAny,
		Description: "how local sandboxes may be isolated: `any` offers both `bubblewrap` (the default) and `gvisor` where the server found a working runsc at start, " +
			"`gvisor` makes gVisor the only choice (the server refuses to start where runsc does not work), `bubblewrap` never offers gVisor (nor looks for runsc). " +
			"An instance under gVisor with network goes out through a router of its own that applies the same egress rules as a jail's (it needs the ip tool, from iproute2)",
		Check: func(value string) error {
			switch value {
			case isolationAny, isolationBubblewrap, isolationGVisor:
				return nil
			}
			return fmt.Errorf("must be any, bubblewrap or gvisor, not %q", value)
		}}
	gvisorPlatformSetting = provider.OperatorSetting{Env: "AUXILIA_LOCAL_GVISOR_PLATFORM", Default: gvisor.Ptrace,
		Description: "how gVisor's kernel catches local instances' system calls: `ptrace` (any host, the slowest), `systrap` (runsc from mid-2023 on) or `kvm` (needs /dev/kvm); " +
			"the server tries it at start and offers gVisor only where it works",
		Check: func(value string) error {
			_, err := gvisor.ParsePlatform(value)
			return err
		}}
)

// Isolation is how this server may isolate local instances: what its
// operator allows, and whether runsc works here.
type Isolation struct {
	// Only, when set, is the one isolation every local sandbox gets.
	Only string
	// GVisor is what the server found of runsc at start.
	GVisor gvisor.Status
}

// ReadIsolation reads the operator's settings (already checked by
// ReadOperatorSettings) and tries runsc unless gVisor is never offered.
// Where gVisor is the only choice and cannot run, it fails, saying why.
func ReadIsolation(ctx context.Context, values provider.OperatorValues) (Isolation, error) {
	var i Isolation
	if choice := values.Value(isolationSetting); choice != isolationAny {
		i.Only = choice
	}
	if i.Only == isolationBubblewrap {
		return i, nil
	}
	i.GVisor = gvisor.Detect(ctx, gvisor.Probe{Platform: values.Value(gvisorPlatformSetting)})
	if ok, why := i.offers(isolationGVisor); !ok && i.Only == isolationGVisor {
		return i, fmt.Errorf("%s is gvisor, but %s", isolationSetting.Env, why)
	}
	return i, nil
}

// offers says whether a sandbox may ask for the isolation, and why not.
func (i Isolation) offers(isolation string) (bool, string) {
	switch {
	case isolation == isolationBubblewrap && i.Only == isolationGVisor:
		return false, "this server runs local sandboxes under gVisor alone (" + isolationSetting.Env + ")"
	case isolation == isolationBubblewrap:
		return true, ""
	case i.Only == isolationBubblewrap:
		return false, "this server offers bubblewrap alone (" + isolationSetting.Env + ")"
	case !i.GVisor.Available():
		return false, "gVisor cannot run on this server: " + i.GVisor.Reason()
	}
	return true, ""
}

// TuneSchema narrows isolation's choices to those this server offers, and
// says why the others are not. A schema of no server (its isolation not
// looked for, as the API's reference is made) keeps them all.
func (c *Config) TuneSchema(schema map[string]any) {
	props, _ := schema["properties"].(map[string]any)
	p, ok := props["isolation"].(map[string]any)
	if !ok || c.isolation == (Isolation{}) {
		return
	}
	enum := []string{}
	var notes []string
	for _, choice := range []string{isolationBubblewrap, isolationGVisor} {
		if ok, why := c.isolation.offers(choice); ok {
			enum = append(enum, choice)
		} else {
			notes = append(notes, choice+" is not offered: "+why+".")
		}
	}
	p["enum"] = enum
	if len(notes) > 0 {
		p["description"] = fmt.Sprint(p["description"], " On this server, ", strings.Join(notes, " "))
	}
}

// isolationError is why the sandbox's isolation is refused here, or nil.
func (c *Config) isolationError() *provider.FieldError {
	if ok, why := c.isolation.offers(c.Isolation); !ok && c.Isolation != "" {
		return &provider.FieldError{Field: "isolation", Message: why}
	}
	return nil
}

// refused refuses op for a sandbox this server cannot run as it was saved:
// above a ceiling lowered since, or isolated in a way no longer offered.
func (c *Config) refused(op string) error {
	if err := c.aboveCeilings(op); err != nil {
		return err
	}
	if fe := c.isolationError(); fe != nil {
		return provider.Errorf(provider.ErrInvalidConfig, providerName, op, "isolation %s: %s", c.Isolation, fe.Message)
	}
	return nil
}
