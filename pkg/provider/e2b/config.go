package e2b

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// Config is an E2B sandbox's settings. E2B takes a sandbox's CPU, memory
// and disk from its template (NewSandbox in spec/openapi.yml has no field
// for them), so none is a setting here.
type Config struct {
	Template string `json:"template" validate:"required,snapshot_name" title:"Template" doc:"E2B template (its id or name) sandboxes are created from; it sets their CPU, memory, disk and installed software."`
	// Lifetime is the create's and the connect's timeout: E2B ends (or,
	// with AutoPause, pauses) a sandbox that long after it was last told.
	LifetimeMinutes int               `json:"lifetime_minutes" validate:"min=1,max=1440" title:"Lifetime (minutes)" doc:"How long a sandbox lives after a run or a tool call last renewed it; E2B then pauses it (files and memory kept) or, without auto-pause, kills it."`
	AutoPause       bool              `json:"auto_pause" title:"Pause at the end of its lifetime" doc:"Pause a sandbox when its lifetime ends instead of killing it; the thread's next run resumes it with its files and memory."`
	EnvdURL         string            `json:"envd_url" validate:"omitempty,url" title:"envd URL" doc:"Where each sandbox's envd is reached, for a self-hosted E2B behind one proxy: calls carry the sandbox's id in E2b-Sandbox-Id. Empty: https://49983-<sandbox id>.<the sandbox's domain>."`
	Env             map[string]string `json:"env" validate:"max=50,dive,keys,env_name,endkeys,max=4096" title:"Environment" doc:"Variables every sandbox starts with, as NAME=value. Not for secrets: they are stored and shown in plain text to whoever may read this sandbox, and E2B shows them too."`
	provider.Common
}

// DefaultConfig is a new E2B sandbox's settings: E2B's base template.
func DefaultConfig() *Config {
	return &Config{Template: "base", LifetimeMinutes: 15, AutoPause: true, Env: map[string]string{}, Common: provider.DefaultCommon()}
}

// Validate holds envd_url to the server's rules for urls, and refuses
// what E2B would read otherwise than our contract: a
// denied domain (denyOut takes addresses only) and, under a deny default,
// a deny beside allows (E2B lets an allowed destination through even when
// a deny names it, SandboxNetworkConfig in spec/openapi.yml).
func (c *Config) Validate(p provider.Policy) []provider.FieldError {
	var errs []provider.FieldError
	if c.EnvdURL != "" {
		// The url is the sandbox's; envd's is checked by the same rules.
		u, err := url.Parse(c.EnvdURL)
		switch {
		case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
			errs = append(errs, provider.FieldError{Field: "envd_url", Message: "must be an http(s) URL"})
		case provider.CheckHost(u.Hostname(), p) != nil:
			errs = append(errs, provider.FieldError{Field: "envd_url", Message: provider.CheckHost(u.Hostname(), p).Error()})
		}
	}
	n := c.Network
	for i, t := range provider.Targets(n.Deny) {
		field := fmt.Sprintf("network.deny.%d", i)
		switch {
		case t.IsDomain():
			errs = append(errs, provider.FieldError{Field: field, Message: "E2B sandboxes cannot deny a domain; give an IP address or network"})
		case n.Default == provider.EgressDeny && len(n.Allow) > 0:
			errs = append(errs, provider.FieldError{Field: field, Message: "must be empty when the default is deny: E2B lets an allowed destination through even when a deny names it"})
		}
	}
	return errs
}

// network is the create's network settings, or nil when the sandbox may
// connect anywhere.
type network struct {
	AllowOut []string `json:"allowOut,omitempty"`
	DenyOut  []string `json:"denyOut,omitempty"`
}

// egress maps the common network block onto E2B's: allowInternet is
// false for a sandbox that reaches nowhere (allow_internet_access).
func (c *Config) egress() (allowInternet *bool, net *network) {
	n := c.Network
	switch {
	case n.Default == provider.EgressAllow && len(n.Deny) == 0:
		return nil, nil
	case n.Default == provider.EgressAllow:
		return nil, &network{DenyOut: addresses(n.Deny)}
	case len(n.Allow) == 0:
		off := false
		return &off, nil
	}
	return nil, &network{AllowOut: append([]string(nil), n.Allow...), DenyOut: []string{"0.0.0.0/0"}}
}

func addresses(list []string) []string {
	out := make([]string, 0, len(list))
	for _, t := range provider.Targets(list) {
		out = append(out, t.Prefix.String())
	}
	return out
}

// lifetimeSeconds is the timeout every create and connect asks for.
func (c *Config) lifetimeSeconds() int { return c.LifetimeMinutes * 60 }

// rules is what E2B enforces of the common block: allowOut takes
// addresses, networks and domains (wildcards too), denyOut addresses and
// networks only (SandboxNetworkConfig, spec/openapi.yml); IPv4 only.
var rules = provider.CommonRules{
	MaxTimeout:   86400,
	PackagesNote: "needs the sandbox to reach PyPI",
	PoolNote:     "an E2B sandbox keeps the metadata it was created with: a claimed instance keeps the pool's labels",
	Egress: provider.EgressLimits{Domains: true, Wildcards: true, Addresses: true, Deny: true,
		Note: "E2B's deny list takes addresses and networks only, and an allowed destination goes through even when denied"},
	Resources: provider.ResourceLimits{
		CPU:      provider.Range{Note: "E2B takes it from the template"},
		MemoryMB: provider.Range{Note: "E2B takes it from the template"},
		DiskMB:   provider.Range{Note: "E2B takes it from the template"},
	},
}

// envdPort is the port envd listens on in every sandbox.
const envdPort = "49983"

// envdBase is where a sandbox's envd is reached.
func (c *Config) envdBase(id, domain string) string {
	if c.EnvdURL != "" {
		return strings.TrimSuffix(c.EnvdURL, "/")
	}
	return "https://" + envdPort + "-" + id + "." + domain
}
