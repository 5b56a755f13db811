package agentsandbox

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// Config is a Kubernetes sandbox's settings: where its Sandboxes live and
// what their pod runs. Either Template names a SandboxTemplate of the
// cluster's, or Image (with the common resources) describes the pod, from
// which a SandboxTemplate of this sandbox's own is kept.
type Config struct {
	Namespace        string            `json:"namespace" validate:"required" title:"Namespace" doc:"Kubernetes namespace the sandboxes are created in."`
	Template         string            `json:"template" title:"SandboxTemplate" doc:"Name of a SandboxTemplate in the namespace whose pod the sandboxes run; its container must run sandboxd. Leave empty to give an image instead."`
	Image            string            `json:"image" validate:"omitempty,image_ref" title:"Image" doc:"Container image of the sandboxes' pod, whose entrypoint is sandboxd (it is given --root-dir, the working folder; gRPC on 9090, files on 8080); used when no template is named."`
	RuntimeClassName string            `json:"runtime_class_name" title:"Runtime class" doc:"RuntimeClass the image's pods run under (gvisor, kata…); empty for the cluster's default. Only with an image."`
	Labels           map[string]string `json:"labels" title:"Labels" doc:"Extra Kubernetes labels on every Sandbox and its pod."`
	WorkDir          string            `json:"workdir" validate:"required" title:"Working folder" doc:"sandboxd's root folder in the pod (its --root-dir): commands run there and the file tools reach only paths under it."`
	ReachPods        string            `json:"reach_pods" validate:"oneof=auto pod_ip port_forward" title:"Reach pods by" doc:"How this server reaches sandboxd in a pod: pod_ip dials the pod's IP (this server runs in the cluster, or its network routes pod IPs); port_forward goes through the API server; auto is pod_ip without a kubeconfig (in-cluster) and port_forward with one."`
	provider.Common
}

// DefaultWorkDir is sandboxd's default --root-dir (cmd/sandboxd/main.go).
const DefaultWorkDir = "/workspace"

// DefaultImage is sandboxd's image as agent-sandbox publishes it for its
// examples (examples/sandboxd-sandbox/deploy): a shell and coreutils.
const DefaultImage = "us-central1-docker.pkg.dev/k8s-staging-images/agent-sandbox/sandboxd:latest-main"

// The ways of reaching a pod's sandboxd.
const (
	reachAuto        = "auto"
	reachPodIP       = "pod_ip"
	reachPortForward = "port_forward"
)

// DefaultConfig is a new Kubernetes sandbox's settings.
func DefaultConfig() *Config {
	return &Config{Namespace: "default", Image: DefaultImage, Labels: map[string]string{}, WorkDir: DefaultWorkDir, ReachPods: reachAuto,
		Common: provider.DefaultCommon()}
}

var (
	// dnsLabel is an RFC 1123 label, as namespaces are named (IsDNS1123Label
	// in k8s.io/apimachinery/pkg/util/validation).
	dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	// labelValue is a label's value (IsValidLabelValue).
	labelValue = regexp.MustCompile(`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`)
	// labelName is a label key's name part (IsQualifiedName).
	labelName = regexp.MustCompile(`^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`)
)

// isDNSSubdomain says whether s names an object (IsDNS1123Subdomain).
func isDNSSubdomain(s string) bool {
	if len(s) == 0 || len(s) > 253 {
		return false
	}
	for _, part := range strings.Split(s, ".") {
		if !dnsLabel.MatchString(part) {
			return false
		}
	}
	return true
}

func isDNSLabel(s string) bool { return len(s) <= 63 && dnsLabel.MatchString(s) }

// labelKeyProblem says what is wrong with a label key, "" when nothing.
func labelKeyProblem(key string) string {
	name := key
	if prefix, rest, ok := strings.Cut(key, "/"); ok {
		if !isDNSSubdomain(prefix) {
			return "its prefix must be a DNS subdomain such as example.com"
		}
		name = rest
	}
	if len(name) > 63 || !labelName.MatchString(name) {
		return "must be at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit, after an optional prefix and '/'"
	}
	if strings.HasPrefix(key, labelPrefix) || strings.HasPrefix(key, "agents.x-k8s.io/") {
		return "is kept for the labels this server and the agent-sandbox controller set"
	}
	return ""
}

// Validate checks what the tags cannot: names as Kubernetes takes them,
// and a pod described once, by a template or by an image.
func (c *Config) Validate(provider.Policy) []provider.FieldError {
	var errs []provider.FieldError
	add := func(field, format string, args ...any) {
		errs = append(errs, provider.FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	if c.Namespace != "" && !isDNSLabel(c.Namespace) {
		add("namespace", "must be a namespace name: at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit")
	}
	switch {
	case c.Template == "" && c.Image == "":
		add("image", "give an image, or name a SandboxTemplate in template")
	case c.Template != "" && c.Image != "":
		add("template", "must be empty when an image is given: name a template or give an image, not both")
	case c.Template != "" && !isDNSSubdomain(c.Template):
		add("template", "must be a SandboxTemplate's name: lowercase letters, digits, '-' and '.'")
	}
	if c.Template != "" {
		if c.RuntimeClassName != "" {
			add("runtime_class_name", "must be empty when a template is named: the template sets it")
		}
		for key, value := range map[string]float64{"cpu": c.Resources.CPU, "memory_mb": float64(c.Resources.MemoryMB), "disk_mb": float64(c.Resources.DiskMB)} {
			if value != 0 {
				add("resources."+key, "must be 0 when a template is named: the template sets it")
			}
		}
	}
	if c.Template != "" {
		errs = append(errs, c.templateNetworkRefusals()...)
	}
	if c.RuntimeClassName != "" && !isDNSSubdomain(c.RuntimeClassName) {
		add("runtime_class_name", "must be a RuntimeClass's name: lowercase letters, digits, '-' and '.'")
	}
	if len(c.Labels) > 32 {
		add("labels", "must hold at most 32 labels")
	}
	for _, key := range slices.Sorted(func(yield func(string) bool) {
		for k := range c.Labels {
			if !yield(k) {
				return
			}
		}
	}) {
		if why := labelKeyProblem(key); why != "" {
			add("labels."+key, "the key %s", why)
		} else if v := c.Labels[key]; len(v) > 63 || !labelValue.MatchString(v) {
			add("labels."+key, "must be at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit")
		}
	}
	if c.WorkDir != "" && (!path.IsAbs(c.WorkDir) || path.Clean(c.WorkDir) != c.WorkDir || c.WorkDir == "/") {
		add("workdir", "must be an absolute folder other than /, without '..' or a trailing '/'")
	}
	return errs
}

// rules is what Kubernetes takes of the common block: CPU, memory and a
// volume for the working folder, set on the image's pod; the network as
// the NetworkPolicy of the image's SandboxTemplate, which takes addresses
// and networks, not domains (a named template's own policy decides, so
// its network stays the default).
var rules = provider.CommonRules{
	MaxTimeout:          86400,
	PackagesNote:        "needs the pods to reach PyPI",
	PackagesNeedNetwork: true,
	PoolNote: "kept by the cluster as a SandboxWarmPool of the sandbox's template, which replaces its Sandboxes when " +
		"the template changes, so longest idle does not apply; a new thread's instance is a SandboxClaim that takes one " +
		"and then installs the default packages",
	Egress: provider.EgressLimits{Addresses: true, IPv6: true, Deny: true, Walled: walled,
		Note: "only with an image, as a NetworkPolicy the cluster's network plugin enforces; a NetworkPolicy takes addresses and networks, not domain names; " +
			"private, shared, loopback and link-local addresses are never reached, the cluster's DNS always is when anything is allowed"},
	Resources: provider.ResourceLimits{
		CPU:      provider.Range{Min: 0.1, Max: 64, Step: 0.1, Note: "the container's request and limit; only with an image"},
		MemoryMB: provider.Range{Min: 64, Max: 262144, Note: "the container's request and limit; only with an image"},
		DiskMB: provider.Range{Min: 1024, Max: 1048576, Step: 1024,
			Note: "a volume claimed for the working folder, which keeps its files while the sandbox is paused; only with an image"},
	},
}

// templateNetworkRefusals refuse a network of a named template's other
// than the default: the template's own NetworkPolicy decides there.
func (c *Config) templateNetworkRefusals() []provider.FieldError {
	const where = "when a template is named: set it in the SandboxTemplate's networkPolicy"
	var errs []provider.FieldError
	if def := provider.DefaultCommon().Network.Default; c.Network.Default != def {
		errs = append(errs, provider.FieldError{Field: "network.default", Message: "must be " + def + " " + where})
	}
	if len(c.Network.Allow) > 0 {
		errs = append(errs, provider.FieldError{Field: "network.allow", Message: "must be empty " + where})
	}
	if len(c.Network.Deny) > 0 {
		errs = append(errs, provider.FieldError{Field: "network.deny", Message: "must be empty " + where})
	}
	return errs
}
