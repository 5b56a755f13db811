package mcpserver

import (
	"context"
	"errors"
	"mime"
	"net/url"
	"path"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The working folder's listing as resources is bounded: at most
// maxResources files, from at most maxListedDirs directories.
const (
	maxResources  = 1000
	maxListedDirs = 100
	// pythonEnvDir is a local instance's own Python environment, in its
	// working folder: its thousands of files are not the thread's work
	// (the search tools skip it too, pkg/run/search.go).
	pythonEnvDir = ".venv"
)

// addResources serves the thread's working folder as file:// resources,
// listed with the ls tool and read with read_file, under the same policies
// and checks as the tools.
func (s *session) addResources(srv *mcp.Server) {
	if s.agent.Binding == nil {
		return
	}
	srv.AddResourceTemplate(&mcp.ResourceTemplate{
		Name: "files", Title: "Files of the thread's working folder", URITemplate: "file:///{+path}",
		Description: "A text file of the sandbox, read whole (up to 20000 lines).",
	}, s.readResource)
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "resources/list" {
				return next(ctx, method, req)
			}
			res, err := s.listResources(s.context(ctx), req.(*mcp.ListResourcesRequest))
			return res, publicError(err)
		}
	})
}

// listResources lists the files under the working folder, breadth first.
func (s *session) listResources(ctx context.Context, req *mcp.ListResourcesRequest) (*mcp.ListResourcesResult, error) {
	out := &mcp.ListResourcesResult{Resources: []*mcp.Resource{}}
	err := s.withRun(ctx, req.Session, func(runID string) error {
		out.Resources = out.Resources[:0]
		dirs := []string{""} // the working directory
		for listed := 0; len(dirs) > 0 && listed < maxListedDirs && len(out.Resources) < maxResources; listed++ {
			dir := dirs[0]
			dirs = dirs[1:]
			var listing run.Listing
			err := s.approvingResource(ctx, req.Session, runID, "ls", func(approved bool) (err error) {
				listing, err = s.deps.Runs.List(ctx, s.actor.Workspace.ID, runID, run.ListInput{Path: dir}, approved)
				return err
			})
			if err != nil {
				return err
			}
			for _, e := range listing.Entries {
				if e.Dir {
					if path.Base(e.Path) != pythonEnvDir {
						dirs = append(dirs, e.Path)
					}
					continue
				}
				if len(out.Resources) == maxResources {
					break
				}
				out.Resources = append(out.Resources, &mcp.Resource{URI: fileURI(e.Path), Name: e.Path,
					MIMEType: mimeOf(e.Path), Size: e.Size})
			}
		}
		return nil
	})
	return out, err
}

// readResource reads a file of the sandbox with the read_file tool.
func (s *session) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	ctx = s.context(ctx)
	u, err := url.Parse(req.Params.URI)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	var text run.Text
	err = s.withRun(ctx, req.Session, func(runID string) error {
		return s.approvingResource(ctx, req.Session, runID, "read_file", func(approved bool) (err error) {
			text, err = s.deps.Runs.Read(ctx, s.actor.Workspace.ID, runID, run.ReadInput{Path: u.Path, Limit: run.MaxReadLimit}, approved)
			return err
		})
	})
	if auxilia.IsCode(err, auxilia.CodeNotFound) {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	if err != nil {
		return nil, publicError(err)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: mimeOf(u.Path), Text: text.Content}}}, nil
}

// approvingResource is approving for a resource request: the person is
// asked as for the tool it uses.
func (s *session) approvingResource(ctx context.Context, ss *mcp.ServerSession, runID, tool string, fn func(approved bool) error) error {
	req := &mcp.CallToolRequest{Session: ss, Params: &mcp.CallToolParamsRaw{Name: tool}}
	return s.approving(ctx, req, runID, tool, fn)
}

func fileURI(p string) string { return (&url.URL{Scheme: "file", Path: p}).String() }

func mimeOf(p string) string {
	if t := mime.TypeByExtension(path.Ext(p)); t != "" {
		return t
	}
	return "text/plain"
}

// publicError is what a protocol error may say: a problem's message, or
// "internal error".
func publicError(err error) error {
	if err == nil {
		return nil
	}
	var e *auxilia.Error
	if errors.As(err, &e) && e.Code != auxilia.CodeInternal {
		return errors.New(e.Message)
	}
	return errors.New("internal error")
}
