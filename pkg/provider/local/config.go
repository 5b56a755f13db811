package local

import (
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// Config is a local sandbox's settings.
type Config struct {
	Network         bool     `json:"network" title:"Network access" doc:"Let commands reach the network. Off by default; default packages need it."`
	MemoryMB        int      `json:"memory_mb" validate:"min=64,max=65536" title:"Memory (MiB)" doc:"Most memory a command may use."`
	MaxProcesses    int      `json:"max_processes" validate:"min=8,max=4096" title:"Max processes" doc:"Most processes a command may run at once."`
	DefaultPackages []string `json:"default_packages" validate:"max=50,dive,pip_requirement" title:"Default packages" doc:"pip requirements installed into every new sandbox (needs network access)."`
	Timeout         int      `json:"timeout" validate:"min=1,max=86400" title:"Timeout (seconds)" doc:"Longest a command may run."`
}

// DefaultConfig is a new local sandbox's settings.
func DefaultConfig() *Config {
	return &Config{MemoryMB: 1024, MaxProcesses: 256, DefaultPackages: []string{}, Timeout: 1800}
}

// Validate refuses packages without network: pip could not download them.
func (c *Config) Validate(provider.Policy) []provider.FieldError {
	if len(c.DefaultPackages) > 0 && !c.Network {
		return []provider.FieldError{{Field: "default_packages", Message: "need network access (set network to true) so pip can download them"}}
	}
	return nil
}

// CommandTimeout is the longest a command may run.
func (c *Config) CommandTimeout() time.Duration { return time.Duration(c.Timeout) * time.Second }

// Packages are installed into every new instance.
func (c *Config) Packages() []string { return c.DefaultPackages }
