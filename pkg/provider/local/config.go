package local

import (
	"encoding/json"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// Config is a local sandbox's settings. Memory (resources.memory_mb), CPU
// (resources.cpu) and processes are bounded per instance with a cgroup,
// and disk (resources.disk_mb) with a filesystem image, where the server
// can make them (as root); elsewhere per process, command and file, and
// CPU not at all.
type Config struct {
	MaxProcesses int    `json:"max_processes" validate:"min=8,max=4096" title:"Max processes" doc:"Most processes (threads count too) an instance's commands may run at once, together. Where the server cannot make cgroups, each command may run this many instead. At most this server's ceiling, AUXILIA_LOCAL_MAX_PROCESSES (the maximum its catalogue gives)."`
	Isolation    string `json:"isolation,omitempty" validate:"omitempty,oneof=bubblewrap gvisor" title:"Isolation" doc:"What stands between an instance's commands and this server's kernel. bubblewrap: the host's own kernel, behind namespaces and a seccomp filter; the fastest, but a kernel bug a command reaches is the host's. gvisor: gVisor's kernel in user space (runsc), a second wall, so that a kernel bug a command reaches is gVisor's, not the host's; it costs about a second more to start an instance, slower system calls (on the ptrace platform a 100 MB write takes about 5 times as long, a pip install 2.4 times, an echo 1.4 times: see the benchmarks) and a few uncommon system calls missing; its network goes through a router of its own that applies the same egress rules, and past resources.memory_mb the whole instance's kernel is ended, not only its largest process. Offered where the server found a working runsc at start."`
	provider.Common
	// isolation is what the server offers (Kind.Isolation).
	isolation Isolation
	// ceilings are the server's (Kind.Ceilings): a resource left at 0 is
	// the provider's default, or the ceiling where that is lower.
	ceilings Ceilings
}

// The resources an instance gets when its settings say 0.
const (
	defaultMemoryMB = 1024
	defaultDiskMB   = 1024
)

// DefaultConfig is a new local sandbox's settings: offline.
func DefaultConfig() *Config {
	c := &Config{MaxProcesses: 256, Isolation: defaultIsolation(), Common: provider.DefaultCommon()}
	c.Network = provider.DenyNetwork()
	c.Resources = provider.InstanceResources{MemoryMB: defaultMemoryMB, DiskMB: defaultDiskMB}
	return c
}

// Upgrade reads what older versions stored: memory_mb and disk_mb beside
// the other keys (and network as a switch, which Network reads itself).
func (c *Config) Upgrade(values map[string]json.RawMessage) {
	provider.MoveKey(values, "memory_mb", "resources", "memory_mb")
	provider.MoveKey(values, "disk_mb", "resources", "disk_mb")
}

// Validate adds to the common block's rules (Kind.Describe) the isolation
// this server offers.
func (c *Config) Validate(provider.Policy) []provider.FieldError {
	var errs []provider.FieldError
	if fe := c.isolationError(); fe != nil {
		errs = append(errs, *fe)
	}
	return errs
}

// memoryMB and diskMB are the resources of each instance.
func (c *Config) memoryMB() int {
	return orDefault(c.Resources.MemoryMB, lower(defaultMemoryMB, c.ceilings.MemoryMB))
}
func (c *Config) diskMB() int {
	return orDefault(c.Resources.DiskMB, lower(defaultDiskMB, c.ceilings.DiskMB))
}

// cpu is the CPUs of each instance: 0 takes the server's ceiling, and no
// bound without one.
func (c *Config) cpu() float64 {
	if c.Resources.CPU > 0 {
		return c.Resources.CPU
	}
	return c.ceilings.CPU
}

func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// egress is what the jails' network lets through, within their wall.
// gvisorNetwork says whether a gVisor container has network: where its
// rules let anything out, or its default packages must reach the index.
func (c *Config) gvisorNetwork() bool {
	return !c.Network.Offline() || len(c.DefaultPackages) > 0
}

// routerEgress is the rules of a gVisor container's router: nil where
// nothing goes out.
func (c *Config) routerEgress() *bubblewrap.Egress {
	if c.Network.Offline() {
		return nil
	}
	e := c.egress()
	return &e
}

func (c *Config) egress() bubblewrap.Egress {
	return bubblewrap.Egress{DenyByDefault: c.Network.Default == provider.EgressDeny, Allow: c.Network.Allow, Deny: c.Network.Deny}
}
