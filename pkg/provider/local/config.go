package local

import (
	"github.com/auxilia/sandboxes/pkg/provider"
)

// Config is a local sandbox's settings. Memory and processes are bounded
// per instance with a cgroup, and disk with a filesystem image, where the
// server can make them (as root); elsewhere per process, command and file.
// Disks go from 64 MiB, where ext4 and its journal still leave most of the
// room to files, to 1 TiB, past any workspace: an image costs the host only
// what is written to it.
type Config struct {
	Network      bool `json:"network" title:"Network access" doc:"Let commands reach the network. Off by default; default packages need it."`
	MemoryMB     int  `json:"memory_mb" validate:"min=64,max=65536" title:"Memory (MiB)" doc:"Most memory an instance's commands may use, together (their /tmp included); past it the kernel ends the largest process. Where the server cannot make cgroups (it is not root and has no delegated cgroup v2), each process may use this much instead."`
	MaxProcesses int  `json:"max_processes" validate:"min=8,max=4096" title:"Max processes" doc:"Most processes (threads count too) an instance's commands may run at once, together. Where the server cannot make cgroups, each command may run this many instead."`
	DiskMB       int  `json:"disk_mb" validate:"min=64,max=1048576" title:"Disk (MiB)" doc:"Most an instance may store in its folder, set when the instance is made: a write past it fails with 'No space left on device'. Where the server cannot mount disks (it is not root), each file may be this large instead, and the folder as a whole is not bounded."`
	provider.Common
}

// DefaultConfig is a new local sandbox's settings.
func DefaultConfig() *Config {
	return &Config{MemoryMB: 1024, MaxProcesses: 256, DiskMB: 1024, Common: provider.DefaultCommon()}
}

// Validate refuses packages without network: pip could not download them.
func (c *Config) Validate(provider.Policy) []provider.FieldError {
	if len(c.DefaultPackages) > 0 && !c.Network {
		return []provider.FieldError{{Field: "default_packages", Message: "need network access (set network to true) so pip can download them"}}
	}
	return nil
}
