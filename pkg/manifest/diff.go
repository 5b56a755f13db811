package manifest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/auxilia/sandboxes/pkg/client"
	"github.com/google/uuid"
)

// plan lists the changes, in the order they must be made: sandboxes, then
// agents and their bindings, then what is pruned (agents before the
// sandboxes they may use).
func plan(api *client.API, f *File, s *state, opts Options) []change {
	var changes []change
	for _, want := range f.Sandboxes {
		have, exists := s.sandboxes[want.Name]
		secret := ""
		if want.SecretEnv != "" {
			secret = opts.Getenv(want.SecretEnv)
		}
		byDefault := s.defaultURLs[want.Provider]
		if !exists {
			changes = append(changes, createSandbox(api, want, secret, byDefault))
			continue
		}
		if c, ok := updateSandbox(api, want, have, secret, byDefault); ok {
			changes = append(changes, c)
		}
	}
	for _, want := range f.Agents {
		have, exists := s.agents[want.Name]
		if !exists {
			changes = append(changes, createAgent(api, want))
			continue
		}
		changes = append(changes, updateAgent(api, want, have)...)
	}
	if !opts.Prune {
		return changes
	}
	return append(changes, prune(api, f, s)...)
}

// prune deletes what apply made (ManagedBy) that the file no longer has:
// agents before the sandboxes they may use. A sandbox an agent would still
// use is refused, as the server would refuse it.
func prune(api *client.API, f *File, s *state) []change {
	var changes []change
	pruned := map[string]bool{} // agents deleted
	for _, name := range slices.Sorted(maps.Keys(s.agents)) {
		have := s.agents[name]
		if have.ManagedBy != ManagedBy || slices.ContainsFunc(f.Agents, func(a Agent) bool { return a.Name == name }) {
			continue
		}
		pruned[name] = true
		id := uuid.MustParse(have.ID)
		changes = append(changes, change{
			Change: Change{Action: "delete", Kind: "agent", Name: name, Summary: fmt.Sprintf("- agent %q", name)},
			do: func(ctx context.Context, _ map[string]string) error {
				_, err := client.Expect(api.DeleteAgentWithResponse(ctx, id, nil))
				return err
			}})
	}
	for _, name := range slices.Sorted(maps.Keys(s.sandboxes)) {
		have := s.sandboxes[name]
		if have.ManagedBy != ManagedBy || slices.ContainsFunc(f.Sandboxes, func(sb Sandbox) bool { return sb.Name == name }) {
			continue
		}
		id := uuid.MustParse(have.ID)
		c := change{
			Change: Change{Action: "delete", Kind: "sandbox", Name: name, Summary: fmt.Sprintf("- sandbox %q", name)},
			do: func(ctx context.Context, _ map[string]string) error {
				_, err := client.Expect(api.DeleteSandboxWithResponse(ctx, id, nil))
				return err
			}}
		if users := usersAfter(f, s, name, pruned); len(users) > 0 {
			c.refusal = fmt.Sprintf("sandbox_in_use: still used by agent(s) %s", strings.Join(users, ", "))
		}
		changes = append(changes, c)
	}
	return changes
}

// usersAfter are the agents bound to the sandbox once the file is applied:
// those the server has bound to it that are not pruned and that the file
// does not bind elsewhere, and those the file binds to it.
func usersAfter(f *File, s *state, sandbox string, pruned map[string]bool) []string {
	var users []string
	for _, name := range slices.Sorted(maps.Keys(s.agents)) {
		have := s.agents[name]
		i := slices.IndexFunc(f.Agents, func(a Agent) bool { return a.Name == name })
		movesAway := i >= 0 && f.Agents[i].Sandbox != "" && f.Agents[i].Sandbox != sandbox
		if have.Sandbox != nil && have.Sandbox.Name == sandbox && !pruned[name] && !movesAway {
			users = append(users, fmt.Sprintf("%q", name))
		}
	}
	for _, a := range f.Agents {
		if _, exists := s.agents[a.Name]; !exists && a.Sandbox == sandbox {
			users = append(users, fmt.Sprintf("%q", a.Name))
		}
	}
	return users
}

// updateSandbox changes what differs of a sandbox; byDefault is its
// provider's url for a file that blanks it.
func updateSandbox(api *client.API, want Sandbox, have sandboxView, secret, byDefault string) (change, bool) {
	var diffs []string
	var patch client.SandboxPatch
	if want.Description != nil && *want.Description != have.Description {
		diffs = append(diffs, fmt.Sprintf("description %q → %q", have.Description, *want.Description))
		patch.Description = want.Description
	}
	if want.URL != nil && withoutScheme(*want.URL) != withoutScheme(have.URL) {
		diffs = append(diffs, fmt.Sprintf("url %q → %q", have.URL, *want.URL))
		patch.Url = want.URL
	}
	config := map[string]any{}
	for _, key := range slices.Sorted(maps.Keys(want.Config)) {
		if !covers(have.Config[key], want.Config[key]) {
			diffs = append(diffs, differences("config."+key, have.Config[key], want.Config[key])...)
			config[key] = want.Config[key] // a merge patch: an object's keys left out stay
		}
	}
	if len(config) > 0 {
		patch.Config = &config
	}
	if want.Provider != have.Provider {
		diffs = append(diffs, fmt.Sprintf("provider %s → %s", have.Provider, want.Provider))
		p := client.Provider(want.Provider)
		patch.Provider = &p
	}
	// The secret is never read back: it is sent when the url moves or when
	// the server's hint (last four characters, length) does not match it.
	if secret != "" && (patch.Url != nil || !have.HasSecret || secretChanged(api, have.ID, secret)) {
		to := have.URL
		if patch.Url != nil {
			to = destination(patch.Url, byDefault)
		}
		diffs = append(diffs, secretFrom(want.SecretEnv, to))
		patch.Secret = &secret
	}
	if len(diffs) == 0 {
		return change{}, false
	}
	id := uuid.MustParse(have.ID)
	update := func(ctx context.Context, dryRun bool) error {
		_, err := client.Expect(api.UpdateSandboxWithApplicationMergePatchPlusJSONBodyWithResponse(ctx, id,
			&client.UpdateSandboxParams{DryRun: &dryRun}, patch))
		return err
	}
	return change{
		Change: Change{Action: "update", Kind: "sandbox", Name: want.Name,
			Summary: fmt.Sprintf("~ sandbox %q: %s", want.Name, strings.Join(diffs, "; "))},
		check: func(ctx context.Context) error { return update(ctx, true) },
		do:    func(ctx context.Context, _ map[string]string) error { return update(ctx, false) },
	}, true
}

// secretChanged reports whether the stored secret's hint is not secret's.
// The hint is read while planning; a failure to read it counts as a change.
func secretChanged(api *client.API, id, secret string) bool {
	res, err := client.Expect(api.GetSecretHintWithResponse(context.Background(), uuid.MustParse(id)))
	if err != nil || !res.JSON200.IsSet || res.JSON200.Length == nil || *res.JSON200.Length != len(secret) {
		return true
	}
	return res.JSON200.Last4 != nil && !strings.HasSuffix(secret, *res.JSON200.Last4)
}

// differences says what want changes of have, key by key inside objects
// (network, resources, pool), as "path was → is" lines.
func differences(path string, have, want any) []string {
	var h, w any
	if recode(have, &h) != nil || recode(want, &w) != nil {
		return []string{path + " changed"}
	}
	wm, wantObject := w.(map[string]any)
	hm, haveObject := h.(map[string]any)
	if !wantObject || !haveObject {
		was, _ := json.Marshal(h)
		is, _ := json.Marshal(w)
		return []string{fmt.Sprintf("%s %s → %s", path, was, is)}
	}
	var out []string
	for _, key := range slices.Sorted(maps.Keys(wm)) {
		if !covers(hm[key], wm[key]) {
			out = append(out, differences(path+"."+key, hm[key], wm[key])...)
		}
	}
	return out
}

// covers reports whether have holds want: equal values, or, for objects,
// every key want gives (the server writes every default out).
func covers(have, want any) bool {
	var h, w any
	if recode(have, &h) != nil || recode(want, &w) != nil {
		return false
	}
	wm, wantObject := w.(map[string]any)
	hm, haveObject := h.(map[string]any)
	if wantObject && haveObject {
		for k, v := range wm {
			if !covers(hm[k], v) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(h, w)
}

func withoutScheme(url string) string {
	_, rest, found := strings.Cut(url, "://")
	if !found {
		rest = url
	}
	return strings.TrimSuffix(rest, "/")
}

func updateAgent(api *client.API, want Agent, have agentView) []change {
	var diffs []string
	var patch client.AgentPatch
	for _, f := range []struct {
		name       string
		want       *string
		have       string
		patchField **string
	}{
		{"description", want.Description, have.Description, &patch.Description},
		{"emoji", want.Emoji, have.Emoji, &patch.Emoji},
		{"color", want.Color, have.Color, &patch.Color},
	} {
		if f.want != nil && !strings.EqualFold(*f.want, f.have) {
			diffs = append(diffs, fmt.Sprintf("%s %q → %q", f.name, f.have, *f.want))
			*f.patchField = f.want
		}
	}
	id := uuid.MustParse(have.ID)
	var changes []change
	if len(diffs) > 0 {
		update := func(ctx context.Context, dryRun bool) error {
			_, err := client.Expect(api.UpdateAgentWithApplicationMergePatchPlusJSONBodyWithResponse(ctx, id,
				&client.UpdateAgentParams{DryRun: &dryRun}, patch))
			return err
		}
		changes = append(changes, change{
			Change: Change{Action: "update", Kind: "agent", Name: want.Name,
				Summary: fmt.Sprintf("~ agent %q: %s", want.Name, strings.Join(diffs, "; "))},
			check: func(ctx context.Context) error { return update(ctx, true) },
			do:    func(ctx context.Context, _ map[string]string) error { return update(ctx, false) },
		})
	}
	if want.Sandbox == "" {
		return changes
	}
	var bindingDiffs []string
	switch {
	case have.Sandbox == nil:
		bindingDiffs = append(bindingDiffs, fmt.Sprintf("bound to %q", want.Sandbox))
	case have.Sandbox.Name != want.Sandbox:
		bindingDiffs = append(bindingDiffs, fmt.Sprintf("bound to %q, not %q", want.Sandbox, have.Sandbox.Name))
	}
	for _, tool := range slices.Sorted(maps.Keys(want.Tools)) {
		if have.Sandbox != nil && have.Sandbox.Tools[tool] != want.Tools[tool] {
			bindingDiffs = append(bindingDiffs, fmt.Sprintf("tools.%s %s → %s", tool, have.Sandbox.Tools[tool], want.Tools[tool]))
		}
	}
	// The rule the server has is kept where the file leaves it out: a
	// binding is put whole, and a rule lost would loosen who grants.
	var kept *Approval
	if have.Sandbox != nil {
		rule := have.Sandbox.Approval
		kept = &Approval{GrantedBy: rule.GrantedBy, WithCall: &rule.WithCall}
		if w := want.Approval; w != nil && w.GrantedBy != "" && w.GrantedBy != rule.GrantedBy {
			bindingDiffs = append(bindingDiffs, fmt.Sprintf("approval.granted_by %s → %s", rule.GrantedBy, w.GrantedBy))
		}
		if w := want.Approval; w != nil && w.WithCall != nil && *w.WithCall != rule.WithCall {
			bindingDiffs = append(bindingDiffs, fmt.Sprintf("approval.with_call %t → %t", rule.WithCall, *w.WithCall))
		}
	}
	if len(bindingDiffs) > 0 {
		changes = append(changes, change{
			Change: Change{Action: "update", Kind: "agent", Name: want.Name,
				Summary: fmt.Sprintf("~ agent %q: %s", want.Name, strings.Join(bindingDiffs, "; "))},
			do: func(ctx context.Context, ids map[string]string) error { return bind(ctx, api, id, want, kept, ids) },
		})
	}
	return changes
}
