package e2btest

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"slices"
)

// Network is a sandbox's egress settings: its create's, as updated since.
type Network struct {
	AllowOut, DenyOut []string
	// AllowInternet is allow_internet_access as last given (nil: never).
	AllowInternet *bool
}

// allTraffic is sandbox_network.AllInternetTrafficCIDR
// (packages/shared/pkg/sandbox-network/firewall.go).
const allTraffic = "0.0.0.0/0"

// networkUpdate is SandboxNetworkUpdateConfig (spec/openapi.yml).
type networkUpdate struct {
	AllowOut      *[]string `json:"allowOut"`
	DenyOut       *[]string `json:"denyOut"`
	AllowInternet *bool     `json:"allow_internet_access"`
}

// updateNetwork is PUT /sandboxes/{id}/network
// (packages/api/internal/handlers/sandbox_network_update.go and
// orchestrator/update_network.go): the body replaces the egress rules (a
// list left out is cleared), allow_internet_access changes only when
// given; 400 for rules validateEgressRules refuses, 404 for a sandbox that
// is not in the running store (a paused one is not), 204 when applied.
func (s *Server) updateNetwork(w http.ResponseWriter, r *http.Request, id string) {
	var body networkUpdate
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		apiError(w, http.StatusBadRequest, "Error when parsing request: %s", err)
		return
	}
	var allow, deny []string
	if body.AllowOut != nil {
		allow = *body.AllowOut
	}
	if body.DenyOut != nil {
		deny = *body.DenyOut
	}
	if msg := egressRulesError(allow, deny); msg != "" {
		apiError(w, http.StatusBadRequest, "%s", msg)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.sandboxes[id]
	if b == nil || b.state != stateRunning {
		apiError(w, http.StatusNotFound, "Sandbox %q doesn't exist or you don't have access to it", id)
		return
	}
	b.network.AllowOut, b.network.DenyOut = allow, deny
	if body.AllowInternet != nil {
		b.network.AllowInternet = body.AllowInternet
	}
	w.WriteHeader(http.StatusNoContent)
}

// egressRulesError is validateEgressRules (handlers/sandbox_create.go).
func egressRulesError(allow, deny []string) string {
	for _, cidr := range deny {
		if !specifiedIPOrCIDR(cidr) {
			return fmt.Sprintf("invalid denied CIDR %s", cidr)
		}
	}
	domains := false
	for _, entry := range allow {
		if !ipOrCIDR(entry) {
			domains = true
			continue
		}
		if !specifiedIPOrCIDR(entry) {
			return fmt.Sprintf("invalid allowed address %s", entry)
		}
	}
	if domains && !slices.Contains(deny, allTraffic) {
		return "When specifying allowed domains in allow out, you must include 'ALL_TRAFFIC' in deny out to block all other traffic."
	}
	return ""
}

// ipOrCIDR and specifiedIPOrCIDR are sandbox-network's IsIPOrCIDR and
// IsSpecifiedIPOrCIDR: an address or network, not the unspecified one
// (but for all traffic).
func ipOrCIDR(s string) bool {
	if net.ParseIP(s) != nil {
		return true
	}
	_, _, err := net.ParseCIDR(s)
	return err == nil
}

func specifiedIPOrCIDR(s string) bool {
	if !ipOrCIDR(s) {
		return false
	}
	if s == allTraffic {
		return true
	}
	if ip := net.ParseIP(s); ip != nil {
		return !ip.IsUnspecified()
	}
	ip, _, _ := net.ParseCIDR(s)
	return !ip.IsUnspecified()
}

// Network returns sandbox id's egress settings now.
func (s *Server) Network(id string) (Network, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.sandboxes[id]
	if b == nil {
		return Network{}, false
	}
	return b.network, true
}
