package gateway

import (
	"fmt"
	"strings"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/gateway/wire"
	"github.com/auxilia/sandboxes/pkg/validation"
)

// Network is where a sandbox's commands may connect to (wire.Network).
type Network = wire.Network

// Resources bound what each sandbox's commands use (wire.Resources).
type Resources = wire.Resources

// maxRules bounds each list of a Network.
const maxRules = 100

// offlineNetwork is a network that lets nothing out.
func offlineNetwork() Network { return Network{Default: "deny", Allow: []string{}, Deny: []string{}} }

// isOffline reports whether the network lets nothing out.
func isOffline(n Network) bool { return n.Default != "allow" && len(n.Allow) == 0 }

func checkNetwork(n Network) []FieldError {
	var errs []FieldError
	if n.Default != "allow" && n.Default != "deny" {
		errs = append(errs, FieldError{Field: "network.default", Message: "must be allow or deny"})
	}
	for list, targets := range map[string][]string{"allow": n.Allow, "deny": n.Deny} {
		if len(targets) > maxRules {
			errs = append(errs, FieldError{Field: "network." + list, Message: fmt.Sprintf("must have at most %d items", maxRules)})
			continue
		}
		for i, t := range targets {
			field := fmt.Sprintf("network.%s.%d", list, i)
			switch {
			case strings.HasPrefix(t, "*."):
				errs = append(errs, FieldError{Field: field, Message: "wildcard domains cannot be resolved; list each domain"})
			case !validation.EgressTarget(t):
				errs = append(errs, FieldError{Field: field, Message: "must be a domain, an IP address or a network in CIDR form"})
			}
		}
	}
	return errs
}

// requested is the network a spec asks for: its own, or the one the
// older allow_egress switch means.
func requested(sp sandboxSpec) Network {
	switch {
	case sp.Network != nil:
		return *sp.Network
	case sp.AllowEgress:
		return Network{Default: "allow", Allow: []string{}, Deny: []string{}}
	default:
		return offlineNetwork()
	}
}

// checkResources refuses what exceeds the deployment's bounds (0: none).
func checkResources(r Resources, cfg Config) []FieldError {
	var errs []FieldError
	bound := func(field string, v, min, max int) {
		switch {
		case v < 0 || (v > 0 && v < min):
			errs = append(errs, FieldError{Field: field, Message: fmt.Sprintf("must be 0 or at least %d", min)})
		case max > 0 && v > max:
			errs = append(errs, FieldError{Field: field, Message: fmt.Sprintf("must be at most %d on this gateway", max)})
		}
	}
	bound("resources.memory_mb", r.MemoryMB, 64, cfg.SandboxMemoryMB)
	bound("resources.disk_mb", r.DiskMB, 1, cfg.SandboxMaxFileMB)
	return errs
}

// egress is what the jail of a sandbox's command lets through: nothing
// when the deployment allows no egress; a sandbox stored before networks
// had rules keeps what its switch said.
func egressOf(sb Sandbox) (network bool, rules bubblewrap.Egress) {
	n := sb.Network
	if n.Default == "" && sb.AllowEgress {
		n = Network{Default: "allow"}
	}
	if !sb.AllowEgress || isOffline(n) {
		return false, bubblewrap.Egress{}
	}
	return true, bubblewrap.Egress{DenyByDefault: n.Default == "deny", Allow: n.Allow, Deny: n.Deny}
}
