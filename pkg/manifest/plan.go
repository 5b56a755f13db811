package manifest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/auxilia/sandboxes/pkg/client"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"
)

// Options tune Apply.
type Options struct {
	DryRun bool // show the changes, make none
	Prune  bool // delete the sandboxes and agents the file does not have
	// Getenv reads the environment variables secret_env names.
	Getenv func(string) string
	// SecretPrefix, when set, is how every name secret_env gives must start
	// (AUXILIA_APPLY_SECRET_PREFIX): the operator's narrowing of what a file
	// may read.
	SecretPrefix string
}

// change is one step of a plan: what it shows and what it does.
type change struct {
	line string
	do   func(ctx context.Context, ids map[string]string) error
}

// Apply brings the server in line with the file: it checks the whole file
// first (nothing is applied when any of it is wrong), writes each change to
// out (secrets never), then makes them unless DryRun. It returns how many
// changes there were.
func Apply(ctx context.Context, api *client.API, f *File, opts Options, out io.Writer) (int, error) {
	s, err := readState(ctx, api)
	if err != nil {
		return 0, err
	}
	if err := check(f, s, opts); err != nil {
		return 0, err
	}
	changes := plan(api, f, s, opts)
	for _, c := range changes {
		fmt.Fprintln(out, c.line)
	}
	if len(changes) == 0 {
		fmt.Fprintln(out, "no changes")
	}
	if opts.DryRun {
		return len(changes), nil
	}
	ids := map[string]string{} // sandbox name → id, for bindings
	for name, sb := range s.sandboxes {
		ids[name] = sb.ID
	}
	var failed []error
	for _, c := range changes {
		if err := c.do(ctx, ids); err != nil {
			failed = append(failed, fmt.Errorf("%s: %w", strings.TrimSpace(c.line[1:]), err))
		}
	}
	return len(changes), errors.Join(failed...)
}

// checkName reports a missing name or one declared before, and remembers it.
func checkName(p *Problems, path, name string, seen map[string]bool) {
	switch {
	case name == "":
		p.add(path+".name", "is required")
	case seen[name]:
		p.add(path+".name", "%q is declared twice", name)
	}
	seen[name] = true
}

// check finds every fault of the file against the server's providers and tools.
func check(f *File, s *state, opts Options) error {
	p := slices.Clone(f.faults)
	declared := map[string]bool{}
	for i, sb := range f.Sandboxes {
		path := fmt.Sprintf("sandboxes[%d]", i)
		checkName(&p, path, sb.Name, declared)
		schema, known := s.configs[sb.Provider]
		if !known {
			p.add(path+".provider", "must be one of %s", strings.Join(slices.Sorted(maps.Keys(s.configs)), ", "))
		}
		checkSecretEnv(&p, path+".secret_env", sb.SecretEnv, opts)
		if known && sb.Config != nil {
			checkConfig(&p, path+".config", schema, sb.Config)
		}
	}
	agents := map[string]bool{}
	for i, a := range f.Agents {
		path := fmt.Sprintf("agents[%d]", i)
		checkName(&p, path, a.Name, agents)
		_, exists := s.sandboxes[a.Sandbox]
		if a.Sandbox != "" && !declared[a.Sandbox] && (!exists || opts.Prune) {
			p.add(path+".sandbox", "names no sandbox of the file or the server: %q", a.Sandbox)
		}
		if a.Sandbox == "" && a.Tools != nil {
			p.add(path+".tools", "needs a sandbox to bind")
		}
		if a.Sandbox == "" && a.Approval != nil {
			p.add(path+".approval", "needs a sandbox to bind")
		}
		if a.Approval != nil && a.Approval.GrantedBy != "" && !slices.Contains(grantors, a.Approval.GrantedBy) {
			p.add(path+".approval.granted_by", "must be anyone, someone_else or admin")
		}
		for _, tool := range slices.Sorted(maps.Keys(a.Tools)) {
			if !slices.Contains(s.tools, tool) {
				p.add(path+".tools."+tool, "is not a tool (they are %s)", strings.Join(s.tools, ", "))
			} else if policy := a.Tools[tool]; !slices.Contains([]string{"always_allow", "needs_approval", "disabled"}, policy) {
				p.add(path+".tools."+tool, "must be always_allow, needs_approval or disabled")
			}
		}
	}
	return p.err()
}

// unsupported is how the schema check names a key the schema does not have.
var unsupported = regexp.MustCompile(`^property "(.+)" is unsupported$`)

// checkConfig reports every way config breaks its provider's schema.
func checkConfig(p *Problems, path string, schema *openapi3.Schema, config map[string]any) {
	var value any
	if err := recode(config, &value); err != nil {
		p.add(path, "%v", err)
		return
	}
	err := schema.VisitJSON(value, openapi3.MultiErrors())
	var all openapi3.MultiError
	if !errors.As(err, &all) {
		all = openapi3.MultiError{err}
	}
	for _, e := range all {
		var se *openapi3.SchemaError
		switch {
		case e == nil:
		case errors.As(e, &se):
			where := path
			for _, part := range se.JSONPointer() {
				where += "." + part
			}
			if m := unsupported.FindStringSubmatch(se.Reason); m != nil {
				p.add(where+"."+m[1], "is not a setting of this provider")
				continue
			}
			p.add(where, "%s", se.Reason)
		default:
			p.add(path, "%v", e)
		}
	}
}

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
	for _, name := range slices.Sorted(maps.Keys(s.agents)) {
		if !slices.ContainsFunc(f.Agents, func(a Agent) bool { return a.Name == name }) {
			id := uuid.MustParse(s.agents[name].ID)
			changes = append(changes, change{fmt.Sprintf("- agent %q", name), func(ctx context.Context, _ map[string]string) error {
				_, err := client.Expect(api.DeleteAgentWithResponse(ctx, id, nil))
				return err
			}})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.sandboxes)) {
		if !slices.ContainsFunc(f.Sandboxes, func(sb Sandbox) bool { return sb.Name == name }) {
			id := uuid.MustParse(s.sandboxes[name].ID)
			changes = append(changes, change{fmt.Sprintf("- sandbox %q", name), func(ctx context.Context, _ map[string]string) error {
				_, err := client.Expect(api.DeleteSandboxWithResponse(ctx, id, nil))
				return err
			}})
		}
	}
	return changes
}

// createSandbox makes a sandbox; byDefault is its provider's url for a file
// that gives none.
func createSandbox(api *client.API, want Sandbox, secret, byDefault string) change {
	line := fmt.Sprintf("+ sandbox %q (%s)", want.Name, want.Provider)
	if secret != "" {
		line += ", " + secretFrom(want.SecretEnv, destination(want.URL, byDefault))
	}
	return change{line, func(ctx context.Context, ids map[string]string) error {
		body := map[string]any{"name": want.Name, "provider": want.Provider}
		if want.Description != nil {
			body["description"] = *want.Description
		}
		if want.URL != nil {
			body["url"] = *want.URL
		}
		if secret != "" {
			body["secret"] = secret
		}
		if want.Config != nil {
			body["config"] = want.Config
		}
		var create client.SandboxCreate
		if err := recode(body, &create); err != nil {
			return err
		}
		res, err := client.Expect(api.CreateSandboxWithResponse(ctx, &client.CreateSandboxParams{IdempotencyKey: client.NewKey()}, create))
		if err != nil {
			return err
		}
		var v sandboxView
		if err := recode(res.JSON201, &v); err != nil {
			return err
		}
		ids[want.Name] = v.ID
		return nil
	}}
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
		diffs = append(diffs, fmt.Sprintf("provider %s → %s (refused: a sandbox keeps its provider)", have.Provider, want.Provider))
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
	return change{fmt.Sprintf("~ sandbox %q: %s", want.Name, strings.Join(diffs, "; ")), func(ctx context.Context, _ map[string]string) error {
		_, err := client.Expect(api.UpdateSandboxWithApplicationMergePatchPlusJSONBodyWithResponse(ctx, id, nil, patch))
		return err
	}}, true
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

func createAgent(api *client.API, want Agent) change {
	line := fmt.Sprintf("+ agent %q", want.Name)
	if want.Sandbox != "" {
		line += fmt.Sprintf(", bound to %q", want.Sandbox)
	}
	return change{line, func(ctx context.Context, ids map[string]string) error {
		body := client.AgentCreate{Name: want.Name, Description: want.Description, Emoji: want.Emoji, Color: want.Color}
		res, err := client.Expect(api.CreateAgentWithResponse(ctx, &client.CreateAgentParams{IdempotencyKey: client.NewKey()}, body))
		if err != nil {
			return err
		}
		if want.Sandbox == "" {
			return nil
		}
		return bind(ctx, api, res.JSON201.Id, want, nil, ids)
	}}
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
		changes = append(changes, change{fmt.Sprintf("~ agent %q: %s", want.Name, strings.Join(diffs, "; ")),
			func(ctx context.Context, _ map[string]string) error {
				_, err := client.Expect(api.UpdateAgentWithApplicationMergePatchPlusJSONBodyWithResponse(ctx, id, nil, patch))
				return err
			}})
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
		changes = append(changes, change{fmt.Sprintf("~ agent %q: %s", want.Name, strings.Join(bindingDiffs, "; ")),
			func(ctx context.Context, ids map[string]string) error { return bind(ctx, api, id, want, kept, ids) }})
	}
	return changes
}

// grantors are the values of a binding's approval.granted_by.
var grantors = []string{"anyone", "someone_else", "admin"}

// bind puts the agent's binding as the file wants it; kept is the approval
// rule the server has, for what the file's rule leaves out (nil: none).
func bind(ctx context.Context, api *client.API, agentID uuid.UUID, want Agent, kept *Approval, ids map[string]string) error {
	sandboxID, err := uuid.Parse(ids[want.Sandbox])
	if err != nil {
		return fmt.Errorf("sandbox %q was not made", want.Sandbox)
	}
	body := client.BindingPut{SandboxId: sandboxID}
	if want.Tools != nil {
		var tools client.ToolsInput
		if err := recode(want.Tools, &tools); err != nil {
			return err
		}
		body.Tools = &tools
	}
	rule := client.ApprovalRuleInput{}
	for _, from := range []*Approval{kept, want.Approval} {
		if from != nil && from.GrantedBy != "" {
			g := client.ApprovalRuleInputGrantedBy(from.GrantedBy)
			rule.GrantedBy = &g
		}
		if from != nil && from.WithCall != nil {
			rule.WithCall = from.WithCall
		}
	}
	if rule != (client.ApprovalRuleInput{}) {
		body.Approval = &rule
	}
	_, err = client.Expect(api.BindSandboxWithResponse(ctx, agentID, nil, body))
	return err
}
