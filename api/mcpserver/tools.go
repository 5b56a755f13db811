package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"

	"github.com/auxilia/sandboxes/api/toolview"
	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// addTools lists the tools of run.Tools that the agent's binding does not
// disable, as the one table describes them. An agent without a sandbox has none.
func (s *session) addTools(srv *mcp.Server) {
	if s.agent.Binding == nil {
		return
	}
	for _, t := range run.Tools {
		if policyOf(s.agent.Binding, t) == auxilia.Disabled {
			continue
		}
		srv.AddTool(&mcp.Tool{
			Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: t.InputSchema(),
			OutputSchema: outputSchemas[t.Name],
			Annotations:  &mcp.ToolAnnotations{Title: t.Title, ReadOnlyHint: t.Method == http.MethodGet},
		}, s.tool(t))
	}
}

// outputSchemas are the JSON Schemas of the tools' structured answers,
// read from their types, by tool name.
var outputSchemas = func() map[string]*jsonschema.Schema {
	out := map[string]*jsonschema.Schema{}
	for _, t := range run.Tools {
		answer, ok := toolview.Answer(t.Name)
		if !ok {
			panic("mcpserver: toolview has no answer for the tool " + t.Name)
		}
		schema, err := jsonschema.ForType(reflect.TypeOf(answer), nil)
		if err != nil {
			panic("mcpserver: the answer of " + t.Name + ": " + err.Error())
		}
		out[t.Name] = schema
	}
	return out
}()

// policyOf is the binding's policy for a tool, the tool's default when the
// binding does not name it.
func policyOf(b *auxilia.Binding, t run.Tool) auxilia.ToolPolicy {
	if p, ok := b.Tools[t.Name]; ok {
		return p
	}
	return t.Default
}

// tool handles calls of one tool: a refusal or a failure is a tool error
// the model reads, never a protocol error.
func (s *session) tool(t run.Tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx = run.WithOrigin(s.context(ctx), run.Origin{Via: "mcp", AsksPerson: canElicit(req.Session)})
		in, err := decodeArgs(req.Params.Arguments, t)
		if err != nil {
			return s.toolError(ctx, err), nil
		}
		var out any
		err = s.withRun(ctx, req.Session, func(runID string) error {
			return s.approving(ctx, req, runID, t.Name, func(approved bool) (err error) {
				out, err = s.invoke(ctx, req, runID, in, approved)
				return err
			})
		})
		if err != nil {
			return s.toolError(ctx, err), nil
		}
		return s.result(out), nil
	}
}

// invoke calls the tool that in is the input of.
func (s *session) invoke(ctx context.Context, req *mcp.CallToolRequest, runID string, in any, approved bool) (any, error) {
	ws := s.actor.Workspace.ID
	switch in := in.(type) {
	case *run.ExecInput:
		exec := *in
		exec.Approved = approved
		exec.OnOutput = progress(ctx, req)
		res, err := s.deps.Runs.Execute(ctx, ws, runID, exec)
		if err != nil {
			return nil, err
		}
		return toolview.Execute(res), nil
	case *run.ListInput:
		listing, err := s.deps.Runs.List(ctx, ws, runID, *in, approved)
		if err != nil {
			return nil, err
		}
		return toolview.List(listing), nil
	case *run.ReadInput:
		text, err := s.deps.Runs.Read(ctx, ws, runID, *in, approved)
		return toolview.Read(text), err
	case *run.WriteInput:
		p, err := s.deps.Runs.Write(ctx, ws, runID, *in, approved)
		return toolview.Written(p), err
	case *run.EditInput:
		n, err := s.deps.Runs.Edit(ctx, ws, runID, *in, approved)
		return toolview.Edited(n), err
	case *run.GlobInput:
		found, err := s.deps.Runs.Glob(ctx, ws, runID, *in, approved)
		return toolview.Glob(found), err
	case *run.GrepInput:
		found, err := s.deps.Runs.Grep(ctx, ws, runID, *in, approved)
		return toolview.Grep(found), err
	}
	return nil, fmt.Errorf("mcpserver: no call for the input %T", in)
}

// progress streams a command's output as progress notifications, when the
// client asked for them with a progress token.
func progress(ctx context.Context, req *mcp.CallToolRequest) func(stream, text string) {
	token := req.Params.GetProgressToken()
	if token == nil {
		return nil
	}
	var mu sync.Mutex
	var n float64
	return func(stream, text string) {
		mu.Lock()
		defer mu.Unlock() // in order, numbered as they arrive
		n++
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: n, Message: text})
	}
}

// result answers a call with its structured content, and the same as JSON
// text for clients that read only text.
func (s *session) result(out any) *mcp.CallToolResult {
	text, _ := json.Marshal(out)
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}, StructuredContent: out}
	if n := s.takeNotice(); n != "" {
		res.Content = append([]mcp.Content{&mcp.TextContent{Text: n}}, res.Content...)
	}
	return res
}

// toolError words a refusal or failure for the model: the problem's
// message and each broken argument. Internal errors are logged and read
// only as "internal error".
func (s *session) toolError(ctx context.Context, err error) *mcp.CallToolResult {
	var text strings.Builder
	if auxilia.ErrorCode(err) == auxilia.CodeInternal {
		s.deps.Log.ErrorContext(ctx, "MCP tool call failed", "agent_id", s.agent.ID, "error", err.Error())
		text.WriteString("internal error")
	} else {
		var e *auxilia.Error
		errors.As(err, &e)
		text.WriteString(e.Message)
		for _, f := range e.Fields {
			fmt.Fprintf(&text, "\n%s: %s", f.Field, f.Message)
		}
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text.String()}}}
}
