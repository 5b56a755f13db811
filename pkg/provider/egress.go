package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"
)

// Network is where a sandbox's commands may connect to: what no rule names
// gets Default; a deny beats an allow.
type Network struct {
	Default string   `json:"default" validate:"oneof=allow deny" title:"By default" doc:"What commands may connect to when no rule below names it: allow or deny."`
	Allow   []string `json:"allow" validate:"max=100,unique,dive,egress_target" title:"Allow" doc:"Domains (pypi.org; *.example.com for its subdomains, where the provider can), IP addresses or networks (198.51.100.0/24) commands may connect to when the default is deny."`
	Deny    []string `json:"deny" validate:"max=100,unique,dive,egress_target" title:"Deny" doc:"Domains, IP addresses or networks commands may never connect to; a deny beats an allow."`
}

// The values of Network.Default.
const (
	EgressAllow = "allow"
	EgressDeny  = "deny"
)

// AllowNetwork and DenyNetwork are the rule-less networks of each default.
func AllowNetwork() Network {
	return Network{Default: EgressAllow, Allow: []string{}, Deny: []string{}}
}
func DenyNetwork() Network { return Network{Default: EgressDeny, Allow: []string{}, Deny: []string{}} }

// UnmarshalJSON reads the object, and also the switch older configs stored
// in its place (true: allow everything; false: deny everything).
func (n *Network) UnmarshalJSON(raw []byte) error {
	switch string(bytes.TrimSpace(raw)) {
	case "true":
		*n = AllowNetwork()
		return nil
	case "false":
		*n = DenyNetwork()
		return nil
	}
	type plain Network
	return json.Unmarshal(raw, (*plain)(n))
}

// Offline reports whether commands may connect to nothing at all.
func (n Network) Offline() bool { return n.Default == EgressDeny && len(n.Allow) == 0 }

// Target is one thing an egress rule names: a domain (Wildcard: it and its
// subdomains, written *.example.com) or a network (an address is a network
// of one).
type Target struct {
	Domain   string
	Wildcard bool
	Prefix   netip.Prefix
}

// IsDomain reports whether the target names a domain rather than addresses.
func (t Target) IsDomain() bool { return t.Domain != "" }

// ParseTarget reads an egress rule's target, which validation accepted.
func ParseTarget(s string) (Target, error) {
	if a, err := netip.ParseAddr(s); err == nil {
		return Target{Prefix: netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())}, nil
	}
	if p, err := netip.ParsePrefix(s); err == nil {
		return Target{Prefix: p.Masked()}, nil
	}
	if s == "" || strings.ContainsAny(s, "/: ") {
		return Target{}, fmt.Errorf("%q is no domain, address or network", s)
	}
	domain, wildcard := strings.CutPrefix(strings.ToLower(s), "*.")
	return Target{Domain: domain, Wildcard: wildcard}, nil
}

// EgressLimits are what a provider's instances can enforce of a Network,
// beyond the capabilities NetworkSwitch (Default may be set) and
// EgressRules (Allow and Deny may name targets).
type EgressLimits struct {
	Domains   bool // a rule may name a domain
	Wildcards bool // a domain may be written *.example.com
	Addresses bool // a rule may name an IP address or network
	IPv6      bool // an address or network may be IPv6
	Deny      bool // Deny may name targets
	// MaxDomains and MaxAddresses bound how many of each the lists may
	// name together (0: only the block's own bound).
	MaxDomains, MaxAddresses int
	// Note is said in brackets after the help of network.
	Note string
	// Walled, when set, reports the networks the provider's jails never
	// reach (private, loopback and link-local ones): an allow rule into one
	// is refused, as it could never let anything through.
	Walled func(netip.Prefix) bool
}

// validateNetwork checks n against what the provider can enforce; title
// names the provider, def is its default network.
func (r CommonRules) validateNetwork(n Network, caps Capabilities, title string, def Network) []FieldError {
	var errs []FieldError
	if !caps.Has(NetworkSwitch) && n.Default != def.Default && (n.Default == EgressAllow || n.Default == EgressDeny) {
		errs = append(errs, FieldError{Field: "network.default", Message: fmt.Sprintf("must be %s: %s sandboxes cannot change it", def.Default, title)})
	}
	lim := r.Egress
	domains, addresses := 0, 0
	check := func(list string, targets []string) {
		if len(targets) > 0 && !caps.Has(EgressRules) {
			errs = append(errs, FieldError{Field: "network." + list, Message: fmt.Sprintf("must be empty: %s sandboxes cannot filter connections by rules", title)})
			return
		}
		if list == "deny" && len(targets) > 0 && !lim.Deny {
			errs = append(errs, FieldError{Field: "network.deny", Message: fmt.Sprintf("must be empty: %s sandboxes cannot deny chosen hosts (set the default to deny and list what is allowed)", title)})
			return
		}
		for i, s := range targets {
			t, err := ParseTarget(s)
			if err != nil {
				continue // the format check names it
			}
			field := fmt.Sprintf("network.%s.%d", list, i)
			var why string
			switch {
			case t.IsDomain() && !lim.Domains:
				why = "cannot filter by domain; give an IP address or network"
			case t.Wildcard && !lim.Wildcards:
				why = "cannot filter by wildcard domain; list each domain"
			case !t.IsDomain() && !lim.Addresses:
				why = "cannot filter by address; give a domain"
			case !t.IsDomain() && t.Prefix.Addr().Is6() && !lim.IPv6:
				why = "cannot filter IPv6 addresses; give an IPv4 address or network"
			}
			if why != "" {
				errs = append(errs, FieldError{Field: field, Message: fmt.Sprintf("%s sandboxes %s", title, why)})
			}
			if t.IsDomain() {
				domains++
			} else {
				addresses++
			}
		}
	}
	check("allow", n.Allow)
	check("deny", n.Deny)
	if lim.MaxDomains > 0 && domains > lim.MaxDomains {
		errs = append(errs, FieldError{Field: "network", Message: fmt.Sprintf("may name at most %d domains on %s sandboxes, not %d", lim.MaxDomains, title, domains)})
	}
	if lim.MaxAddresses > 0 && addresses > lim.MaxAddresses {
		errs = append(errs, FieldError{Field: "network", Message: fmt.Sprintf("may name at most %d addresses or networks on %s sandboxes, not %d", lim.MaxAddresses, title, addresses)})
	}
	return errs
}

// Targets reads a list of targets, which validation accepted.
func Targets(list []string) []Target {
	out := make([]Target, 0, len(list))
	for _, s := range list {
		if t, err := ParseTarget(s); err == nil {
			out = append(out, t)
		}
	}
	return out
}
