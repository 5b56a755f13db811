package manifest

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

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
		have, exists := s.sandboxes[a.Sandbox]
		pruned := opts.Prune && have.ManagedBy == ManagedBy
		if a.Sandbox != "" && !declared[a.Sandbox] && (!exists || pruned) {
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

// grantors are the values of a binding's approval.granted_by.
var grantors = []string{"anyone", "someone_else", "admin"}
