package run

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// Tool is a sandbox tool a run offers: what people and models read of it,
// the policy a binding gives it unless told otherwise, its input and its
// REST route. Tools lists every one; everything else about the tools (the
// routes, the binding's policies, the catalogue, the contract's enums)
// follows that list.
type Tool struct {
	Name  string
	Title string
	// Description says what the tool does, what it takes and what it
	// answers, for a person choosing its policy and a model calling it.
	Description string
	// Default is the tool's policy in a binding that does not set one.
	Default auxilia.ToolPolicy
	// Input is the tool's arguments, a struct: its fields, their json
	// names and their doc, minimum, maximum, default and binding tags give
	// the input schema.
	Input any
	// Method and Path are its REST route, under /api/v1; Status is the
	// status of a successful answer.
	Method, Path string
	Status       int
}

// Tools are the sandbox tools a run offers, in the order they are shown.
var Tools = []Tool{
	{
		Name: "execute", Title: "Run a command",
		Description: "Runs a shell command in the sandbox's working directory and answers its exit code " +
			"and its stdout and stderr together. A command that runs longer than its timeout is ended with exit " +
			"code 124; long output is cut, with a notice and truncated set. Use it to run programs, install " +
			"packages and inspect what the file tools do not show.",
		Default: auxilia.AlwaysAllow, Input: ExecInput{},
		Method: http.MethodPost, Path: "/runs/:run_id/execute", Status: http.StatusOK,
	},
	{
		Name: "ls", Title: "List a directory",
		Description: "Lists a directory's entries: each one's path, whether it is a file or a directory, its size " +
			"and when it changed. At most 10000 entries; of a larger directory some are given, with truncated set.",
		Default: auxilia.AlwaysAllow, Input: ListInput{},
		Method: http.MethodGet, Path: "/runs/:run_id/ls", Status: http.StatusOK,
	},
	{
		Name: "read_file", Title: "Read a text file",
		Description: "Reads a window of a text file's lines: up to limit lines from line offset (0-based), with the " +
			"file's total number of lines. A line longer than 16 KiB is cut and the window stops before 1 MiB; " +
			"truncated then says so, and reading on from offset+lines gives the rest. A binary file is refused.",
		Default: auxilia.AlwaysAllow, Input: ReadInput{},
		Method: http.MethodGet, Path: "/runs/:run_id/files", Status: http.StatusOK,
	},
	{
		Name: "write_file", Title: "Create a file",
		Description: "Creates a file with the given content, making its parent directories. It never overwrites: " +
			"a file that exists is refused (file_exists), so change an existing file with edit_file.",
		Default: auxilia.AlwaysAllow, Input: WriteInput{},
		Method: http.MethodPut, Path: "/runs/:run_id/files", Status: http.StatusCreated,
	},
	{
		Name: "edit_file", Title: "Edit a text file",
		Description: "Replaces old_string with new_string in a text file and answers how many replacements it made. " +
			"old_string must occur exactly once, unless replace_all is set: add surrounding lines to make it " +
			"unique. Files larger than 16 MiB are refused.",
		Default: auxilia.AlwaysAllow, Input: EditInput{},
		Method: http.MethodPost, Path: "/runs/:run_id/edit", Status: http.StatusOK,
	},
	{
		Name: "glob", Title: "Find files by pattern",
		Description: "Finds paths matching a pattern: * and ? match within a name, [abc] one of a class, {py,ts} one of a set, " +
			"** across directories (**/*.{py,ts} finds every Python and TypeScript file). Answers up to 1000 paths, sorted, among the first 50000 under " +
			"path; truncated says some were left out.",
		Default: auxilia.AlwaysAllow, Input: GlobInput{},
		Method: http.MethodGet, Path: "/runs/:run_id/glob", Status: http.StatusOK,
	},
	{
		Name: "grep", Title: "Search files for text",
		Description: "Finds the lines of text files that contain a string, taken literally (not a regular " +
			"expression), in a file or under a directory: each match's path, line number and text. Up to 1000 " +
			"lines, each cut at 16 KiB; truncated says some were left out or cut.",
		Default: auxilia.AlwaysAllow, Input: GrepInput{},
		Method: http.MethodGet, Path: "/runs/:run_id/grep", Status: http.StatusOK,
	},
}

// LookupTool returns the tool of that name.
func LookupTool(name string) (Tool, bool) {
	for _, t := range Tools {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

// ToolNames are the tools' names, in the order they are shown.
func ToolNames() []string {
	names := make([]string, len(Tools))
	for i, t := range Tools {
		names[i] = t.Name
	}
	return names
}

// DefaultPolicies are the policies of a binding that sets none.
func DefaultPolicies() map[string]auxilia.ToolPolicy {
	out := make(map[string]auxilia.ToolPolicy, len(Tools))
	for _, t := range Tools {
		out[t.Name] = t.Default
	}
	return out
}

// InputSchema is the JSON Schema of the tool's arguments, read from its
// Input struct.
func (t Tool) InputSchema() map[string]any {
	props := map[string]any{}
	required := []string{}
	typ := reflect.TypeOf(t.Input)
	for _, f := range reflect.VisibleFields(typ) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "" || name == "-" {
			continue
		}
		p := map[string]any{"type": jsonType(f.Type)}
		if d := f.Tag.Get("doc"); d != "" {
			p["description"] = d
		}
		for _, key := range []string{"minimum", "maximum", "maxLength", "default"} {
			if v := f.Tag.Get(key); v != "" {
				var n int
				if _, err := fmt.Sscan(v, &n); err == nil {
					p[key] = n
				}
			}
		}
		props[name] = p
		if f.Tag.Get("binding") != "optional" {
			required = append(required, name)
		}
	}
	return map[string]any{
		"type":                 "object",
		"properties":           props,
		"required":             required,
		"additionalProperties": false,
	}
}

// jsonType is the JSON Schema type of an input field: bytes are text.
func jsonType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int32, reflect.Int64:
		return "integer"
	default:
		return "string"
	}
}
