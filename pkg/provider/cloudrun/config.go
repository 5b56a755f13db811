package cloudrun

import (
	"encoding/json"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// Config is a Cloud Run sandbox's settings.
type Config struct {
	GCSBucket      string `json:"gcs_bucket" validate:"omitempty,gcs_bucket" title:"Snapshot bucket" doc:"Cloud Storage bucket the gateway saves each thread's /workspace to at the end of a run; empty keeps no snapshots."`
	SnapshotPrefix string `json:"snapshot_prefix" validate:"object_prefix" title:"Snapshot prefix" doc:"Folder inside the bucket for snapshots."`
	provider.Common
}

// DefaultConfig is a new Cloud Run sandbox's settings: offline.
func DefaultConfig() *Config {
	c := &Config{SnapshotPrefix: "sandbox-snapshots/", Common: provider.DefaultCommon()}
	c.Network = provider.DenyNetwork()
	return c
}

// Upgrade reads what older versions stored: allow_egress, a switch that
// network now holds (true: anywhere; false: nowhere).
func (c *Config) Upgrade(values map[string]json.RawMessage) {
	old, ok := values["allow_egress"]
	if !ok {
		return
	}
	delete(values, "allow_egress")
	if _, set := values["network"]; !set {
		values["network"] = old
	}
}

// Validate has nothing to add to the common block's rules (rules, below).
func (c *Config) Validate(provider.Policy) []provider.FieldError { return nil }

// rules is what the gateway enforces of the common block: its jails'
// rules (domains resolved as each command starts, so no wildcards), and
// memory and the largest file, within the deployment's own bounds.
var rules = provider.CommonRules{
	MaxTimeout:          3600,
	TimeoutNote:         "Cloud Run allows at most an hour",
	PackagesNeedNetwork: true,
	PoolNote:            "the gateway cannot relabel a sandbox: a claimed instance keeps the pool's labels, without its thread's; the gateway's GATEWAY_IDLE_TTL also ends pool instances idle past it",
	Egress: provider.EgressLimits{Domains: true, Addresses: true, IPv6: true, Deny: true, Walled: bubblewrap.Walled,
		Note: "offline by default, and always when the gateway's deployment allows no egress (GATEWAY_ALLOW_EGRESS); private and link-local addresses and the gateway's own are never reached; a domain stands for the addresses the gateway resolves it to when a command starts"},
	Resources: provider.ResourceLimits{
		CPU:      provider.Range{Note: "Cloud Run sets CPU for the whole gateway service"},
		MemoryMB: provider.Range{Min: 64, Max: 1 << 20, Note: "of all of a sandbox's commands together, at most the gateway's GATEWAY_SANDBOX_MEMORY_MB; 0: that bound"},
		DiskMB:   provider.Range{Min: 1, Max: 1 << 20, Note: "the largest file a command may write, as Cloud Run's disk is memory, bounded by memory_mb; at most the gateway's GATEWAY_SANDBOX_MAX_FILE_MB; 0: that bound"},
	},
}
