package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/mergepatch"
)

// patchable are the members a merge patch of a sandbox may carry.
var patchable = map[string]bool{"name": true, "description": true, "provider": true, "url": true, "secret": true, "config": true}

// Patch applies a JSON merge patch (RFC 7396) to a sandbox and validates the
// result as a whole. `secret` absent or "" keeps the stored one, null clears
// it; `provider` cannot change; null elsewhere resets a member to its
// default. expect, when set, is the version the caller last read; without
// it the patch applies to the latest one.
func (r *Registry) Patch(ctx context.Context, workspaceID, id string, patch json.RawMessage, expect auxilia.Expect) (auxilia.Sandbox, error) {
	var updated auxilia.Sandbox
	err := r.Tx.InTx(ctx, func(ctx context.Context) error {
		// Writes of one sandbox pass one at a time (deletes and binds take
		// this lock too): none reads a version another is replacing.
		if err := r.Tx.Lock(ctx, "sandbox:"+id); err != nil {
			return err
		}
		current, err := r.Store(workspaceID).Get(ctx, id)
		if err != nil {
			return err
		}
		if err := expect.Check("sandbox", current.Version); err != nil {
			return err
		}
		next, newSecret, err := r.merge(current, patch)
		if err != nil {
			return err
		}
		var sealed *auxilia.SealedSecret
		if newSecret != nil {
			s, hint, err := r.seal(current.ID, *newSecret)
			if err != nil {
				return err
			}
			next.Secret, sealed = hint, &s
		}
		if updated, err = r.Store(workspaceID).Update(ctx, next, sealed); err != nil {
			return err
		}
		return auxilia.Audit(ctx, r.Audit, workspaceID, "sandbox.update", "sandbox", id, describeChanges(current, next, newSecret))
	})
	return updated, err
}

// PreviewPatch answers as Patch would (the sandbox as the patch would
// leave it, or the same error) and saves and audits nothing.
func (r *Registry) PreviewPatch(ctx context.Context, workspaceID, id string, patch json.RawMessage, expect auxilia.Expect) (auxilia.Sandbox, error) {
	current, err := r.Store(workspaceID).Get(ctx, id)
	if err != nil {
		return auxilia.Sandbox{}, err
	}
	if err := expect.Check("sandbox", current.Version); err != nil {
		return auxilia.Sandbox{}, err
	}
	next, newSecret, err := r.merge(current, patch)
	if err != nil {
		return auxilia.Sandbox{}, err
	}
	if next.Name != current.Name {
		if err := r.nameFree(ctx, workspaceID, next); err != nil {
			return auxilia.Sandbox{}, err
		}
	}
	if newSecret != nil {
		next.Secret = hintOf(*newSecret)
	}
	next.Version++
	next.UpdatedAt = time.Now().UTC().Truncate(time.Microsecond)
	return next, nil
}

// merge returns current with the patch applied and validated, and the new
// secret (nil when it stays as it is; "" when it is cleared).
func (r *Registry) merge(current auxilia.Sandbox, patch json.RawMessage) (auxilia.Sandbox, *string, error) {
	// A patch merges into what the stored config means, whatever its shape.
	current = r.current(current)
	members, err := mergepatch.Object(patch)
	if err != nil {
		return current, nil, auxilia.Errorf(auxilia.CodeMalformed, "The body must be a JSON object (a merge patch).")
	}
	var unknown []string
	for k := range members {
		if !patchable[k] {
			unknown = append(unknown, fmt.Sprintf("%q", k))
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return current, nil, auxilia.Errorf(auxilia.CodeMalformed, "The body has unknown fields: %s.", strings.Join(unknown, ", "))
	}

	var fe auxilia.FieldErrors
	if p, ok := members["provider"]; ok {
		var name string
		if json.Unmarshal(p, &name) != nil || name != current.Provider {
			fe.Add("provider", "cannot change after creation (it is %s)", current.Provider)
		}
		delete(members, "provider")
	}
	newSecret := patchSecret(&fe, members["secret"])
	delete(members, "secret")

	doc, _ := json.Marshal(map[string]any{"name": current.Name, "description": current.Description,
		"url": current.URL, "config": current.Config})
	rest, _ := json.Marshal(members)
	merged, err := mergepatch.Apply(doc, rest)
	if err != nil {
		return current, nil, auxilia.Errorf(auxilia.CodeMalformed, "The body is not valid JSON.")
	}
	var m map[string]json.RawMessage
	_ = json.Unmarshal(merged, &m)

	next := current
	next.Name = stringMember(&fe, m, "name")
	next.Description = stringMember(&fe, m, "description")
	next.URL = stringMember(&fe, m, "url")
	next.Config = m["config"]
	next.HasSecret = current.Secret.IsSet
	if newSecret != nil {
		next.HasSecret = *newSecret != ""
	}
	spec, specErrs := r.validateSpec(next.SandboxSpec, false)
	for _, e := range specErrs {
		if !fe.Has(e.Field) {
			fe = append(fe, e)
		}
	}
	if newSecret == nil && current.Secret.IsSet && !fe.Has("url") && !fe.Has("secret") && !sameOrigin(current.URL, spec.URL) {
		fe.Add("secret", "%s", secretMustBeGiven)
	}
	if err := fe.Err(); err != nil {
		return current, nil, err
	}
	next.SandboxSpec = spec
	return next, newSecret, nil
}

// patchSecret reads the patch's secret member: nil keeps the stored one.
func patchSecret(fe *auxilia.FieldErrors, raw json.RawMessage) *string {
	if raw == nil {
		return nil
	}
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		cleared := ""
		return &cleared
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		fe.Add("secret", "must be a string, or null to clear it")
		return nil
	}
	if s == "" {
		return nil
	}
	checkSecret(fe, s)
	return &s
}

// stringMember reads a merged member that must be a string (absent = "").
func stringMember(fe *auxilia.FieldErrors, m map[string]json.RawMessage, key string) string {
	raw, ok := m[key]
	if !ok {
		return ""
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		fe.Add(key, "must be a string")
	}
	return s
}

// describeChanges names what a patch changed, for the audit log: field
// names and config keys, never a secret.
func describeChanges(before, after auxilia.Sandbox, newSecret *string) string {
	changed := changedFields(before, after, newSecret)
	if len(changed) == 0 {
		return fmt.Sprintf("saved sandbox %q unchanged", after.Name)
	}
	return fmt.Sprintf("changed sandbox %q: %s", after.Name, strings.Join(changed, ", "))
}

// changedFields names the fields and config keys a patch changed, and what
// became of the secret.
func changedFields(before, after auxilia.Sandbox, newSecret *string) []string {
	var changed []string
	if before.Name != after.Name {
		changed = append(changed, "name")
	}
	if before.Description != after.Description {
		changed = append(changed, "description")
	}
	if before.URL != after.URL {
		changed = append(changed, "url")
	}
	var was, is map[string]json.RawMessage
	_ = json.Unmarshal(before.Config, &was)
	_ = json.Unmarshal(after.Config, &is)
	var keys []string
	for k, v := range is {
		if !bytes.Equal(was[k], v) {
			keys = append(keys, "config."+k)
		}
	}
	sort.Strings(keys)
	changed = append(changed, keys...)
	switch {
	case newSecret == nil:
	case *newSecret == "":
		changed = append(changed, "secret cleared")
	default:
		changed = append(changed, "secret replaced")
	}
	return changed
}
