package agentsandbox

import "encoding/json"

// The parts of agent-sandbox's objects this provider writes and reads
// (api/v1beta1/sandbox_types.go, extensions/api/v1beta1/*_types.go),
// and of a Pod's status (k8s.io/api/core/v1).

type objectMeta struct {
	Name              string            `json:"name,omitempty"`
	Namespace         string            `json:"namespace,omitempty"`
	Labels            map[string]string `json:"labels,omitempty"`
	Annotations       map[string]string `json:"annotations,omitempty"`
	UID               string            `json:"uid,omitempty"`
	OwnerReferences   []ownerReference  `json:"ownerReferences,omitempty"`
	ResourceVersion   string            `json:"resourceVersion,omitempty"`
	Generation        int64             `json:"generation,omitempty"`
	DeletionTimestamp *string           `json:"deletionTimestamp,omitempty"`
}

// ownerReference names an object's owner; its controller, if Controller.
type ownerReference struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	UID        string `json:"uid"`
	Controller bool   `json:"controller,omitempty"`
}

// blueprint is a SandboxBlueprint: the pod's template and its volumes'
// claims, kept as JSON so that a template's pod is copied whole; and, not
// written, the SandboxTemplate it came from.
type blueprint struct {
	PodTemplate          json.RawMessage `json:"podTemplate"`
	VolumeClaimTemplates json.RawMessage `json:"volumeClaimTemplates,omitempty"`
	template             objectMeta
}

type sandboxSpec struct {
	PodTemplate          json.RawMessage `json:"podTemplate,omitempty"`
	VolumeClaimTemplates json.RawMessage `json:"volumeClaimTemplates,omitempty"`
	Service              *bool           `json:"service,omitempty"`
	OperatingMode        string          `json:"operatingMode,omitempty"`
}

// The operating modes of a Sandbox (SandboxOperatingMode).
const (
	modeRunning   = "Running"
	modeSuspended = "Suspended"
)

type condition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
	// ObservedGeneration is the spec's generation the controller saw when
	// it wrote the condition.
	ObservedGeneration int64 `json:"observedGeneration"`
}

type sandboxStatus struct {
	Conditions []condition `json:"conditions"`
	PodIPs     []string    `json:"podIPs"`
}

type sandbox struct {
	APIVersion string        `json:"apiVersion,omitempty"`
	Kind       string        `json:"kind,omitempty"`
	Metadata   objectMeta    `json:"metadata"`
	Spec       sandboxSpec   `json:"spec"`
	Status     sandboxStatus `json:"status,omitzero"`
}

type sandboxList struct {
	Items []sandbox `json:"items"`
}

// The conditions a Sandbox reports (SandboxCondition… in sandbox_types.go).
const (
	conditionReady     = "Ready"
	conditionSuspended = "Suspended"
	conditionFinished  = "Finished"
	conditionScheduled = "PodScheduled"
)

func (s sandbox) condition(kind string) (condition, bool) {
	for _, c := range s.Status.Conditions {
		if c.Type == kind {
			return c, true
		}
	}
	return condition{}, false
}

func (s sandbox) is(kind string) bool {
	c, ok := s.condition(kind)
	return ok && c.Status == "True"
}

// readySince says whether the Sandbox is Ready, as the controller saw
// its spec at generation or later, with a pod IP.
func (s sandbox) readySince(generation int64) bool {
	c, ok := s.condition(conditionReady)
	return ok && c.Status == "True" && c.ObservedGeneration >= generation && len(s.Status.PodIPs) > 0
}

// podNameAnnotation names the Sandbox's pod when it is not the Sandbox's
// name (a warm pool's pod adopted by a claim; resolvePodName in
// controllers/sandbox_controller.go).
const podNameAnnotation = "agents.x-k8s.io/pod-name"

// claimName is the SandboxClaim the Sandbox was made or taken for, ""
// when none: a claim that adopts a warm pool's Sandbox becomes its
// controller (completeAdoption in
// extensions/controllers/sandboxclaim_controller.go).
func (s sandbox) claimName() string {
	for _, o := range s.Metadata.OwnerReferences {
		if o.Controller && o.Kind == "SandboxClaim" {
			return o.Name
		}
	}
	return ""
}

func (s sandbox) podName() string {
	if name := s.Metadata.Annotations[podNameAnnotation]; name != "" {
		return name
	}
	return s.Metadata.Name
}

type sandboxTemplate struct {
	APIVersion string       `json:"apiVersion,omitempty"`
	Kind       string       `json:"kind,omitempty"`
	Metadata   objectMeta   `json:"metadata"`
	Spec       templateSpec `json:"spec"`
}

// templateSpec is a SandboxTemplateSpec: the blueprint, and the
// NetworkPolicy the template's controller keeps for its pods
// (<name>-network-policy) when its management is Managed.
type templateSpec struct {
	blueprint
	NetworkPolicy           *networkPolicy `json:"networkPolicy,omitempty"`
	NetworkPolicyManagement string         `json:"networkPolicyManagement,omitempty"`
}

// policyManaged has the template's controller keep its NetworkPolicy.
const policyManaged = "Managed"

// pod is what a Pod's status tells about why it is not running.
type pod struct {
	Status struct {
		Phase      string      `json:"phase"`
		Conditions []condition `json:"conditions"`
		PodIP      string      `json:"podIP"`
		Statuses   []struct {
			Name  string `json:"name"`
			State struct {
				Waiting *struct {
					Reason  string `json:"reason"`
					Message string `json:"message"`
				} `json:"waiting"`
				Terminated *struct {
					ExitCode int    `json:"exitCode"`
					Reason   string `json:"reason"`
					Message  string `json:"message"`
				} `json:"terminated"`
			} `json:"state"`
		} `json:"containerStatuses"`
	} `json:"status"`
}
