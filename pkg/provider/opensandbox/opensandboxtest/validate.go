package opensandboxtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

// The server's rules for metadata and volumes.
var (
	dnsLabel     = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	dnsSubdomain = regexp.MustCompile(`^(?:[a-z0-9]([-a-z0-9]*[a-z0-9])?\.)*[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	labelName    = regexp.MustCompile(`^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$`)
	labelValue   = regexp.MustCompile(`^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$`)
	hostPathRE   = regexp.MustCompile(`^(/|[A-Za-z]:[\\/])`)
)

const reservedLabelPrefix = "opensandbox.io/"

// checkModel applies the request model's rules, which FastAPI answers with
// 422; it reports false after answering.
func checkModel(w http.ResponseWriter, req CreateRequest) bool {
	var details []map[string]any
	if req.Timeout != nil && *req.Timeout < 60 {
		details = append(details, map[string]any{"type": "greater_than_equal", "loc": []any{"body", "timeout"},
			"msg": "Input should be greater than or equal to 60", "input": *req.Timeout, "ctx": map[string]any{"ge": 60}})
	}
	if req.Entrypoint != nil && len(req.Entrypoint) == 0 {
		details = append(details, map[string]any{"type": "too_short", "loc": []any{"body", "entrypoint"},
			"msg": "List should have at least 1 item after validation, not 0", "input": []string{}})
	}
	for i, v := range req.Volumes {
		loc := func(field string) []any { return []any{"body", "volumes", i, field} }
		if len(v.Name) > 63 || !dnsLabel.MatchString(v.Name) {
			details = append(details, detail("string_pattern_mismatch", loc("name"),
				`String should match pattern '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'`, v.Name))
		}
		if !strings.HasPrefix(v.MountPath, "/") {
			details = append(details, detail("string_pattern_mismatch", loc("mountPath"), "String should match pattern '^/.*'", v.MountPath))
		}
		backends := 0
		for _, set := range []bool{v.Host != nil, v.PVC != nil, v.OSSFS != nil} {
			if set {
				backends++
			}
		}
		if backends != 1 {
			details = append(details, detail("value_error", []any{"body", "volumes", i},
				"Value error, Exactly one backend (host, pvc, ossfs) must be specified.", v))
		}
	}
	details = append(details, checkNetworkPolicy(req.NetworkPolicy)...)
	if len(details) == 0 {
		hasImage := req.Image != nil && strings.TrimSpace(req.Image.URI) != ""
		hasSnapshot := strings.TrimSpace(req.SnapshotID) != ""
		var msg string
		switch {
		case hasImage == hasSnapshot:
			msg = "Exactly one of image or snapshotId must be provided."
		case hasImage && len(req.Entrypoint) == 0:
			msg = "Entrypoint is required when image is provided."
		case req.ResourceLimits == nil:
			msg = "resourceLimits is required when poolRef is not provided."
		}
		if msg != "" {
			details = append(details, map[string]any{"type": "value_error", "loc": []any{"body"},
				"msg": "Value error, " + msg, "input": req, "ctx": map[string]any{"error": map[string]any{}}})
		}
	}
	if len(details) > 0 {
		validationError(w, details...)
		return false
	}
	return true
}

// checkService applies the service's own checks, answered with 400 and the
// server's codes; it reports false after answering.
func (s *Server) checkService(w http.ResponseWriter, req CreateRequest) bool {
	if code, msg := checkMetadata(req.Metadata); code != "" {
		apiError(w, http.StatusBadRequest, code, msg)
		return false
	}
	// services/validators.py ensure_egress_configured: a policy needs the
	// egress sidecar's image in the server's config.
	if len(req.NetworkPolicy) > 0 && string(req.NetworkPolicy) != "null" && s.opts.NoEgressSidecar {
		apiError(w, http.StatusBadRequest, "SANDBOX::INVALID_PARAMETER", "egress.image must be configured when networkPolicy is provided.")
		return false
	}
	if code, msg := checkVolumes(req.Volumes, s.opts.AllowedHostPaths); code != "" {
		apiError(w, http.StatusBadRequest, code, msg)
		return false
	}
	return true
}

func checkMetadata(m map[string]string) (code, message string) {
	for key, value := range m {
		switch {
		case strings.HasPrefix(key, reservedLabelPrefix):
			return "SANDBOX::INVALID_METADATA_LABEL", fmt.Sprintf("Metadata key '%s' uses the reserved prefix '%s'. "+
				"Keys under this prefix are managed by the system and cannot be set via metadata.", key, reservedLabelPrefix)
		case !validLabelKey(key):
			return "SANDBOX::INVALID_METADATA_LABEL", fmt.Sprintf("Metadata key '%s' is invalid: must be either a name or a "+
				"DNS-subdomain prefix and name separated by /, where the name is up to 63 characters and matches "+
				"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?, and the optional prefix is a valid DNS subdomain up to 253 characters.", key)
		case len(value) > 63 || !labelValue.MatchString(value):
			return "SANDBOX::INVALID_METADATA_LABEL", fmt.Sprintf("Metadata value '%s' is invalid: must be 63 characters or less, "+
				"start/end with an alphanumeric character, and contain only alphanumeric, '-', '_', or '.' characters.", value)
		}
	}
	return "", ""
}

func validLabelKey(key string) bool {
	name := key
	if prefix, rest, ok := strings.Cut(key, "/"); ok {
		if prefix == "" || rest == "" || len(prefix) > 253 || !dnsSubdomain.MatchString(prefix) {
			return false
		}
		name = rest
	}
	return len(name) <= 63 && labelName.MatchString(name)
}

func checkVolumes(vols []Volume, allowed []string) (code, message string) {
	seen := map[string]bool{}
	for _, v := range vols {
		if seen[v.Name] {
			return "VOLUME::DUPLICATE_NAME", fmt.Sprintf("Duplicate volume name '%s'. Each volume must have a unique name.", v.Name)
		}
		seen[v.Name] = true
		if v.Host == nil {
			return "VOLUME::UNSUPPORTED_BACKEND", fmt.Sprintf("Volume '%s': the fake supports host volumes only.", v.Name)
		}
		p := v.Host.Path
		switch {
		case p == "":
			return "VOLUME::INVALID_HOST_PATH", "Host path cannot be empty."
		case !hostPathRE.MatchString(p):
			return "VOLUME::INVALID_HOST_PATH", fmt.Sprintf("Host path '%s' must be an absolute path starting with '/' "+
				"or a Windows drive letter (e.g. 'C:\\' or 'D:/').", p)
		case strings.Contains(p, "/..") || p == "/..":
			return "VOLUME::INVALID_HOST_PATH", fmt.Sprintf("Host path '%s' contains path traversal component '..'.", p)
		case strings.Contains(p, "//") || (len(p) > 1 && strings.HasSuffix(p, "/")):
			return "VOLUME::INVALID_HOST_PATH", fmt.Sprintf("Host path '%s' is not normalized. Remove redundant slashes.", p)
		case !underAny(p, allowed):
			return "VOLUME::HOST_PATH_NOT_ALLOWED", fmt.Sprintf("Host path '%s' is not under any allowed prefix. Allowed prefixes: %s",
				p, pythonList(allowed))
		}
	}
	return "", ""
}

func underAny(p string, prefixes []string) bool {
	for _, prefix := range prefixes {
		prefix = strings.TrimSuffix(prefix, "/")
		if p == prefix || strings.HasPrefix(p, prefix+"/") {
			return true
		}
	}
	return false
}

// pythonList writes a list of strings as Python's repr does: ['/a', '/b'].
func pythonList(items []string) string {
	quoted := make([]string, len(items))
	for i, it := range items {
		quoted[i] = "'" + it + "'"
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// NetworkPolicy is a create's networkPolicy as the fake read it.
type NetworkPolicy struct {
	DefaultAction string        `json:"defaultAction,omitempty"`
	Egress        []NetworkRule `json:"egress"`
}

// NetworkRule is one egress rule of a NetworkPolicy.
type NetworkRule struct {
	Action string `json:"action"`
	Target string `json:"target"`
}

// checkNetworkPolicy applies the rules of specs/sandbox-lifecycle.yml's
// NetworkPolicy and NetworkRule (additionalProperties: false; action and
// target required; actions allow or deny) and api/schema.py's (a target
// of at least one character). The spec says a target is an FQDN or a
// wildcard domain, "IP/CIDR not yet supported in the egress MVP": the
// server does not refuse one, and the fake records it for tests to see.
func checkNetworkPolicy(raw json.RawMessage) []map[string]any {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	loc := func(path ...any) []any { return append([]any{"body", "networkPolicy"}, path...) }
	var policy map[string]json.RawMessage
	if err := json.Unmarshal(raw, &policy); err != nil {
		return []map[string]any{detail("model_type", loc(), "Input should be a valid dictionary or object to extract fields from", string(raw))}
	}
	var details []map[string]any
	for key, value := range policy {
		switch key {
		case "defaultAction":
			var action string
			if json.Unmarshal(value, &action) != nil || (action != "allow" && action != "deny") {
				details = append(details, detail("enum", loc("defaultAction"), "Input should be 'allow' or 'deny'", string(value)))
			}
		case "egress":
			var rules []map[string]json.RawMessage
			if err := json.Unmarshal(value, &rules); err != nil {
				details = append(details, detail("list_type", loc("egress"), "Input should be a valid list", string(value)))
				continue
			}
			for i, rule := range rules {
				details = append(details, checkNetworkRule(rule, func(field string) []any { return loc("egress", i, field) })...)
			}
		default:
			details = append(details, detail("extra_forbidden", loc(key), "Extra inputs are not permitted", string(value)))
		}
	}
	return details
}

func checkNetworkRule(rule map[string]json.RawMessage, loc func(string) []any) []map[string]any {
	var details []map[string]any
	for key, value := range rule {
		var text string
		switch {
		case key != "action" && key != "target":
			details = append(details, detail("extra_forbidden", loc(key), "Extra inputs are not permitted", string(value)))
		case json.Unmarshal(value, &text) != nil:
			details = append(details, detail("string_type", loc(key), "Input should be a valid string", string(value)))
		case key == "action" && text != "allow" && text != "deny":
			details = append(details, detail("enum", loc(key), "Input should be 'allow' or 'deny'", text))
		case key == "target" && text == "":
			details = append(details, detail("string_too_short", loc(key), "String should have at least 1 character", text))
		}
	}
	for _, required := range []string{"action", "target"} {
		if _, ok := rule[required]; !ok {
			details = append(details, detail("missing", loc(required), "Field required", nil))
		}
	}
	return details
}
