package main

import (
	"fmt"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/getkin/kin-openapi/openapi3"
)

// problemMembers are the members a problem carries beside the standard
// ones, by reason: Swagger 2 annotations cannot say so.
var problemMembers = map[string]*openapi3.SchemaRef{
	"existing_id":  stringSchema("conflict: the id of the resource that holds the name"),
	"agents":       listOf("AgentRef", "sandbox_in_use: the agents bound to the sandbox"),
	"sandbox_id":   stringSchema("sandbox_unavailable: the sandbox that cannot be used"),
	"sandbox_name": stringSchema("sandbox_unavailable: its name"),
	"probe_reason": enumSchema("sandbox_unavailable: what failed", "network", "auth", "config", "quota", "provider"),
	"tool":         stringSchema("tool_disabled, approval_required: the tool called"),
	"arguments":    openObjectSchema("approval_required: the call's arguments, as a person approving it would read them"),
	"run_status":   enumSchema("run_not_active: the run's status", "active", "completed", "expired"),
	"path":         stringSchema("file_exists, not_found: the file's absolute path in the sandbox"),
	"provider":     stringSchema("terminal_unsupported: the provider whose instances have no terminal"),
	"quota":        enumSchema("quota_exceeded: the quota the start would pass", "instances", "instance_hours", "threads_per_agent"),
	"limit":        intSchema("quota_exceeded: the quota's limit"),
	"used":         intSchema("quota_exceeded: its current use"),

	// What a call that needs approval waits for, and who may grant it.
	"approval_id":     stringSchema("approval_required: the pending approval the call waits for; approval_denied: the decision it used"),
	"granted_by":      enumSchema("approval_required, grant_not_allowed: who may grant the approval, by the agent's approval rule", "anyone", "someone_else", "admin"),
	"grant_with_call": boolSchema("approval_required: whether the caller's own word (Auxilia-Approval: granted, or its MCP client's person's answer) would grant the call; false: a person the rule names approves it in the console"),
}

func describeProblemMembers(doc *openapi3.T) error {
	problem := doc.Components.Schemas["Problem"]
	if problem == nil {
		return fmt.Errorf("no Problem schema")
	}
	for name, schema := range problemMembers {
		problem.Value.Properties[name] = schema
	}
	return nil
}

func toolPolicies() []string {
	return []string{string(auxilia.AlwaysAllow), string(auxilia.NeedsApproval), string(auxilia.Disabled)}
}

// typeToolPolicies types a binding's tools as the tools of a run, each with
// its policy (Tools in answers, every tool listed; ToolsInput in requests),
// and a catalogued tool's name as one of them.
func typeToolPolicies(doc *openapi3.T) error {
	policy := doc.Components.Schemas["ToolPolicy"]
	if policy == nil {
		return fmt.Errorf("no ToolPolicy: mark a property x-enum=tool_policies")
	}
	for binding, tools := range map[string]string{"Binding": "Tools", "BindingPut": "ToolsInput"} {
		s := doc.Components.Schemas[binding]
		if s == nil || s.Value.Properties["tools"] == nil {
			return fmt.Errorf("no tools in %s", binding)
		}
		all := tools == "Tools"
		t := &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeObject}, Properties: openapi3.Schemas{}}
		closed := false
		t.AdditionalProperties = openapi3.AdditionalProperties{Has: &closed}
		for _, name := range run.ToolNames() {
			t.Properties[name] = openapi3.NewSchemaRef("#/components/schemas/ToolPolicy", policy.Value)
			if all {
				t.Required = append(t.Required, name)
			}
		}
		t.Description = "Each tool's policy. " + map[bool]string{true: "Every tool is listed.", false: "Tools left out are always allowed."}[all]
		doc.Components.Schemas[tools] = &openapi3.SchemaRef{Value: t}
		s.Value.Properties["tools"] = openapi3.NewSchemaRef("#/components/schemas/"+tools, t)
	}
	tool := doc.Components.Schemas["Tool"]
	if tool == nil || tool.Value.Properties["name"] == nil {
		return fmt.Errorf("no name in Tool")
	}
	tool.Value.Properties["name"].Value.Enum = nil
	for _, t := range run.ToolNames() {
		tool.Value.Properties["name"].Value.Enum = append(tool.Value.Properties["name"].Value.Enum, t)
	}
	return nil
}

func boolSchema(description string) *openapi3.SchemaRef {
	return &openapi3.SchemaRef{Value: &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeBoolean}, Description: description}}
}

func intSchema(description string) *openapi3.SchemaRef {
	return &openapi3.SchemaRef{Value: &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeInteger}, Description: description}}
}

func stringSchema(description string) *openapi3.SchemaRef {
	return &openapi3.SchemaRef{Value: &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeString}, Description: description}}
}

// openObjectSchema is an object whose members are not listed: any may come.
func openObjectSchema(description string) *openapi3.SchemaRef {
	open := true
	return &openapi3.SchemaRef{Value: &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeObject}, Description: description,
		AdditionalProperties: openapi3.AdditionalProperties{Has: &open}}}
}

func enumSchema(description string, values ...string) *openapi3.SchemaRef {
	s := &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeString}, Description: description}
	for _, v := range values {
		s.Enum = append(s.Enum, v)
	}
	return &openapi3.SchemaRef{Value: s}
}

func listOf(component, description string) *openapi3.SchemaRef {
	return &openapi3.SchemaRef{Value: &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeArray}, Description: description,
		Items: openapi3.NewSchemaRef("#/components/schemas/"+component, nil)}}
}
