package daytona

import (
	"strings"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// Config is a Daytona sandbox's settings. Daytona takes a sandbox's CPU,
// memory, disk and class (container, linux-vm, …) from its snapshot: its
// API refuses resources beside a snapshot (sandbox.controller.ts,
// createSandbox) and has no class to ask for. The common block's CPU and
// memory are given by a resize right after the create (see resize.go);
// disk is not a setting, as Daytona resizes a disk only while stopped.
type Config struct {
	Target              string            `json:"target" validate:"required,region" title:"Region" doc:"Daytona target (region) to create sandboxes in: us, eu, or your organisation's own."`
	Snapshot            string            `json:"snapshot" validate:"omitempty,snapshot_name" title:"Snapshot" doc:"Snapshot (pre-built image) to create sandboxes from; empty for Daytona's default image. It sets each sandbox's disk and class, and its CPU and memory where resources leave them at 0."`
	AutoStopInterval    int               `json:"auto_stop_interval" validate:"min=0,max=43200" title:"Auto-stop (minutes)" doc:"Idle minutes before Daytona stops a sandbox (0 = never); a stopped sandbox starts again on the thread's next run, files intact."`
	AutoArchiveInterval int               `json:"auto_archive_interval" validate:"min=0,max=43200" title:"Auto-archive (minutes)" doc:"Minutes a sandbox stays stopped before Daytona archives it to cheaper storage (0 = the longest Daytona allows, 30 days unless its operator says otherwise); an archived sandbox takes longer to start, files intact."`
	Env                 map[string]string `json:"env" validate:"max=50,dive,keys,env_name,endkeys,max=4096" title:"Environment" doc:"Variables every sandbox starts with, as NAME=value. Not for secrets: they are stored and shown in plain text to whoever may read this sandbox, and Daytona shows them too."`
	provider.Common
}

// DefaultConfig is a new Daytona sandbox's settings: Daytona's own
// auto-stop and auto-archive (7 days) defaults.
func DefaultConfig() *Config {
	return &Config{Target: "us", AutoStopInterval: 15, AutoArchiveInterval: 10080, Env: map[string]string{}, Common: provider.DefaultCommon()}
}

// Validate has no rules beyond the tags and the common block's.
func (c *Config) Validate(provider.Policy) []provider.FieldError { return nil }

// network is the create request's network settings: nothing when the
// sandbox may connect anywhere; networkBlockAll when nowhere; else the
// allowed networks (an address is a network of one).
func (c *Config) network() (blockAll *bool, allowList string) {
	n := c.Network
	switch {
	case n.Default == provider.EgressAllow:
		return nil, ""
	case len(n.Allow) == 0:
		block := true
		return &block, ""
	}
	var list []string
	for _, t := range provider.Targets(n.Allow) {
		list = append(list, t.Prefix.String())
	}
	return nil, strings.Join(list, ",")
}

// rules is what Daytona enforces of the common network block:
// networkBlockAll and networkAllowList, IPv4 networks of which it takes
// at most 10 (sandbox/utils/network-validation.util.ts). Its API takes a
// domainAllowList too, but its runner (apps/runner/pkg/docker/create.go)
// enforces only the networks, so domains are refused rather than ignored.
var rules = provider.CommonRules{
	Egress: provider.EgressLimits{Addresses: true, MaxAddresses: 10,
		Note: "the allow list holds at most 10 IPv4 addresses or networks; Daytona's runner enforces no domains and no deny list"},
	Resources: provider.ResourceLimits{
		CPU: provider.Range{Min: 1, Max: maxCPU, Step: 1,
			Note: "whole cores, from the snapshot's up to the organisation's limit per sandbox, 4 unless raised: Daytona resizes each new sandbox to it before its first command; 0: the snapshot's"},
		MemoryMB: provider.Range{Min: 1024, Max: maxMemoryGiB * 1024, Step: 1024,
			Note: "whole GiB (multiples of 1024), from the snapshot's up to the organisation's limit per sandbox, 8 GiB unless raised: Daytona resizes each new sandbox to it before its first command; 0: the snapshot's"},
		DiskMB: provider.Range{Note: "the snapshot sets it: Daytona says \"Disk resize can only be performed on a stopped sandbox\", and a new sandbox is resized while it runs"},
	},
}

// maxCPU and maxMemoryGiB bound what a save accepts, well above Daytona's
// default limits per sandbox (4 vCPUs, 8 GiB in its organization.entity.ts),
// which an organisation may have raised: Daytona's own limit is its
// refusal at the resize.
const (
	maxCPU       = 64
	maxMemoryGiB = 256
)
