package daytona

import (
	"github.com/auxilia/sandboxes/pkg/provider"
)

// Config is a Daytona sandbox's settings.
type Config struct {
	Target           string `json:"target" validate:"required,region" title:"Region" doc:"Daytona target (region) to create sandboxes in: us, eu, or your organisation's own."`
	Snapshot         string `json:"snapshot" validate:"omitempty,snapshot_name" title:"Snapshot" doc:"Snapshot (pre-built image) to create sandboxes from; empty for Daytona's default image."`
	AutoStopInterval int    `json:"auto_stop_interval" validate:"min=0,max=43200" title:"Auto-stop (minutes)" doc:"Idle minutes before Daytona stops a sandbox (0 = never); a stopped sandbox starts again on the thread's next run, files intact."`
	provider.Common
}

// DefaultConfig is a new Daytona sandbox's settings.
func DefaultConfig() *Config {
	return &Config{Target: "us", AutoStopInterval: 15, Common: provider.DefaultCommon()}
}

// Validate has no rules beyond the tags.
func (c *Config) Validate(provider.Policy) []provider.FieldError { return nil }
