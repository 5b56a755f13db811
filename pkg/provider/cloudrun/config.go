package cloudrun

import (
	"github.com/auxilia/sandboxes/pkg/provider"
)

// Config is a Cloud Run sandbox's settings.
type Config struct {
	GCSBucket      string `json:"gcs_bucket" validate:"omitempty,gcs_bucket" title:"Snapshot bucket" doc:"Cloud Storage bucket the gateway saves each thread's /workspace to at the end of a run; empty keeps no snapshots."`
	SnapshotPrefix string `json:"snapshot_prefix" validate:"object_prefix" title:"Snapshot prefix" doc:"Folder inside the bucket for snapshots."`
	AllowEgress    bool   `json:"allow_egress" title:"Allow internet access" doc:"Let sandboxes reach the internet (only if the gateway's deployment allows it too)."`
	provider.Common
}

// DefaultConfig is a new Cloud Run sandbox's settings.
func DefaultConfig() *Config {
	return &Config{SnapshotPrefix: "sandbox-snapshots/", Common: provider.DefaultCommon()}
}

// Validate refuses packages without internet access: pip could not download them.
func (c *Config) Validate(provider.Policy) []provider.FieldError {
	if len(c.DefaultPackages) > 0 && !c.AllowEgress {
		return []provider.FieldError{{Field: "default_packages", Message: "need internet access (set allow_egress to true) so pip can download them"}}
	}
	return nil
}
