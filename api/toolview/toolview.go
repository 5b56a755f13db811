// Package toolview is the answers of the sandbox tools, as both the REST
// routes (api/tools.go) and the MCP server (api/mcpserver) give them: one
// set of shapes and one mapping from what the run service returns, so that
// the two cannot drift apart.
package toolview

import (
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/run"
)

type ExecuteResult struct {
	ExitCode   int    `json:"exit_code"`
	Output     string `json:"output"`
	Truncated  bool   `json:"truncated"`
	DurationMS int64  `json:"duration_ms"`
} //@name ExecuteResult

// Execute is the answer of the execute tool.
func Execute(res provider.ExecResult) ExecuteResult {
	return ExecuteResult{ExitCode: res.ExitCode, Output: res.Output, Truncated: res.Truncated,
		DurationMS: res.Duration.Milliseconds()}
}

type FileEntry struct {
	Path       string    `json:"path" example:"/workspace/data.csv"`
	Type       string    `json:"type" enums:"file,directory"`
	Size       int64     `json:"size"`
	ModifiedAt time.Time `json:"modified_at" format:"date-time"`
} //@name FileEntry

type ListResult struct {
	Entries []FileEntry `json:"entries"`
	// The directory has more entries than the 10000 given.
	Truncated bool `json:"truncated"`
} //@name ListResult

// List is the answer of the ls tool.
func List(listing run.Listing) ListResult {
	out := ListResult{Entries: make([]FileEntry, len(listing.Entries)), Truncated: listing.Truncated}
	for i, e := range listing.Entries {
		kind := "file"
		if e.Dir {
			kind = "directory"
		}
		out.Entries[i] = FileEntry{Path: e.Path, Type: kind, Size: e.Size, ModifiedAt: e.ModifiedAt.UTC()}
	}
	return out
}

type FileContent struct {
	Path       string `json:"path"`
	Content    string `json:"content"`
	Offset     int    `json:"offset"`
	Lines      int    `json:"lines"`
	TotalLines int    `json:"total_lines"`
	// A line was cut at 16 KiB, or the window ended early to stay within 1 MiB: read on from offset+lines.
	Truncated bool `json:"truncated"`
} //@name FileContent

// Read is the answer of the read_file tool.
func Read(text run.Text) FileContent { return FileContent(text) }

type WrittenFile struct {
	Path string `json:"path"`
} //@name WrittenFile

// Written is the answer of the write_file tool: the path of the file made.
func Written(path string) WrittenFile { return WrittenFile{Path: path} }

type EditResult struct {
	Replacements int `json:"replacements"`
} //@name EditResult

// Edited is the answer of the edit_file tool: how many replacements it made.
func Edited(replacements int) EditResult { return EditResult{Replacements: replacements} }

type GlobResult struct {
	Paths []string `json:"paths"`
	// Some paths were left out: past 1000, or not looked at for want of time or room.
	Truncated bool `json:"truncated"`
} //@name GlobResult

// Glob is the answer of the glob tool.
func Glob(found run.GlobResult) GlobResult { return GlobResult(found) }

type GrepMatch struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Text string `json:"text"`
} //@name GrepMatch

type GrepResult struct {
	Matches []GrepMatch `json:"matches"`
	// Some lines were left out (past 1000, or for want of time or room), or a line's text was cut at 16 KiB.
	Truncated bool `json:"truncated"`
} //@name GrepResult

// Grep is the answer of the grep tool.
func Grep(found run.GrepResult) GrepResult {
	out := GrepResult{Matches: make([]GrepMatch, len(found.Matches)), Truncated: found.Truncated}
	for i, m := range found.Matches {
		out.Matches[i] = GrepMatch(m)
	}
	return out
}

// answers are each tool's answer, by name, as a zero value of its type.
var answers = map[string]any{
	"execute": ExecuteResult{}, "ls": ListResult{}, "read_file": FileContent{}, "write_file": WrittenFile{},
	"edit_file": EditResult{}, "glob": GlobResult{}, "grep": GrepResult{},
}

// Answer is the type of a tool's answer, as a zero value.
func Answer(tool string) (any, bool) {
	a, ok := answers[tool]
	return a, ok
}
