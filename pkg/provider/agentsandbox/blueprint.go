package agentsandbox

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"strconv"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// The ports sandboxd listens on (cmd/sandboxd/main.go): gRPC's
// ProcessService and the Filesystem & Runtime REST API.
const (
	grpcPort = 9090
	restPort = 8080
)

// workspaceVolume is the claim the working folder is mounted from, when
// the config asks for a disk. The controller names the volume after the
// claim's template and the claim after it and the Sandbox
// (reconcilePVCs in controllers/sandbox_controller.go).
const workspaceVolume = "workspace"

// imageBlueprint is the pod the config's image describes, as
// agent-sandbox's own runtime example has it
// (examples/sandboxd-sandbox/deploy/a-runtime-image.yaml): sandboxd (the
// image's entrypoint) rooted at the working folder, as user 1000 without
// privileges or a service account token; its ports; its health as
// readiness (GET /v1/health answers 200 once it serves); the resources as
// requests and limits; the working folder on a volume, claimed when a
// disk is asked for (kept while the Sandbox is suspended), else an
// emptyDir; the config's extra labels. The pod is not restarted: a pod
// that ended is a sandbox gone.
func (c *Config) imageBlueprint() blueprint {
	container := map[string]any{
		"name":  "sandboxd",
		"image": c.Image,
		"args":  []string{"--root-dir=" + c.WorkDir},
		// The protocol the API server would fill in, so that the template
		// kept reads back as written and is not written again.
		"ports": []map[string]any{{"name": "grpc", "containerPort": grpcPort, "protocol": "TCP"},
			{"name": "files", "containerPort": restPort, "protocol": "TCP"}},
		"readinessProbe": map[string]any{
			"httpGet":       map[string]any{"path": "/v1/health", "port": restPort},
			"periodSeconds": 2,
		},
		"securityContext": map[string]any{
			"runAsUser": sandboxUser, "runAsGroup": sandboxUser, "runAsNonRoot": true,
			"allowPrivilegeEscalation": false, "capabilities": map[string]any{"drop": []string{"ALL"}},
		},
		"volumeMounts": []map[string]any{{"name": workspaceVolume, "mountPath": c.WorkDir}},
	}
	quantities := map[string]string{}
	if c.Resources.CPU > 0 {
		quantities["cpu"] = strconv.Itoa(int(c.Resources.CPU*1000+0.5)) + "m"
	}
	if c.Resources.MemoryMB > 0 {
		quantities["memory"] = strconv.Itoa(c.Resources.MemoryMB) + "Mi"
	}
	if len(quantities) > 0 {
		container["resources"] = map[string]any{"requests": quantities, "limits": quantities}
	}
	no := false
	spec := map[string]any{
		"containers":                   []any{container},
		"restartPolicy":                "Never",
		"automountServiceAccountToken": &no,
		"securityContext":              map[string]any{"runAsNonRoot": true, "fsGroup": sandboxUser},
	}
	if c.RuntimeClassName != "" {
		spec["runtimeClassName"] = c.RuntimeClassName
	}
	var b blueprint
	if c.Resources.DiskMB > 0 {
		b.VolumeClaimTemplates, _ = json.Marshal([]map[string]any{{
			"metadata": map[string]any{"name": workspaceVolume},
			"spec": map[string]any{"accessModes": []string{"ReadWriteOnce"},
				"resources": map[string]any{"requests": map[string]string{"storage": strconv.Itoa(c.Resources.DiskMB) + "Mi"}}},
		}})
	} else {
		spec["volumes"] = []map[string]any{{"name": workspaceVolume, "emptyDir": map[string]any{}}}
	}
	meta := map[string]any{}
	if len(c.Labels) > 0 {
		meta["labels"] = c.Labels // a warm pool's pods carry them too
	}
	b.PodTemplate, _ = json.Marshal(map[string]any{"metadata": meta, "spec": spec})
	return b
}

// sandboxUser is the user and group sandboxd runs as in an image's pod.
const sandboxUser = 1000

// ownTemplateName is the SandboxTemplate kept for a sandbox's image.
func ownTemplateName(sandboxID string) string {
	if sandboxID == "" {
		return "auxilia-image"
	}
	return "auxilia-" + nameSafe(sandboxID)
}

// templateName is the SandboxTemplate a sandbox's pods come from: the
// named one, or the one kept for its image.
func (c *Config) templateName(sandboxID string) string {
	if c.Template != "" {
		return c.Template
	}
	return ownTemplateName(sandboxID)
}

// blueprintFor is what a new Sandbox runs: the named template's pod, or
// the image's, kept as a SandboxTemplate of this sandbox's own first;
// with the template, which is to control the Sandbox.
func (c *Client) blueprintFor(ctx context.Context, op string, l provider.Labels) (blueprint, error) {
	var t sandboxTemplate
	var err error
	if c.cfg.Template != "" {
		t, err = c.template(ctx, op, c.cfg.Template)
	} else {
		t, err = c.keepImageTemplate(ctx, op, l.Sandbox)
	}
	b := t.Spec.blueprint
	b.template = t.Metadata
	return b, err
}

// keepImageTemplate keeps the SandboxTemplate of the sandbox's image: its
// pod and its network policy.
func (c *Client) keepImageTemplate(ctx context.Context, op, sandboxID string) (sandboxTemplate, error) {
	spec := templateSpec{blueprint: c.cfg.imageBlueprint(), NetworkPolicy: c.cfg.networkPolicy(),
		NetworkPolicyManagement: policyManaged}
	t, err := c.keepTemplate(ctx, op, ownTemplateName(sandboxID), spec)
	t.Spec.blueprint = spec.blueprint
	return t, err
}

// ownerReferences make the template the controller of a Sandbox made
// from b. agent-sandbox copies the hash of the template's name from a
// Sandbox to its pod, which the template's NetworkPolicy selects by, only
// when an object of its extensions controls the Sandbox
// (computeExtensionPodLabels in controllers/sandbox_controller.go); the
// pod template's own agents.x-k8s.io labels are dropped. A Sandbox so
// owned is deleted with its template.
func (b blueprint) ownerReferences() []ownerReference {
	if b.template.UID == "" {
		return nil
	}
	return []ownerReference{{APIVersion: extensionVersion, Kind: "SandboxTemplate",
		Name: b.template.Name, UID: b.template.UID, Controller: true}}
}

// keepTemplate creates the SandboxTemplate, or updates it to spec: asked
// again with the same spec, it changes nothing. It returns the template
// as the API server keeps it.
func (c *Client) keepTemplate(ctx context.Context, op, name string, spec templateSpec) (sandboxTemplate, error) {
	want := sandboxTemplate{APIVersion: extensionVersion, Kind: "SandboxTemplate",
		Metadata: objectMeta{Name: name, Labels: map[string]string{labelManaged: "true"}}, Spec: spec}
	for attempt := 0; ; attempt++ {
		var have sandboxTemplate
		found, err := c.lookup(ctx, op, c.templatesPath(name), &have)
		var a provider.Answer
		switch {
		case err != nil:
			return have, err
		case !found:
			a, err = c.send(ctx, op, http.MethodPost, c.templatesPath(""), want, "")
		default:
			if sameSpec(have.Spec, spec) {
				return have, nil
			}
			update := want
			update.Metadata.ResourceVersion = have.Metadata.ResourceVersion
			// The labels others set stay: the controller's hash of the name
			// among them, which it would otherwise write again.
			update.Metadata.Labels = maps.Clone(have.Metadata.Labels)
			if update.Metadata.Labels == nil {
				update.Metadata.Labels = map[string]string{}
			}
			update.Metadata.Labels[labelManaged] = "true"
			a, err = c.send(ctx, op, http.MethodPut, c.templatesPath(name), update, "")
		}
		switch {
		case err != nil:
			return have, err
		case a.OK():
			var kept sandboxTemplate
			return kept, c.caller.Decode(op, a.Body, &kept)
		case a.Status == http.StatusConflict && attempt < 2:
			continue // made or changed meanwhile: read it again
		}
		return have, c.caller.Refusal(op, a)
	}
}

// sameSpec says whether a template's spec is what this server would
// write: its pod, its claims and its network policy (another management
// of the policy than ours is rewritten too).
func sameSpec(have, want templateSpec) bool {
	if have.NetworkPolicyManagement != want.NetworkPolicyManagement {
		return false
	}
	haveNP, _ := json.Marshal(have.NetworkPolicy)
	wantNP, _ := json.Marshal(want.NetworkPolicy)
	return sameJSON(have.PodTemplate, want.PodTemplate) && sameJSON(have.VolumeClaimTemplates, want.VolumeClaimTemplates) &&
		sameJSON(haveNP, wantNP)
}

// sameJSON says whether two JSON documents hold the same values (the
// API server may order keys otherwise, and fills in defaults, in which
// case the template is written again: harmless).
func sameJSON(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xs, _ := json.Marshal(x)
	ys, _ := json.Marshal(y)
	return string(xs) == string(ys)
}

// withPodLabels is the pod template with labels added to its metadata.
func withPodLabels(op string, podTemplate json.RawMessage, labels map[string]string) (json.RawMessage, error) {
	var t map[string]any
	if err := json.Unmarshal(podTemplate, &t); err != nil || t == nil {
		return nil, failure(provider.ErrInvalidConfig, op, "the SandboxTemplate's podTemplate is not an object")
	}
	meta, _ := t["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	have, _ := meta["labels"].(map[string]any)
	if have == nil {
		have = map[string]any{}
	}
	for k, v := range labels {
		have[k] = v
	}
	meta["labels"] = have
	t["metadata"] = meta
	return json.Marshal(t)
}
