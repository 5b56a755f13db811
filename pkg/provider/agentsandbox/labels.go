package agentsandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// labelPrefix marks the labels this server sets on its Sandboxes.
const labelPrefix = "auxilia/"

// The labels of a Sandbox made here.
const (
	labelManaged   = labelPrefix + "managed"
	labelWorkspace = labelPrefix + "workspace"
	labelSandbox   = labelPrefix + "sandbox"
	labelThread    = labelPrefix + "thread"
	labelInstance  = labelPrefix + "instance"
)

// labelSafe is v as a label's value: itself when Kubernetes takes it, else
// a digest of it (the same each time, so a search finds it).
func labelSafe(v string) string {
	if len(v) <= 63 && labelValue.MatchString(v) {
		return v
	}
	sum := sha256.Sum256([]byte(v))
	return "h" + hex.EncodeToString(sum[:])[:40]
}

// nameSafe is v as part of an object's name: itself when it is a DNS
// label, else a digest of it.
func nameSafe(v string) string {
	if len(v) <= 50 && isDNSLabel(v) {
		return v
	}
	sum := sha256.Sum256([]byte(v))
	return hex.EncodeToString(sum[:])[:40]
}

// sandboxLabels are the config's extra labels and ours, for a Sandbox
// and its pod; with the hash of the template's name, by which the
// template's NetworkPolicy selects its pods.
func (c *Client) sandboxLabels(l provider.Labels) map[string]string {
	out := maps.Clone(c.cfg.Labels)
	if out == nil {
		out = map[string]string{}
	}
	out[labelManaged] = "true"
	out[templateHashLabel] = nameHash(c.cfg.templateName(l.Sandbox))
	for key, v := range map[string]string{labelWorkspace: l.Workspace, labelSandbox: l.Sandbox,
		labelThread: l.Thread, labelInstance: l.Instance} {
		if v != "" {
			out[key] = labelSafe(v)
		}
	}
	return out
}
