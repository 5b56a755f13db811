package provider

import (
	"encoding/base64"
	"strings"
)

// Descriptor is everything a provider says about itself, in one place: what
// the catalogue shows, where it stands in it, what its sandboxes take and can
// do, and what it needs from the server's operator.
type Descriptor struct {
	// Name is the provider's key in the API: "opensandbox", "daytona", …
	Name string
	// Title and Description are what the Add sandbox dialog shows.
	Title       string
	Description string
	// Icon is an SVG image of the provider (see IconURL).
	Icon []byte
	// Order places the provider in the catalogue: lower first, then by name.
	Order int
	// URL and Secret say whether a sandbox of this kind takes them.
	URL    Field
	Secret Field
	// Capabilities are what its sandboxes can do beyond the contract's minimum.
	Capabilities Capabilities
	// Shell is what runs a command's line: ShellBash, ShellBashOrSh or ShellSh.
	Shell string
	// FilesInWorkDir says the file tools reach only paths inside an
	// instance's working directory: a provider whose instances run on this
	// server's own host says so, for outside that folder are the host's files.
	FilesInWorkDir bool
	// Settings are the environment variables it reads from the operator.
	Settings []OperatorSetting
	// Common tunes the settings every provider shares (see Common).
	Common CommonRules
	// Ceilings are this server's operator's bounds on the numbers its
	// sandboxes set, where they are lower than the provider's own.
	Ceilings []Ceiling
}

// IconURL is the icon as a data: URL, which an <img> shows and never runs.
func (d Descriptor) IconURL() string {
	if len(d.Icon) == 0 {
		return ""
	}
	return "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString(d.Icon)
}

// The shells a provider may run commands in, as the catalogue words them.
const (
	ShellBash     = "bash"
	ShellBashOrSh = "bash, or sh where the image has no bash"
	ShellSh       = "sh"
)

// Shells lists the values Shell may take.
func Shells() []string { return []string{ShellBash, ShellBashOrSh, ShellSh} }

// RunsBash says whether commands run in bash wherever bash is installed,
// so that `[[ ]]`, arrays, `source` and `pipefail` work there.
func (d Descriptor) RunsBash() bool { return d.Shell == ShellBash || d.Shell == ShellBashOrSh }

// Capabilities is a set of what a provider's sandboxes can do.
type Capabilities uint32

// The capabilities a provider may declare.
const (
	// KeepAlive: instances expire unless told they are in use (KeepAlive renews them).
	KeepAlive Capabilities = 1 << iota
	// FindCreated: an instance whose creation went unanswered is found again by its labels (see Finder).
	FindCreated
	// Persist: files are saved elsewhere at the end of a run and restored in the next (see Client.Persist).
	Persist
	// VolumeMounts: host folders can be mounted into instances.
	VolumeMounts
	// NetworkSwitch: a setting turns the instances' network access on or off.
	NetworkSwitch
	// PauseResume: an instance can be paused and resumed with its memory.
	PauseResume
	// SnapshotRestore: an instance's files can be saved as a snapshot and restored from it.
	SnapshotRestore
	// EgressRules: the hosts instances may reach can be listed.
	EgressRules
	// Resources: CPU, memory and disk can be set per sandbox.
	Resources
	// Terminal: an interactive terminal can be opened in an instance.
	Terminal
	// Interrupt: a running command can be interrupted.
	Interrupt
	// ProviderPool: the provider keeps a sandbox's warm pool itself (see PoolKeeper).
	ProviderPool
)

// capabilityNames are the capabilities as the API names them, in bit order.
var capabilityNames = []string{"keep_alive", "find_created", "persist", "volume_mounts", "network_switch",
	"pause_resume", "snapshot_restore", "egress_rules", "resources", "terminal", "interrupt", "provider_pool"}

// CapabilityNames lists every capability a provider may declare, as the API names them.
func CapabilityNames() []string { return append([]string(nil), capabilityNames...) }

// Has reports whether the set holds every capability of c.
func (s Capabilities) Has(c Capabilities) bool { return s&c == c }

// Names lists the set's capabilities as the API names them, in a fixed order.
func (s Capabilities) Names() []string {
	out := []string{}
	for i, name := range capabilityNames {
		if s.Has(1 << i) {
			out = append(out, name)
		}
	}
	return out
}

// String is the set's names, joined with commas.
func (s Capabilities) String() string { return strings.Join(s.Names(), ",") }
