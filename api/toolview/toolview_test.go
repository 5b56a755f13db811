package toolview

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// REST and MCP both answer with these mappings: their JSON is the contract's.
func TestToolAnswersAreTheContractsShapes(t *testing.T) {
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.FixedZone("CEST", 2*3600))
	for _, c := range []struct {
		got  any
		want string
	}{
		{Execute(provider.ExecResult{ExitCode: 3, Output: "hi\n", Truncated: true, Duration: 1500 * time.Millisecond}),
			`{"exit_code":3,"output":"hi\n","truncated":true,"duration_ms":1500}`},
		{List(run.Listing{Entries: []provider.FileInfo{{Path: "/w/d", Dir: true, ModifiedAt: at}, {Path: "/w/f", Size: 2, ModifiedAt: at}}}),
			`{"entries":[{"path":"/w/d","type":"directory","size":0,"modified_at":"2026-05-01T10:00:00Z"},` +
				`{"path":"/w/f","type":"file","size":2,"modified_at":"2026-05-01T10:00:00Z"}],"truncated":false}`},
		{Read(run.Text{Path: "/w/f", Content: "a", Lines: 1, TotalLines: 1}),
			`{"path":"/w/f","content":"a","offset":0,"lines":1,"total_lines":1,"truncated":false}`},
		{Written("/w/f"), `{"path":"/w/f"}`},
		{Edited(2), `{"replacements":2}`},
		{Glob(run.GlobResult{Paths: []string{"/w/f"}}), `{"paths":["/w/f"],"truncated":false}`},
		{Grep(run.GrepResult{Matches: []run.Match{{Path: "/w/f", Line: 1, Text: "a"}}, Truncated: true}),
			`{"matches":[{"path":"/w/f","line":1,"text":"a"}],"truncated":true}`},
	} {
		got, err := json.Marshal(c.got)
		require.NoError(t, err)
		assert.JSONEq(t, c.want, string(got))
	}
}

// Each tool's answer type is known, for the schema MCP clients check answers against.
func TestEveryToolHasItsAnswersType(t *testing.T) {
	for _, tool := range run.Tools {
		a, ok := Answer(tool.Name)
		assert.True(t, ok, tool.Name)
		assert.NotNil(t, a, tool.Name)
	}
	for name, got := range map[string]any{"execute": Execute(provider.ExecResult{}), "ls": List(run.Listing{}),
		"read_file": Read(run.Text{}), "write_file": Written(""), "edit_file": Edited(0),
		"glob": Glob(run.GlobResult{}), "grep": Grep(run.GrepResult{})} {
		a, _ := Answer(name)
		assert.IsType(t, a, got, name)
	}
	_, ok := Answer("no_such_tool")
	assert.False(t, ok)
}
