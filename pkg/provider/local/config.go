package local

import (
	"github.com/auxilia/sandboxes/pkg/provider"
)

// Config is a local sandbox's settings.
type Config struct {
	Network      bool `json:"network" title:"Network access" doc:"Let commands reach the network. Off by default; default packages need it."`
	MemoryMB     int  `json:"memory_mb" validate:"min=64,max=65536" title:"Memory (MiB)" doc:"Most memory a command may use."`
	MaxProcesses int  `json:"max_processes" validate:"min=8,max=4096" title:"Max processes" doc:"Most processes a command may run at once."`
	provider.Common
}

// DefaultConfig is a new local sandbox's settings.
func DefaultConfig() *Config {
	return &Config{MemoryMB: 1024, MaxProcesses: 256, Common: provider.DefaultCommon()}
}

// Validate refuses packages without network: pip could not download them.
func (c *Config) Validate(provider.Policy) []provider.FieldError {
	if len(c.DefaultPackages) > 0 && !c.Network {
		return []provider.FieldError{{Field: "default_packages", Message: "need network access (set network to true) so pip can download them"}}
	}
	return nil
}
