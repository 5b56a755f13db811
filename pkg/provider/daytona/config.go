package daytona

import (
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// Config is a Daytona sandbox's settings.
type Config struct {
	Target           string   `json:"target" validate:"required,region" title:"Region" doc:"Daytona target (region) to create sandboxes in: us, eu, or your organisation's own."`
	Snapshot         string   `json:"snapshot" validate:"omitempty,snapshot_name" title:"Snapshot" doc:"Snapshot (pre-built image) to create sandboxes from; empty for Daytona's default image."`
	AutoStopInterval int      `json:"auto_stop_interval" validate:"min=0,max=43200" title:"Auto-stop (minutes)" doc:"Idle minutes before Daytona stops a sandbox (0 = never); a stopped sandbox starts again on the thread's next run, files intact."`
	DefaultPackages  []string `json:"default_packages" validate:"max=50,dive,pip_requirement" title:"Default packages" doc:"pip requirements installed into every new sandbox."`
	Timeout          int      `json:"timeout" validate:"min=1,max=86400" title:"Timeout (seconds)" doc:"Longest a command may run."`
}

// DefaultConfig is a new Daytona sandbox's settings.
func DefaultConfig() *Config {
	return &Config{Target: "us", AutoStopInterval: 15, DefaultPackages: []string{}, Timeout: 1800}
}

// Validate has no rules beyond the tags.
func (c *Config) Validate(provider.Policy) []provider.FieldError { return nil }

// CommandTimeout is the longest a command may run.
func (c *Config) CommandTimeout() time.Duration { return time.Duration(c.Timeout) * time.Second }

// Packages are installed into every new instance.
func (c *Config) Packages() []string { return c.DefaultPackages }
