package opensandboxtest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// egressPort is the egress sidecar's policy API
// (components/egress/pkg/constants/configuration.go, DefaultEgressServerAddr).
const egressPort = 18080

// egressAuthHeader carries the sidecar's token
// (server/opensandbox_server/services/constants.py, OPEN_SANDBOX_EGRESS_AUTH_HEADER).
const egressAuthHeader = "OPENSANDBOX-EGRESS-AUTH"

// sidecar is the egress sidecar the server starts beside a sandbox created
// with a networkPolicy (services/docker/docker_service.py), with the token
// it generates for it, and the policy it enforces.
type sidecar struct {
	server *httptest.Server
	token  string

	mu     sync.Mutex
	policy NetworkPolicy
}

// newSidecar starts a sandbox's sidecar with its create's policy.
func newSidecar(raw json.RawMessage) *sidecar {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	sc := &sidecar{token: hex.EncodeToString(b)}
	_ = json.Unmarshal(raw, &sc.policy)
	sc.policy = normalized(sc.policy)
	sc.server = httptest.NewServer(http.HandlerFunc(sc.handlePolicy))
	return sc
}

func (sc *sidecar) close() {
	if sc != nil {
		sc.server.CloseClientConnections()
		sc.server.Close()
	}
}

// current is the policy the sidecar enforces now.
func (sc *sidecar) current() NetworkPolicy {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.policy
}

// handlePolicy serves /policy as components/egress/policy_server.go does:
// the token checked first (authorize: 401 "unauthorized"), then GET, POST
// or PUT (replace), PATCH (merge) and DELETE (remove by target), anything
// else 405 with Allow. Errors are http.Error's plain text.
func (sc *sidecar) handlePolicy(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/policy" {
		http.NotFound(w, r)
		return
	}
	if r.Header.Get(egressAuthHeader) != sc.token {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20)) // policy_utils.go, maxPolicyBodyBytes
	raw := strings.TrimSpace(string(body))
	switch r.Method {
	case http.MethodGet:
		egressJSON(w, http.StatusOK, map[string]any{"status": "ok", "mode": mode(sc.policy), "enforcementMode": "dns", "policy": sc.policy})
	case http.MethodPost, http.MethodPut:
		sc.replace(w, raw)
	case http.MethodPatch:
		sc.patch(w, raw)
	case http.MethodDelete:
		sc.remove(w, raw)
	default:
		w.Header().Set("Allow", "GET, POST, PUT, PATCH, DELETE")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// replace is handlePost: an empty body resets to deny-all; otherwise the
// body is the whole new policy (policy.ParsePolicy).
func (sc *sidecar) replace(w http.ResponseWriter, raw string) {
	if raw == "" {
		sc.policy = NetworkPolicy{DefaultAction: "deny", Egress: []NetworkRule{}}
		egressJSON(w, http.StatusOK, map[string]any{"status": "ok", "mode": "deny_all", "reason": "policy reset to default deny-all"})
		return
	}
	pol, err := parsePolicy(raw)
	if err != nil {
		http.Error(w, fmt.Sprintf("invalid policy: %v", err), http.StatusBadRequest)
		return
	}
	sc.policy = pol
	egressJSON(w, http.StatusOK, map[string]any{"status": "ok", "mode": mode(pol), "enforcementMode": "dns"})
}

// patch is handlePatch: the rules go first, the current ones follow
// unless a rule names their target (policy_utils.go, mergeEgressRules).
func (sc *sidecar) patch(w http.ResponseWriter, raw string) {
	if raw == "" {
		http.Error(w, "empty body", http.StatusBadRequest)
		return
	}
	var rules []NetworkRule
	if err := json.Unmarshal([]byte(raw), &rules); err != nil {
		http.Error(w, fmt.Sprintf("invalid patch rules: %v", err), http.StatusBadRequest)
		return
	}
	if len(rules) == 0 {
		http.Error(w, "invalid patch rules: empty array", http.StatusBadRequest)
		return
	}
	seen := map[string]bool{}
	merged := []NetworkRule{}
	for _, r := range append(rules, sc.policy.Egress...) {
		if key := strings.ToLower(r.Target); !seen[key] {
			seen[key] = true
			merged = append(merged, r)
		}
	}
	b, _ := json.Marshal(NetworkPolicy{DefaultAction: sc.policy.DefaultAction, Egress: merged})
	pol, err := parsePolicy(string(b))
	if err != nil {
		http.Error(w, fmt.Sprintf("invalid merged policy: %v", err), http.StatusBadRequest)
		return
	}
	sc.policy = pol
	egressJSON(w, http.StatusOK, map[string]any{"status": "ok", "mode": mode(pol), "enforcementMode": "dns"})
}

// remove is handleDelete: the rules naming the targets go
// (removeRulesByTarget); none matching is still a 200, with a reason.
func (sc *sidecar) remove(w http.ResponseWriter, raw string) {
	if raw == "" {
		http.Error(w, "empty body", http.StatusBadRequest)
		return
	}
	var targets []string
	if err := json.Unmarshal([]byte(raw), &targets); err != nil {
		http.Error(w, fmt.Sprintf("invalid delete targets: %v", err), http.StatusBadRequest)
		return
	}
	if len(targets) == 0 {
		http.Error(w, "invalid delete targets: empty array", http.StatusBadRequest)
		return
	}
	drop := map[string]bool{}
	for _, t := range targets {
		drop[strings.ToLower(strings.TrimSpace(t))] = true
	}
	kept := []NetworkRule{}
	for _, r := range sc.policy.Egress {
		if !drop[strings.ToLower(r.Target)] {
			kept = append(kept, r)
		}
	}
	if len(kept) == len(sc.policy.Egress) {
		egressJSON(w, http.StatusOK, map[string]any{"status": "ok", "mode": mode(sc.policy), "enforcementMode": "dns", "reason": "no matching targets found"})
		return
	}
	sc.policy.Egress = kept
	egressJSON(w, http.StatusOK, map[string]any{"status": "ok", "mode": mode(sc.policy), "enforcementMode": "dns"})
}

// parsePolicy is components/egress/pkg/policy/policy.go's ParsePolicy:
// empty, null or {} is deny-all; actions and the default lowercased, an
// empty one deny; a target may not be empty.
func parsePolicy(raw string) (NetworkPolicy, error) {
	if raw == "" || raw == "null" || raw == "{}" {
		return NetworkPolicy{DefaultAction: "deny", Egress: []NetworkRule{}}, nil
	}
	var p NetworkPolicy
	if err := json.Unmarshal([]byte(raw), &p); err != nil {
		return p, err
	}
	p = normalized(p)
	for _, r := range p.Egress {
		if r.Action != "allow" && r.Action != "deny" {
			return p, fmt.Errorf("unsupported action %q", r.Action)
		}
		if r.Target == "" {
			return p, fmt.Errorf("egress target cannot be empty")
		}
	}
	return p, nil
}

func normalized(p NetworkPolicy) NetworkPolicy {
	p.DefaultAction = strings.ToLower(strings.TrimSpace(p.DefaultAction))
	if p.DefaultAction == "" {
		p.DefaultAction = "deny"
	}
	rules := make([]NetworkRule, len(p.Egress))
	for i, r := range p.Egress {
		r.Action = strings.ToLower(strings.TrimSpace(r.Action))
		if r.Action == "" {
			r.Action = "deny"
		}
		r.Target = strings.TrimSpace(r.Target)
		rules[i] = r
	}
	p.Egress = rules
	return p
}

// mode is policy_utils.go's modeFromPolicy.
func mode(p NetworkPolicy) string {
	switch {
	case p.DefaultAction == "allow" && len(p.Egress) == 0:
		return "allow_all"
	case p.DefaultAction == "deny" && len(p.Egress) == 0:
		return "deny_all"
	}
	return "enforcing"
}

// egressJSON is policy_utils.go's writeJSON (json.Encoder: a newline ends it).
func egressJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// Policy returns the egress policy the sandbox's sidecar enforces now, and
// false when the sandbox is gone or has no sidecar.
func (s *Server) Policy(id string) (NetworkPolicy, bool) {
	sb, ok := s.find(id)
	if !ok || sb.sidecar == nil {
		return NetworkPolicy{}, false
	}
	return sb.sidecar.current(), true
}
