// Package manifest declares sandboxes and agents in a file and brings a
// server in line with it over the API (through pkg/client): `auxilia apply`
// and `auxilia export`.
//
// A file lists sandboxes and agents by name. What an entry says is applied;
// what it leaves out is left as the server has it (a config key left out
// keeps its value). Secrets are never in the file: secret_env names the
// environment variable that holds one.
package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	yaml12 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/yaml"
)

// File is a manifest: the sandboxes and the agents, each named.
type File struct {
	Sandboxes []Sandbox `json:"sandboxes,omitempty"`
	Agents    []Agent   `json:"agents,omitempty"`

	// faults found while parsing, reported with those Apply finds.
	faults Problems
}

// Sandbox declares a sandbox.
type Sandbox struct {
	Name        string  `json:"name"`
	Provider    string  `json:"provider"`
	Description *string `json:"description,omitempty"`
	URL         *string `json:"url,omitempty"`
	// SecretEnv names the environment variable that holds the secret.
	SecretEnv string         `json:"secret_env,omitempty"`
	Config    map[string]any `json:"config,omitempty"`
}

// Agent declares an agent and, with Sandbox, its binding.
type Agent struct {
	Name        string  `json:"name"`
	Description *string `json:"description,omitempty"`
	Emoji       *string `json:"emoji,omitempty"`
	Color       *string `json:"color,omitempty"`
	// Sandbox is the name of the sandbox bound to the agent.
	Sandbox string `json:"sandbox,omitempty"`
	// Tools are the binding's policies; tools left out are always allowed.
	Tools map[string]string `json:"tools,omitempty"`
	// Approval says who may grant the approvals the tools need.
	Approval *Approval `json:"approval,omitempty"`
}

// Approval is a binding's approval rule: who grants (anyone, someone_else,
// admin) and whether the caller's word on the call counts. What it leaves
// out is left as the server has it (the default, for a new binding).
type Approval struct {
	GrantedBy string `json:"granted_by,omitempty"`
	WithCall  *bool  `json:"with_call,omitempty"`
}

// Problems are every fault found in a file, by path (sandboxes[1].name).
type Problems []string

func (p Problems) Error() string {
	return fmt.Sprintf("the file has %d problem(s):\n  %s", len(p), strings.Join(p, "\n  "))
}

func (p *Problems) add(path, format string, args ...any) {
	*p = append(*p, path+": "+fmt.Sprintf(format, args...))
}

func (p Problems) err() error {
	if len(p) == 0 {
		return nil
	}
	return p
}

// members are the keys each part of a file may have.
var members = map[string][]string{
	"":          {"sandboxes", "agents"},
	"sandboxes": {"name", "provider", "description", "url", "secret_env", "config"},
	"agents":    {"name", "description", "emoji", "color", "sandbox", "tools", "approval"},
	"approval":  {"granted_by", "with_call"},
}

// Parse reads a manifest (YAML 1.2, or JSON): names such as NO or on stay
// strings, as only true and false are booleans. Unknown members and values
// of the wrong type are kept with the file, and Apply reports them with
// every other fault; a file that is not a mapping at all is an error.
func Parse(raw []byte) (*File, error) {
	js, err := yamlToJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("the file is not YAML: %w", err)
	}
	var loose map[string]any
	if err := json.Unmarshal(js, &loose); err != nil || loose == nil {
		return nil, Problems{"the file must be a mapping with sandboxes and agents"}
	}
	var p Problems
	unknown := func(path string, m map[string]any, allowed []string) {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if !slices.Contains(allowed, k) {
				p.add(join(path, k), "is not a member of %s (it has %s)", or(path, "the file"), strings.Join(allowed, ", "))
			}
		}
	}
	unknown("", loose, members[""])
	f := &File{}
	for _, part := range []string{"sandboxes", "agents"} {
		list, ok := loose[part].([]any)
		if loose[part] != nil && !ok {
			p.add(part, "must be a list")
			continue
		}
		for i, item := range list {
			path := fmt.Sprintf("%s[%d]", part, i)
			m, ok := item.(map[string]any)
			if !ok {
				p.add(path, "must be a mapping")
				continue
			}
			unknown(path, m, members[part])
			if rule, ok := m["approval"]; ok && part == "agents" {
				if fields, ok := rule.(map[string]any); ok {
					unknown(path+".approval", fields, members["approval"])
				} else {
					p.add(path+".approval", "must be a mapping (it has %s)", strings.Join(members["approval"], ", "))
					delete(m, "approval")
				}
			}
			entry, _ := json.Marshal(m)
			var err error
			if part == "sandboxes" {
				var s Sandbox
				err = json.Unmarshal(entry, &s)
				f.Sandboxes = append(f.Sandboxes, s)
			} else {
				var a Agent
				err = json.Unmarshal(entry, &a)
				f.Agents = append(f.Agents, a)
			}
			if te := (*json.UnmarshalTypeError)(nil); errors.As(err, &te) {
				p.add(join(path, te.Field), "must be a %s", te.Type)
			} else if err != nil {
				p.add(path, "%v", err)
			}
		}
	}
	f.faults = p
	return f, nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func or(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}

// Marshal writes a manifest as YAML.
func Marshal(f *File) ([]byte, error) {
	js, err := json.Marshal(f)
	if err != nil {
		return nil, err
	}
	return yaml.JSONToYAML(js)
}

// yamlToJSON reads YAML 1.2 into JSON; a mapping's keys become strings.
func yamlToJSON(raw []byte) ([]byte, error) {
	var doc any
	if err := yaml12.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	return json.Marshal(stringKeys(doc))
}

// stringKeys turns the mappings whose keys are not all strings (such as
// 1: or 2.5:) into mappings of strings, as JSON has them.
func stringKeys(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, item := range v {
			v[k] = stringKeys(item)
		}
		return v
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, item := range v {
			out[fmt.Sprint(k)] = stringKeys(item)
		}
		return out
	case []any:
		for i, item := range v {
			v[i] = stringKeys(item)
		}
		return v
	}
	return v
}
