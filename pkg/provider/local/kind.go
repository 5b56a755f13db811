// Package local runs sandboxes on the server's own host under bubblewrap:
// the embedded default, which needs no account anywhere.
package local

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// Kind is the local provider.
type Kind struct {
	// DataDir holds one folder per instance, under instances/, and the
	// Python environment they start from, under python/.
	DataDir string
	// Bwrap is the bubblewrap binary ("" = "bwrap" from PATH).
	Bwrap string
	// Python, as the jails see it, makes the Python environment every
	// instance has ("" = "python3" from the jails' PATH).
	Python string
	// JailIDs are the host users and groups instances' jails run as, one
	// of each per instance, when the server runs as root (none:
	// bubblewrap.HostIDs).
	JailIDs bubblewrap.IDs
	// Ceilings are the most one instance may ask for on this server (see
	// ReadCeilings); zero ones leave the provider's own bounds.
	Ceilings Ceilings
	// Isolation is how instances may be isolated here (see ReadIsolation);
	// zero: bubblewrap only, as runsc was not looked for.
	Isolation Isolation
	// PackageIndex is the index URL default packages are installed from
	// (see ReadPackageIndex; "": PyPI's).
	PackageIndex string
}

//go:embed icon.svg
var icon []byte

// Describe says what the local provider is to the catalogue; the operator
// switches it off where sandboxes must not run on the server's host, and
// sets the ceilings of its instances.
func (k Kind) Describe() provider.Descriptor {
	return provider.Descriptor{
		Name:        providerName,
		Title:       "Local",
		Description: "Bubblewrap sandboxes on this server's host: no account needed.",
		Icon:        icon,
		Order:       40,
		Capabilities: provider.NetworkSwitch | provider.EgressRules | provider.Resources | provider.FindCreated |
			provider.PauseResume | provider.SnapshotRestore | provider.Interrupt | provider.Terminal,
		Shell:          provider.ShellBashOrSh,
		FilesInWorkDir: true,
		Settings: append([]provider.OperatorSetting{{Env: "AUXILIA_LOCAL_PROVIDER", Default: "on", Switch: true,
			Description: "`off` switches the local (bubblewrap) provider off"}}, append(append(ceilingSettings(), jailIDsSetting, packageIndexSetting), isolationSettings()...)...),
		Ceilings: k.Ceilings.list(),
		Common: provider.CommonRules{PackagesNote: "installed from " + packageIndexSetting.Env + "'s index (PyPI unless the server says otherwise), which the install alone reaches whatever network says",
			Egress: provider.EgressLimits{Domains: true, Addresses: true, IPv6: true, Deny: true, Walled: bubblewrap.Walled,
				Note: "offline by default; private, loopback and link-local addresses and the server's own are never reached; a domain stands for the addresses the server resolves it to when an instance's command starts"},
			Resources: provider.ResourceLimits{
				CPU:      provider.Range{Min: cpuCeiling.min, Max: cpuCeiling.max, Note: "of all of an instance's commands together, a quota of CPU time; where the server cannot make cgroups with the cpu controller (it is not root and its delegated cgroup v2 has none), not bounded; " + cpuCeiling.bounds() + "; 0: that ceiling"},
				MemoryMB: provider.Range{Min: memoryCeiling.min, Max: memoryCeiling.max, Note: "together, their /tmp included; past it the kernel ends the largest process; where the server cannot make cgroups (it is not root and has no delegated cgroup v2), each process may use this much instead; " + memoryCeiling.bounds() + "; 0: 1024, or the ceiling where lower"},
				DiskMB:   provider.Range{Min: diskCeiling.min, Max: diskCeiling.max, Note: "set when the instance is made: a write past it fails with 'No space left on device'; where the server cannot mount disks (it is not root), each file may be this large instead; " + diskCeiling.bounds() + "; 0: 1024, or the ceiling where lower"},
			}},
	}
}

// NewConfig is DefaultConfig within the server's ceilings.
func (k Kind) NewConfig() provider.Config {
	c := DefaultConfig()
	c.ceilings = k.Ceilings
	c.isolation = k.Isolation
	if k.Isolation.Only != "" {
		c.Isolation = k.Isolation.Only
	}
	c.Resources.MemoryMB = lower(c.Resources.MemoryMB, k.Ceilings.MemoryMB)
	c.Resources.DiskMB = lower(c.Resources.DiskMB, k.Ceilings.DiskMB)
	c.MaxProcesses = lower(c.MaxProcesses, k.Ceilings.Processes)
	return c
}

// Open returns a client whose instances live under DataDir/instances. The
// first in this process for that folder sweeps what a stopped server left.
func (k Kind) Open(s provider.Settings) (provider.Client, error) {
	cfg, ok := s.Config.(*Config)
	if !ok {
		return nil, fmt.Errorf("local: config is a %T, not a *local.Config", s.Config)
	}
	if k.DataDir == "" {
		return nil, errors.New("local: no data folder")
	}
	instances, err := filepath.Abs(filepath.Join(k.DataDir, "instances"))
	if err != nil {
		return nil, fmt.Errorf("local: %w", err)
	}
	c := &client{instances: instances, pythons: filepath.Join(filepath.Dir(instances), pythonFolder), bwrap: k.Bwrap, python: k.Python,
		config: *cfg, ids: k.JailIDs, index: packageIndex{k.PackageIndex}, running: map[string]*commands{}}
	if c.ids.Count == 0 {
		c.ids = bubblewrap.HostIDs()
	}
	c.config.ceilings = k.Ceilings
	c.config.isolation = k.Isolation
	c.cgroups, _ = bubblewrap.OpenCgroups(cgroupScope(instances))
	c.iso = c.isolator()
	c.disks = bubblewrap.DisksSupported() == nil
	c.sweepOnce()
	return c, nil
}

// cgroupScope names the cgroup folder of the instances in one folder: a
// server (or a test) with another data folder has its own.
func cgroupScope(instances string) string {
	sum := sha256.Sum256([]byte(instances))
	return "auxilia-" + hex.EncodeToString(sum[:8])
}
