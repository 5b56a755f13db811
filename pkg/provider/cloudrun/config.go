package cloudrun

import (
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// Config is a Cloud Run sandbox's settings.
type Config struct {
	GCSBucket       string   `json:"gcs_bucket" validate:"omitempty,gcs_bucket" title:"Snapshot bucket" doc:"Cloud Storage bucket the gateway saves each thread's /workspace to at the end of a run; empty keeps no snapshots."`
	SnapshotPrefix  string   `json:"snapshot_prefix" validate:"object_prefix" title:"Snapshot prefix" doc:"Folder inside the bucket for snapshots."`
	AllowEgress     bool     `json:"allow_egress" title:"Allow internet access" doc:"Let sandboxes reach the internet (only if the gateway's deployment allows it too)."`
	DefaultPackages []string `json:"default_packages" validate:"max=50,dive,pip_requirement" title:"Default packages" doc:"pip requirements installed into every new sandbox (needs internet access)."`
	Timeout         int      `json:"timeout" validate:"min=1,max=3600" title:"Timeout (seconds)" doc:"Longest a command may run (Cloud Run allows at most an hour)."`
}

// DefaultConfig is a new Cloud Run sandbox's settings.
func DefaultConfig() *Config {
	return &Config{SnapshotPrefix: "sandbox-snapshots/", DefaultPackages: []string{}, Timeout: 1800}
}

// Validate refuses packages without internet access: pip could not download them.
func (c *Config) Validate(provider.Policy) []provider.FieldError {
	if len(c.DefaultPackages) > 0 && !c.AllowEgress {
		return []provider.FieldError{{Field: "default_packages", Message: "need internet access (set allow_egress to true) so pip can download them"}}
	}
	return nil
}

// CommandTimeout is the longest a command may run.
func (c *Config) CommandTimeout() time.Duration { return time.Duration(c.Timeout) * time.Second }

// Packages are installed into every new instance.
func (c *Config) Packages() []string { return c.DefaultPackages }
